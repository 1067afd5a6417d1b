import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES, SERVICE_PORTS, serviceUrlEnvVar, type ServiceName } from '@flowplane/contracts';
import { KNOWN_KINDS, unknownFields, validateModel } from './k8s-schema';
import { parseImage, renderKustomization } from './kustomize';

// Renders k8s/base and both overlays with the in-repo kustomize subset (./kustomize.ts) and checks
// every object against the Kubernetes schemas of `kubernetes-models`, then the platform's own rules.
const root = path.resolve(__dirname, '../..');
const k8s = path.join(root, 'k8s');

const variants = {
  base: renderKustomization(path.join(k8s, 'base')),
  dev: renderKustomization(path.join(k8s, 'overlays/dev')),
  prod: renderKustomization(path.join(k8s, 'overlays/prod')),
};
type Variant = keyof typeof variants;
const VARIANTS = Object.keys(variants) as Variant[];

const byKind = (v: Variant, kind: string): any[] => variants[v].filter((o) => o.kind === kind);
const get = (v: Variant, kind: string, name: string): any => {
  const o = variants[v].find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${v}: no ${kind} ${name}`);
  return o;
};

// Kubernetes quantities, enough for cpu (m) and memory (Ki..Ti, k..T) as used in k8s/.
function quantity(q: string | number): number {
  const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(q));
  if (!m) throw new Error(`unparseable quantity ${q}`);
  const units: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(m[1]) * (m[2] ? units[m[2]] : 1);
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

describe.each(VARIANTS)('k8s %s', (variant) => {
  const objects = variants[variant];

  it('renders only kinds with a known schema, each id once', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) expect(KNOWN_KINDS).toContain(`${o.apiVersion}/${o.kind}`);
    const ids = objects.map((o) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace}/${o.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('validates every object against the Kubernetes schema of kubernetes-models', () => {
    const failures: string[] = [];
    for (const o of objects) {
      try {
        validateModel(o);
      } catch (e) {
        failures.push(`${o.kind}/${o.metadata.name}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('uses no field that the Kubernetes types do not define (catches misspellings)', () => {
    const unknown = objects.flatMap((o) => unknownFields(o).map((f) => `${o.kind}/${o.metadata.name}${f}`));
    expect(unknown).toEqual([]);
  });

  it('puts every object in one namespace', () => {
    const expected = variant === 'dev' ? 'flowplane-dev' : 'flowplane';
    for (const o of objects) expect(o.metadata.namespace).toBe(expected);
  });

  it('has the shared ConfigMap and Secret, the Secret holding placeholders only', () => {
    const config = get(variant, 'ConfigMap', 'flowplane-config');
    for (const key of [
      'BUS',
      'KAFKA_BROKERS',
      'STORE',
      'MONGO_HOSTS',
      'MONGO_OPTIONS',
      'SEARCH_BACKEND',
      'VECTORSTORE_URL',
      'COORD',
      'NATS_URL',
    ]) {
      expect(config.data[key]).toBeTruthy();
    }
    expect(config.data).toMatchObject({
      BUS: 'kafka',
      STORE: 'mongo',
      SEARCH_BACKEND: 'vectordb',
      COORD: 'nats',
    });
    for (const s of SERVICE_NAMES)
      expect(config.data[serviceUrlEnvVar(s)]).toBe(`http://${s}:${SERVICE_PORTS[s]}`);
    const secret = get(variant, 'Secret', 'flowplane-secrets');
    expect(secret.metadata.annotations['flowplane.dev/placeholder']).toBe('true');
    expect(Object.keys(secret.stringData).sort()).toEqual([
      'AUTH_JWT_SECRET',
      'MONGO_PASSWORD',
      'MONGO_USERNAME',
      'SECRETS_KEY',
      'VECTORSTORE_API_KEY',
    ]);
    expect(secret.stringData.AUTH_JWT_SECRET).toMatch(/CHANGE-ME/);
    expect(secret.stringData.SECRETS_KEY).toMatch(/^CHANGE-ME:/);
    // No secret material in the ConfigMap.
    for (const key of Object.keys(config.data)) expect(key).not.toMatch(/SECRET|PASSWORD|API_KEY|TOKEN/);
  });

  describe.each(SERVICE_NAMES.map((s) => [s] as const))('service %s', (svc: ServiceName) => {
    const port = SERVICE_PORTS[svc];

    it('has a Deployment, Service, HorizontalPodAutoscaler and PodDisruptionBudget that fit together', () => {
      const d = get(variant, 'Deployment', svc);
      const s = get(variant, 'Service', svc);
      const h = get(variant, 'HorizontalPodAutoscaler', svc);
      const p = get(variant, 'PodDisruptionBudget', svc);
      const podLabels = d.spec.template.metadata.labels;
      expect(selects(d.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(selects(s.spec.selector, podLabels)).toBe(true);
      expect(selects(p.spec.selector.matchLabels, podLabels)).toBe(true);
      // Selectors must not pick up the pods of another service.
      for (const other of SERVICE_NAMES.filter((o) => o !== svc)) {
        expect(
          selects(s.spec.selector, get(variant, 'Deployment', other).spec.template.metadata.labels),
        ).toBe(false);
      }
      expect(h.apiVersion).toBe('autoscaling/v2');
      expect(p.apiVersion).toBe('policy/v1');
      expect(h.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: svc });
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
      expect(h.spec.metrics.length).toBeGreaterThan(0);
      expect(s.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }]);
    });

    it(`listens on ${port} and probes /healthz (liveness, startup) and /readyz (readiness) on that port`, () => {
      const d = get(variant, 'Deployment', svc);
      expect(d.spec.template.spec.containers).toHaveLength(1);
      const [c] = d.spec.template.spec.containers;
      expect(c.ports).toContainEqual({ name: 'http', containerPort: port, protocol: 'TCP' });
      expect(c.env).toContainEqual({ name: 'PORT', value: String(port) });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    });

    it('serves /metrics on a pod port of its own that the Service does not expose, where the scrape annotations point', () => {
      const d = get(variant, 'Deployment', svc);
      const [c] = d.spec.template.spec.containers;
      const metrics = c.ports.find((p: { name: string }) => p.name === 'metrics');
      expect(metrics).toEqual({ name: 'metrics', containerPort: expect.any(Number), protocol: 'TCP' });
      expect(metrics.containerPort).not.toBe(port);
      expect(c.env).toContainEqual({ name: 'METRICS_PORT', value: String(metrics.containerPort) });
      expect(d.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metrics.containerPort), 'prometheus.io/path': '/metrics' });
      expect(get(variant, 'Service', svc).spec.ports.map((p: { name: string }) => p.name)).not.toContain('metrics');
    });

    it('runs as a non-root user with a read-only root filesystem and no privilege escalation', () => {
      const pod = get(variant, 'Deployment', svc).spec.template.spec;
      const [c] = pod.containers;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.securityContext.privileged).toBeUndefined();
      expect(c.securityContext.runAsUser ?? pod.securityContext.runAsUser).not.toBe(0);
      // A read-only root needs a writable /tmp.
      expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(pod.volumes).toContainEqual(
        expect.objectContaining({ name: 'tmp', emptyDir: expect.any(Object) }),
      );
      expect(pod.automountServiceAccountToken).toBe(false);
    });

    it('sets cpu and memory requests no larger than the limits', () => {
      const { requests, limits } = get(variant, 'Deployment', svc).spec.template.spec.containers[0].resources;
      for (const r of ['cpu', 'memory']) {
        expect(requests[r]).toBeDefined();
        expect(limits[r]).toBeDefined();
        expect(quantity(requests[r])).toBeLessThanOrEqual(quantity(limits[r]));
      }
    });

    it('takes its environment from flowplane-config and flowplane-secrets, with its own database', () => {
      const [c] = get(variant, 'Deployment', svc).spec.template.spec.containers;
      expect(c.envFrom).toEqual([
        { configMapRef: { name: 'flowplane-config' } },
        { secretRef: { name: 'flowplane-secrets' } },
      ]);
      expect(c.env).toContainEqual({ name: 'KAFKA_CLIENT_ID', value: svc });
      const mongo = c.env.find((e: { name: string }) => e.name === 'MONGO_URL').value as string;
      expect(mongo).toMatch(new RegExp(`^mongodb://.+/${svc.replace(/-/g, '_')}\\?`));
      // Every $(VAR) must be defined by the ConfigMap or Secret, or Kubernetes leaves it verbatim.
      const defined = new Set([
        ...Object.keys(get(variant, 'ConfigMap', 'flowplane-config').data),
        ...Object.keys(get(variant, 'Secret', 'flowplane-secrets').stringData),
      ]);
      for (const [, name] of mongo.matchAll(/\$\(([A-Z0-9_]+)\)/g)) expect(defined).toContain(name);
    });

    it('uses the image of the service with the tag of the variant', () => {
      const [c] = get(variant, 'Deployment', svc).spec.template.spec.containers;
      const image = parseImage(c.image);
      expect(image.name).toBe(`flowplane/${svc}`);
      expect(image.tag).toBe({ base: 'latest', dev: 'dev', prod: '0.1.0' }[variant]);
    });
  });

  it('exposes only the gateway through an Ingress, to the gateway Service port', () => {
    const ingresses = byKind(variant, 'Ingress');
    expect(ingresses.map((i) => i.metadata.name)).toEqual(['gateway']);
    const [ing] = ingresses;
    expect(ing.spec.ingressClassName).toBeTruthy();
    const backends = ing.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    expect(backends).toEqual([{ name: 'gateway', port: { name: 'http' } }]);
    expect(get(variant, 'Service', 'gateway').spec.ports.map((p: any) => p.name)).toContain('http');
    // Behind the Ingress the gateway must take the client address from X-Forwarded-For.
    expect(get(variant, 'Deployment', 'gateway').spec.template.spec.containers[0].env).toContainEqual({
      name: 'GATEWAY_TRUST_PROXY',
      value: 'true',
    });
    // Long-lived WebSocket (/ws) and SSE connections must not hit the controller's default 60 s timeout.
    expect(
      Number(ing.metadata.annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']),
    ).toBeGreaterThanOrEqual(3600);
  });
});

