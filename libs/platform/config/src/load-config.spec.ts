import { AuthEnv, BusEnv, HttpEnv, KafkaEnv, MongoEnv, StoreEnv } from './env-fragments';
import { ConfigValidationError, loadConfig, redactConfig } from './load-config';

const fragments = [HttpEnv, AuthEnv, BusEnv, KafkaEnv, StoreEnv, MongoEnv] as const;
const secret = 'a-development-secret-0123456789';

describe('loadConfig', () => {
  it('applies defaults and converts types', () => {
    const cfg = loadConfig(fragments, { AUTH_JWT_SECRET: secret, PORT: '9090' });
    expect(cfg.PORT).toBe(9090);
    expect(cfg.BUS).toBe('memory');
    expect(cfg.STORE).toBe('embedded');
    expect(cfg.HTTP_BODY_LIMIT).toBe('1mb');
  });

  it('keeps only declared variables', () => {
    const cfg = loadConfig(fragments, { AUTH_JWT_SECRET: secret, HOME: '/root' }) as unknown as Record<string, unknown>;
    expect(cfg.HOME).toBeUndefined();
  });

  it('lists every invalid variable at once', () => {
    let err: unknown;
    try {
      loadConfig(fragments, { PORT: 'abc', BUS: 'rabbit', STORE: 'mongo', HTTP_BODY_LIMIT: 'lots' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigValidationError);
    const vars = (err as ConfigValidationError).problems.map((p) => p.variable).sort();
    expect(vars).toEqual(['AUTH_JWT_SECRET', 'BUS', 'HTTP_BODY_LIMIT', 'MONGO_URL', 'PORT']);
    expect((err as Error).message).toContain('MONGO_URL must be a mongodb://');
  });

  it('requires brokers only when the Kafka bus is selected', () => {
    expect(() => loadConfig(fragments, { AUTH_JWT_SECRET: secret })).not.toThrow();
    expect(() => loadConfig(fragments, { AUTH_JWT_SECRET: secret, BUS: 'kafka' })).toThrow(/KAFKA_BROKERS/);
    const cfg = loadConfig(fragments, { AUTH_JWT_SECRET: secret, BUS: 'kafka', KAFKA_BROKERS: 'a:9092, b:9093' });
    expect(cfg.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
  });

  it('reads how Kafka topics are created, and names a malformed override', () => {
    const base = { AUTH_JWT_SECRET: secret, BUS: 'kafka', KAFKA_BROKERS: 'a:9092' };
    const defaults = loadConfig(fragments, base);
    expect([defaults.KAFKA_PROVISION_TOPICS, defaults.KAFKA_TOPIC_PARTITIONS, defaults.KAFKA_TOPIC_REPLICATION_FACTOR]).toEqual([true, 6, undefined]);
    const cfg = loadConfig(fragments, {
      ...base,
      KAFKA_TOPIC_PARTITIONS: '12',
      KAFKA_TOPIC_RETENTION_MS: '86400000',
      KAFKA_TOPIC_OVERRIDES: '{"assistant.handoff_requested":{"partitions":3,"retentionMs":604800000}}',
    });
    expect(cfg.KAFKA_TOPIC_PARTITIONS).toBe(12);
    expect(cfg.KAFKA_TOPIC_RETENTION_MS).toBe(86_400_000);
    expect(cfg.KAFKA_TOPIC_OVERRIDES).toEqual({ 'assistant.handoff_requested': { partitions: 3, retentionMs: 604_800_000 } });
    for (const bad of ['{not json', '[1]', '{"t":{"partitions":0}}', '{"t":{"partition":3}}']) {
      expect(() => loadConfig(fragments, { ...base, KAFKA_TOPIC_OVERRIDES: bad })).toThrow(/KAFKA_TOPIC_OVERRIDES must be a JSON object/);
    }
  });

  it('never echoes a secret and masks it for display', () => {
    const cfg = loadConfig(fragments, { AUTH_JWT_SECRET: secret });
    expect(redactConfig(cfg, fragments).AUTH_JWT_SECRET).toBe('********');
    try {
      loadConfig(fragments, { AUTH_JWT_SECRET: 'short-secret' });
      throw new Error('expected a failure');
    } catch (e) {
      expect((e as Error).message).toContain('AUTH_JWT_SECRET must be at least 16 characters');
      expect((e as Error).message).not.toContain('short-secret');
    }
  });
});
