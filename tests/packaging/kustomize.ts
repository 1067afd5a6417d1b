// A small, strict kustomize renderer so the manifests under k8s/ can be rendered and validated in a
// test without the kustomize binary (none can be downloaded here, and no npm package renders
// kustomize without one). Written by hand because no library does this.
//
// Supported kustomization fields, with kustomize's semantics:
//   resources         files (multi-document YAML) and directories holding a kustomization.yaml
//   namespace         set on every namespaced object
//   labels            pairs + includeTemplates; includeSelectors must be false (selectors stay untouched)
//   commonAnnotations added to metadata.annotations
//   images            name -> newName / newTag / digest, on containers and initContainers of pod templates
//   patches           `path` or inline `patch`; a YAML list is a JSON 6902 patch (needs `target`),
//                     a map is a strategic merge patch (matched by target, else by kind and name)
//   targets           group, version, kind, name (an anchored regular expression), namespace
//
// Anything else (namePrefix, commonLabels, generators, replicas, components, $patch directives,
// remote resources, label selectors in targets) throws, so a kustomization can never use a feature
// that this renderer would silently ignore. Keep k8s/ within this subset.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { applyPatch, type Operation } from 'fast-json-patch';
import { parse as parseYaml, parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

interface PatchEntry {
  path?: string;
  patch?: string;
  target?: PatchTarget;
}

interface LabelEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'labels',
  'commonAnnotations',
  'images',
  'patches',
]);
const SUPPORTED_TARGET_FIELDS = new Set(['group', 'version', 'kind', 'name', 'namespace']);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
]);
const POD_TEMPLATE_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

/** Renders the kustomization in `dir` (and everything it references) into a list of objects. */
export function renderKustomization(dir: string): K8sObject[] {
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']
    .map((f) => path.join(dir, f))
    .find((f) => existsSync(f));
  if (!file) throw new Error(`no kustomization.yaml in ${dir}`);
  const k = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const field of Object.keys(k)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new Error(`${file}: unsupported kustomization field "${field}"`);
  }
  if (k.kind !== 'Kustomization') throw new Error(`${file}: kind must be Kustomization`);

  const objects: K8sObject[] = [];
  for (const ref of (k.resources as string[] | undefined) ?? []) {
    if (/^[a-z]+:\/\//i.test(ref) || ref.includes('?ref='))
      throw new Error(`${file}: remote resources are not supported: ${ref}`);
    const target = path.resolve(dir, ref);
    const loaded = statSync(target).isDirectory() ? renderKustomization(target) : loadObjects(target);
    for (const obj of loaded) {
      if (objects.some((o) => sameId(o, obj)))
        throw new Error(`${file}: duplicate resource ${describe(obj)}`);
      objects.push(obj);
    }
  }

  for (const entry of (k.patches as PatchEntry[] | undefined) ?? [])
    applyPatchEntry(objects, entry, dir, file);
  if (typeof k.namespace === 'string') {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  for (const entry of (k.labels as LabelEntry[] | undefined) ?? []) applyLabels(objects, entry, file);
  if (k.commonAnnotations) {
    for (const o of objects)
      o.metadata.annotations = {
        ...o.metadata.annotations,
        ...(k.commonAnnotations as Record<string, string>),
      };
  }
  for (const image of (k.images as ImageEntry[] | undefined) ?? []) applyImage(objects, image);
  return objects;
}

function loadObjects(file: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
    const obj = doc.toJS() as K8sObject | null;
    if (obj === null) continue;
    if (!obj.apiVersion || !obj.kind || !obj.metadata?.name)
      throw new Error(`${file}: every object needs apiVersion, kind and metadata.name`);
    out.push(obj);
  }
  return out;
}

function groupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function sameId(a: K8sObject, b: K8sObject): boolean {
  return (
    groupVersion(a.apiVersion).group === groupVersion(b.apiVersion).group &&
    a.kind === b.kind &&
    a.metadata.name === b.metadata.name &&
    (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '')
  );
}