describe('k8s overlays', () => {
  it('dev runs one replica of each service with smaller resources and debug logs', () => {
    for (const svc of SERVICE_NAMES) {
      const dev = get('dev', 'Deployment', svc);
      const base = get('base', 'Deployment', svc);
      expect(dev.spec.replicas).toBe(1);
      expect(get('dev', 'HorizontalPodAutoscaler', svc).spec).toMatchObject({
        minReplicas: 1,
        maxReplicas: 2,
      });
      const [dc] = dev.spec.template.spec.containers;
      const [bc] = base.spec.template.spec.containers;
      expect(quantity(dc.resources.requests.cpu)).toBeLessThan(quantity(bc.resources.requests.cpu));
      expect(quantity(dc.resources.requests.memory)).toBeLessThan(quantity(bc.resources.requests.memory));
      expect(dc.imagePullPolicy).toBe('Always');
      expect(dev.spec.template.metadata.labels['app.kubernetes.io/environment']).toBe('dev');
    }
    expect(get('dev', 'ConfigMap', 'flowplane-config').data.LOG_LEVEL).toBe('debug');
    expect(get('dev', 'Ingress', 'gateway').spec.rules[0].host).toBe('flowplane.dev.localhost');
  });

  it('prod runs more replicas, raises the HPA bounds and pins an immutable image tag', () => {
    for (const svc of SERVICE_NAMES) {
      const prod = get('prod', 'Deployment', svc);
      const baseHpa = get('base', 'HorizontalPodAutoscaler', svc).spec;
      const prodHpa = get('prod', 'HorizontalPodAutoscaler', svc).spec;
      expect(prod.spec.replicas).toBeGreaterThanOrEqual(3);
      expect(prod.spec.replicas).toBeGreaterThan(get('base', 'Deployment', svc).spec.replicas);
      expect(prodHpa.minReplicas).toBeGreaterThan(baseHpa.minReplicas);
      expect(prodHpa.maxReplicas).toBeGreaterThan(baseHpa.maxReplicas);
      expect(prodHpa.minReplicas).toBe(prod.spec.replicas);
      const tag = parseImage(prod.spec.template.spec.containers[0].image).tag ?? '';
      expect(tag).toMatch(/^\d+\.\d+\.\d+$/);
      const spread = prod.spec.template.spec.topologySpreadConstraints.map((t: any) => t.topologyKey);
      expect(spread).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
      expect(prod.spec.template.metadata.labels['app.kubernetes.io/environment']).toBe('prod');
    }
    const ing = get('prod', 'Ingress', 'gateway');
    expect(ing.spec.tls).toEqual([{ hosts: [ing.spec.rules[0].host], secretName: 'flowplane-gateway-tls' }]);
  });

  it('prod gives the gateway and flow-runtime more resources, merged into the existing container', () => {
    for (const svc of ['gateway', 'flow-runtime']) {
      const containers = get('prod', 'Deployment', svc).spec.template.spec.containers;
      expect(containers).toHaveLength(1);
      expect(quantity(containers[0].resources.requests.cpu)).toBeGreaterThan(
        quantity(get('base', 'Deployment', svc).spec.template.spec.containers[0].resources.requests.cpu),
      );
      expect(containers[0].readinessProbe.httpGet.path).toBe('/readyz');
    }
  });
});

