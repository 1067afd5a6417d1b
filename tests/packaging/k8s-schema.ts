// Validation of rendered Kubernetes objects against the API schemas shipped by `kubernetes-models`.
//
// The models' validate() checks types, required fields and enums, but its schemas allow unknown
// properties, so a misspelt field (`readinesProbe`) would pass and be dropped by the API server. To
// catch those too, unknownFields() walks each object along the TypeScript interfaces of the same
// package (read with the TypeScript compiler API) and reports every property the interface lacks.
import path from 'node:path';
import ts from 'typescript';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import type { K8sObject } from './kustomize';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

// apiVersion/kind -> model class and the module + interface that describe it.
const KINDS: Record<string, { model: ModelClass; module: string; iface: string }> = {
  'apps/v1/Deployment': {
    model: Deployment as unknown as ModelClass,
    module: 'kubernetes-models/apps/v1/Deployment',
    iface: 'IDeployment',
  },
  'v1/Service': {
    model: Service as unknown as ModelClass,
    module: 'kubernetes-models/v1/Service',
    iface: 'IService',
  },
  'v1/ConfigMap': {
    model: ConfigMap as unknown as ModelClass,
    module: 'kubernetes-models/v1/ConfigMap',
    iface: 'IConfigMap',
  },
  'v1/Secret': {
    model: Secret as unknown as ModelClass,
    module: 'kubernetes-models/v1/Secret',
    iface: 'ISecret',
  },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler as unknown as ModelClass,
    module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    iface: 'IHorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget as unknown as ModelClass,
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    iface: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/Ingress': {
    model: Ingress as unknown as ModelClass,
    module: 'kubernetes-models/networking.k8s.io/v1/Ingress',
    iface: 'IIngress',
  },
};

/** Kinds this validator knows; any other kind in the manifests is an error. */
export const KNOWN_KINDS: readonly string[] = Object.keys(KINDS);

const keyOf = (o: Pick<K8sObject, 'apiVersion' | 'kind'>): string => `${o.apiVersion}/${o.kind}`;

/** Validates one object with its kubernetes-models class; throws with the schema errors. */
export function validateModel(o: K8sObject): void {
  const entry = KINDS[keyOf(o)];
  if (!entry) throw new Error(`no schema for ${keyOf(o)} (known: ${KNOWN_KINDS.join(', ')})`);
  new entry.model(structuredClone(o) as never).validate();
}

let cached: { checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

// One in-memory program that imports every interface; building it costs ~2 s, so it is made once.
function typeChecker(): { checker: ts.TypeChecker; types: Map<string, ts.Type> } {
  if (cached) return cached;
  const root = path.resolve(__dirname, '../..');
  const virtual = path.join(root, 'tests/packaging/__k8s_schema_types__.ts');
  const entries = Object.entries(KINDS);
  const source =
    entries.map(([, e], i) => `import type { ${e.iface} as T${i} } from '${e.module}';`).join('\n') +
    `\nexport interface Root {\n${entries.map(([k], i) => `  ${JSON.stringify(k)}: T${i};`).join('\n')}\n}\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    baseUrl: root,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (file, lang, ...rest) =>
    file === virtual ? ts.createSourceFile(file, source, lang) : getSourceFile(file, lang, ...rest);
  host.fileExists = (file) => file === virtual || fileExists(file);
  const program = ts.createProgram([virtual], options, host);
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(virtual);
  const moduleSymbol = sf && checker.getSymbolAtLocation(sf);
  const rootSymbol = moduleSymbol?.exports?.get(ts.escapeLeadingUnderscores('Root'));
  if (!rootSymbol) throw new Error('could not load the kubernetes-models type declarations');
  const rootType = checker.getDeclaredTypeOfSymbol(rootSymbol);
  const types = new Map<string, ts.Type>();
  for (const [k] of entries) {
    const prop = rootType.getProperty(k);
    if (!prop) throw new Error(`no type for ${k}`);
    const t = checker.getTypeOfSymbol(prop);
    if (t.flags & ts.TypeFlags.Any)
      throw new Error(`the type of ${k} did not resolve (is kubernetes-models installed?)`);
    types.set(k, t);
  }
  cached = { checker, types };
  return cached;
}

function walk(checker: ts.TypeChecker, value: unknown, type: ts.Type, at: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  let t = checker.getNonNullableType(type);
  if (Array.isArray(value)) {
    if (checker.isArrayType(t)) {
      const element = checker.getTypeArguments(t as ts.TypeReference)[0];
      value.forEach((v, i) => walk(checker, v, element, `${at}[${i}]`, out));
    }
    return;
  }
  if (t.isUnion()) {
    // IntOrString, Quantity and similar unions have no object member to descend into.
    const objects = t.types.filter((m) => m.flags & ts.TypeFlags.Object);
    if (objects.length !== 1) return;
    t = objects[0];
  }
  if (!(t.flags & ts.TypeFlags.Object)) return;
  // Maps (labels, annotations, ConfigMap data, resource lists) accept any key.
  if (checker.getIndexInfosOfType(t).length) return;
  for (const [key, v] of Object.entries(value)) {
    const prop = t.getProperty(key);
    if (!prop) out.push(`${at}.${key}`);
    else walk(checker, v, checker.getTypeOfSymbol(prop), `${at}.${key}`, out);
  }
}

/** Dotted paths of properties that the object's Kubernetes type does not define. */
export function unknownFields(o: K8sObject): string[] {
  const { checker, types } = typeChecker();
  const type = types.get(keyOf(o));
  if (!type) throw new Error(`no type for ${keyOf(o)}`);
  const out: string[] = [];
  walk(checker, o, type, '', out);
  return out;
}