function describe(o: K8sObject): string {
  return `${o.apiVersion} ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

function matches(o: K8sObject, t: PatchTarget): boolean {
  const gv = groupVersion(o.apiVersion);
  if (t.group !== undefined && t.group !== gv.group) return false;
  if (t.version !== undefined && t.version !== gv.version) return false;
  if (t.kind !== undefined && t.kind !== o.kind) return false;
  if (t.namespace !== undefined && t.namespace !== (o.metadata.namespace ?? '')) return false;
  // kustomize treats the target name as a regular expression matched against the whole name.
  if (t.name !== undefined && !new RegExp(`^(?:${t.name})$`).test(o.metadata.name)) return false;
  return true;
}

function applyPatchEntry(objects: K8sObject[], entry: PatchEntry, dir: string, file: string): void {
  for (const field of Object.keys(entry)) {
    if (!['path', 'patch', 'target'].includes(field))
      throw new Error(`${file}: unsupported patch field "${field}"`);
  }
  if ((entry.path === undefined) === (entry.patch === undefined))
    throw new Error(`${file}: a patch needs exactly one of path and patch`);
  if (entry.target) {
    for (const field of Object.keys(entry.target)) {
      if (!SUPPORTED_TARGET_FIELDS.has(field))
        throw new Error(`${file}: unsupported patch target field "${field}"`);
    }
  }
  const source = entry.path ? path.resolve(dir, entry.path) : `${file} (inline patch)`;
  const content = parseYaml(entry.path ? readFileSync(source, 'utf8') : (entry.patch as string)) as Json;

  if (Array.isArray(content)) {
    if (!entry.target) throw new Error(`${source}: a JSON 6902 patch needs a target`);
    const selected = objects.filter((o) => matches(o, entry.target as PatchTarget));
    if (!selected.length)
      throw new Error(`${source}: target ${JSON.stringify(entry.target)} matches no resource`);
    for (const o of selected) {
      // validate=true makes `replace`/`remove` of a missing path an error, as in kustomize.
      applyPatch(o, content as unknown as Operation[], true, true);
    }
    return;
  }
  if (!content || typeof content !== 'object')
    throw new Error(`${source}: a patch must be a YAML list (JSON 6902) or map (strategic merge)`);
  const patch = content as JsonObject;
  const selected = entry.target
    ? objects.filter((o) => matches(o, entry.target as PatchTarget))
    : objects.filter((o) => {
        const meta = patch.metadata as JsonObject | undefined;
        return (
          o.kind === patch.kind &&
          o.metadata.name === meta?.name &&
          groupVersion(o.apiVersion).group === groupVersion(String(patch.apiVersion ?? '')).group &&
          (meta?.namespace === undefined || meta.namespace === o.metadata.namespace)
        );
      });
  if (!selected.length) throw new Error(`${source}: strategic merge patch matches no resource`);
  for (const o of selected) {
    const body = structuredClone(patch);
    // With an explicit target the patch's own identity is irrelevant (kustomize ignores it too).
    if (entry.target) {
      delete body.apiVersion;
      delete body.kind;
      if (body.metadata && typeof body.metadata === 'object' && !Array.isArray(body.metadata))
        delete (body.metadata as JsonObject).name;
    }
    strategicMerge(o as unknown as JsonObject, body, [], source);
  }
}

// patchMergeKey of the list fields that Kubernetes merges by key; every other list is replaced whole.
function mergeKey(field: string, parents: readonly string[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      // Container ports merge by containerPort, Service ports by port.
      return parents.some((p) => p === 'containers' || p === 'initContainers') ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

function isObject(v: Json | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Strategic merge of `patch` into `target` in place (maps merge, keyed lists merge by key, null deletes). */
export function strategicMerge(
  target: JsonObject,
  patch: JsonObject,
  parents: readonly string[],
  source: string,
): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`${source}: strategic merge directive ${key} is not supported`);
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = target[key];
    if (isObject(value) && isObject(current)) {
      strategicMerge(current, value, [...parents, key], source);
    } else if (
      Array.isArray(value) &&
      Array.isArray(current) &&
      mergeKey(key, parents) &&
      value.every(isObject)
    ) {
      const mk = mergeKey(key, parents) as string;
      for (const item of value as JsonObject[]) {
        if (Object.keys(item).some((k) => k.startsWith('$')))
          throw new Error(`${source}: strategic merge directives in ${key} are not supported`);
        if (item[mk] === undefined) throw new Error(`${source}: item of ${key} lacks its merge key ${mk}`);
        const existing = (current as Json[]).find((c) => isObject(c) && c[mk] === item[mk]);
        if (isObject(existing)) strategicMerge(existing, item, [...parents, key], source);
        else (current as Json[]).push(structuredClone(item));
      }
    } else {
      target[key] = structuredClone(value);
    }
  }
}

function podTemplates(o: K8sObject): JsonObject[] {
  const spec = o.spec as JsonObject | undefined;
  if (!POD_TEMPLATE_KINDS.has(o.kind) || !isObject(spec?.template)) return [];
  return [spec.template];
}

function applyLabels(objects: K8sObject[], entry: LabelEntry, file: string): void {
  for (const field of Object.keys(entry)) {
    if (!['pairs', 'includeSelectors', 'includeTemplates'].includes(field))
      throw new Error(`${file}: unsupported labels field "${field}"`);
  }
  // Adding labels to selectors changes immutable Deployment selectors; not supported on purpose.
  if (entry.includeSelectors) throw new Error(`${file}: labels.includeSelectors: true is not supported`);
  for (const o of objects) {
    o.metadata.labels = { ...o.metadata.labels, ...entry.pairs };
    if (!entry.includeTemplates) continue;
    for (const t of podTemplates(o)) {
      const meta = (isObject(t.metadata) ? t.metadata : (t.metadata = {})) as JsonObject;
      meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), ...entry.pairs };
    }
  }
}

/** Splits an image reference into name, tag and digest (a registry port is part of the name). */
export function parseImage(ref: string): { name: string; tag?: string; digest?: string } {
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/'))
    return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { name: rest, digest };
}

function applyImage(objects: K8sObject[], image: ImageEntry): void {
  for (const o of objects) {
    for (const t of podTemplates(o)) {
      const spec = t.spec as JsonObject | undefined;
      for (const list of ['containers', 'initContainers'] as const) {
        for (const c of (spec?.[list] as JsonObject[] | undefined) ?? []) {
          const parsed = parseImage(String(c.image));
          if (parsed.name !== image.name) continue;
          const name = image.newName ?? parsed.name;
          if (image.digest) c.image = `${name}@${image.digest}`;
          else if (image.newTag) c.image = `${name}:${image.newTag}`;
          else
            c.image = `${name}${parsed.tag ? `:${parsed.tag}` : ''}${parsed.digest ? `@${parsed.digest}` : ''}`;
        }
      }
    }
  }
}