describe('schema checks', () => {
  // Guards against a vacuous pass: the same checks must reject typical mistakes.
  it('report a misspelt field and a field of an older API version', () => {
    const d = structuredClone(get('base', 'Deployment', 'profiles'));
    d.spec.template.spec.containers[0].readinesProbe = { httpGet: { path: '/readyz', port: 'http' } };
    const ing = structuredClone(get('base', 'Ingress', 'gateway'));
    ing.spec.rules[0].http.paths[0].backend.serviceName = 'gateway';
    expect(unknownFields(d)).toEqual(['.spec.template.spec.containers[0].readinesProbe']);
    expect(unknownFields(ing)).toEqual(['.spec.rules[0].http.paths[0].backend.serviceName']);
  });

  it('reject wrong types and missing required fields', () => {
    const d = structuredClone(get('base', 'Deployment', 'profiles'));
    d.spec.replicas = '2';
    expect(() => validateModel(d)).toThrow(/replicas/);
    const h = structuredClone(get('base', 'HorizontalPodAutoscaler', 'profiles'));
    delete h.spec.maxReplicas;
    expect(() => validateModel(h)).toThrow(/maxReplicas/);
  });
});

describe('k8s/generate.cjs', () => {
  it('matches the committed k8s/base (run `node k8s/generate.cjs` after editing it)', () => {
    const { renderBase } = require(path.join(k8s, 'generate.cjs')) as {
      renderBase: () => Map<string, string>;
    };
    const files = renderBase();
    expect(files.size).toBeGreaterThan(SERVICE_NAMES.length * 5);
    for (const [rel, text] of files) {
      expect({ file: rel, text: readFileSync(path.join(k8s, 'base', rel), 'utf8') }).toEqual({
        file: rel,
        text,
      });
    }
  });

  it('uses the same ports as SERVICE_PORTS', () => {
    const { SERVICES } = require(path.join(k8s, 'generate.cjs')) as {
      SERVICES: { name: ServiceName; port: number }[];
    };
    expect(Object.fromEntries(SERVICES.map((s) => [s.name, s.port]))).toEqual(SERVICE_PORTS);
  });
});
