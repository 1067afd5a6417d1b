import { spawnSync } from 'node:child_process';

/**
 * Where a contract suite gets its real server from, in this order:
 * 1. an address in the environment (`TEST_KAFKA_BROKERS`, `TEST_MONGO_URL`, `TEST_QDRANT_URL`;
 *    the older `MONGO_URL` / `VECTORSTORE_URL` are read too), as `npm run engines:up` prints them;
 * 2. a container started through testcontainers, when a Docker engine answers;
 * 3. neither: `unavailable` names what is missing, and `describeIntegration` skips (or, under
 *    `REQUIRE_INTEGRATION=1`, fails) with that one line.
 */
export interface TestServer<T> {
  /** Why the suite cannot run here, or false. Known synchronously, when the suite is declared. */
  readonly unavailable: string | false;
  /** Where the server comes from (for the suite's name). */
  readonly source: 'env' | 'testcontainers' | 'none';
  /** Starts (or just returns) the server; `stop()` stops only what was started here. */
  start(): Promise<T & { stop(): Promise<void> }>;
}

let dockerAnswer: boolean | undefined;

/** True when a Docker engine answers (`docker version` reaches the daemon); asked once per process. */
export function dockerAvailable(): boolean {
  if (dockerAnswer === undefined) {
    if (process.env.TESTCONTAINERS_DISABLED === '1') dockerAnswer = false;
    else {
      const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], {
        stdio: 'ignore',
        timeout: 5000,
      });
      dockerAnswer = !r.error && r.status === 0;
    }
  }
  return dockerAnswer;
}

function envList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const noop = async (): Promise<void> => undefined;

/** A real Kafka for tests: `TEST_KAFKA_BROKERS`, else a KRaft container, else unavailable. */
export function kafkaTestServer(env: NodeJS.ProcessEnv = process.env): TestServer<{ brokers: string[] }> {
  const brokers = envList(env.TEST_KAFKA_BROKERS);
  if (brokers.length) {
    return { unavailable: false, source: 'env', start: async () => ({ brokers, stop: noop }) };
  }
  if (dockerAvailable()) {
    return {
      unavailable: false,
      source: 'testcontainers',
      start: async () => {
        const { KafkaContainer } = await import('@testcontainers/kafka');
        const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
        return {
          brokers: [`${container.getHost()}:${container.getMappedPort(9093)}`],
          stop: async () => {
            await container.stop();
          },
        };
      },
    };
  }
  return {
    unavailable:
      'no Kafka: TEST_KAFKA_BROKERS is not set (npm run engines:up prints it) and no Docker engine answers for testcontainers',
    source: 'none',
    start: () => Promise.reject(new Error('no Kafka for tests')),
  };
}

/**
 * A real MongoDB-wire server for tests: `TEST_MONGO_URL` (or `MONGO_URL`), else a MongoDB replica
 * set in a container (so transactions are covered), else unavailable.
 */
export function mongoTestServer(env: NodeJS.ProcessEnv = process.env): TestServer<{ url: string }> {
  const url = env.TEST_MONGO_URL || env.MONGO_URL;
  if (url) return { unavailable: false, source: 'env', start: async () => ({ url, stop: noop }) };
  if (dockerAvailable()) {
    return {
      unavailable: false,
      source: 'testcontainers',
      start: async () => {
        const { MongoDBContainer } = await import('@testcontainers/mongodb');
        const container = await new MongoDBContainer('mongo:8.0').start();
        return {
          // The container runs a one-member replica set; connect directly to that member.
          url: `${container.getConnectionString()}?directConnection=true`,
          stop: async () => {
            await container.stop();
          },
        };
      },
    };
  }
  return {
    unavailable:
      'no MongoDB-wire server: TEST_MONGO_URL is not set (npm run engines:up prints one) and no Docker engine answers for testcontainers',
    source: 'none',
    start: () => Promise.reject(new Error('no MongoDB for tests')),
  };
}

/** A real Qdrant for tests: `TEST_QDRANT_URL` (or `VECTORSTORE_URL`), else a container, else unavailable. */
export function qdrantTestServer(env: NodeJS.ProcessEnv = process.env): TestServer<{ url: string; apiKey?: string }> {
  const url = env.TEST_QDRANT_URL || env.VECTORSTORE_URL;
  const apiKey = env.TEST_QDRANT_API_KEY || env.VECTORSTORE_API_KEY;
  if (url) return { unavailable: false, source: 'env', start: async () => ({ url, apiKey, stop: noop }) };
  if (dockerAvailable()) {
    return {
      unavailable: false,
      source: 'testcontainers',
      start: async () => {
        // @testcontainers/qdrant exists only for testcontainers 12, whose undici needs Node 22:
        // the generic container does the same on Node 20.
        const { GenericContainer, Wait } = await import('testcontainers');
        const container = await new GenericContainer('qdrant/qdrant:v1.15.5')
          .withExposedPorts(6333)
          .withWaitStrategy(Wait.forHttp('/readyz', 6333))
          .start();
        return {
          url: `http://${container.getHost()}:${container.getMappedPort(6333)}`,
          stop: async () => {
            await container.stop();
          },
        };
      },
    };
  }
  return {
    unavailable:
      'no Qdrant: TEST_QDRANT_URL is not set and no Docker engine answers for testcontainers (no Qdrant server can run on this machine kind)',
    source: 'none',
    start: () => Promise.reject(new Error('no Qdrant for tests')),
  };
}
