import { Kafka, logLevel } from 'kafkajs';
import { describeIntegration, kafkaTestServer } from '@flowplane/platform/testing';
import { TopicProvisioningError } from './event-bus.port';
import { KafkaEventBus } from './kafka-event-bus.adapter';

const silent = { warn: () => undefined, error: () => undefined };
const server = kafkaTestServer();
let seq = 0;
const unique = (p: string): string => `provision.${p}.${process.pid}.${Date.now().toString(36)}.${seq++}`;

describeIntegration(`Kafka topic provisioning: Apache Kafka (${server.source})`, server.unavailable, { requiredInCi: true }, () => {
  let brokers: string[];
  let stop: () => Promise<void>;
  const buses: KafkaEventBus[] = [];
  const bus = (options: ConstructorParameters<typeof KafkaEventBus>[0] extends infer O ? Partial<O> : never): KafkaEventBus => {
    const b = new KafkaEventBus({ brokers, clientId: 'provision', logLevel: logLevel.NOTHING, logger: silent, ...options });
    buses.push(b);
    return b;
  };
  const admin = () => new Kafka({ brokers, clientId: 'provision-check', logLevel: logLevel.NOTHING }).admin();

  beforeAll(async () => {
    ({ brokers, stop } = await server.start());
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled(buses.map((b) => b.close()));
    await stop?.();
  });

  it('creates missing topics with the configured partitions and retention, and leaves existing ones alone', async () => {
    const a = unique('a');
    const b = unique('b');
    const p = bus({ topics: { partitions: 3, retentionMs: 3_600_000, overrides: { [b]: { partitions: 2 } } } });
    await expect(p.provision([a, b])).resolves.toEqual({ created: [a, b], existing: [] });
    // Idempotent: a second call (another replica starting) creates nothing and does not fail.
    await expect(p.provision([a, b])).resolves.toEqual({ created: [], existing: [a, b] });

    const check = admin();
    await check.connect();
    try {
      const { topics } = await check.fetchTopicMetadata({ topics: [a, b] });
      const partitions = Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]));
      expect(partitions).toEqual({ [a]: 3, [b]: 2 });
      const configs = await check.describeConfigs({
        resources: [{ type: 2 /* TOPIC */, name: a, configNames: ['retention.ms'] }],
        includeSynonyms: false,
      });
      expect(configs.resources[0].configEntries.find((e) => e.configName === 'retention.ms')?.configValue).toBe('3600000');
    } finally {
      await check.disconnect();
    }
  });

  it('says which topics the broker refused and why', async () => {
    const t = unique('refused');
    const p = bus({ topics: { replicationFactor: 9 } });
    const error = await p.provision([t]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopicProvisioningError);
    expect((error as TopicProvisioningError).topics).toEqual([t]);
    expect((error as Error).message).toMatch(new RegExp(`^Kafka refused to create topic ${t.replace(/\./g, '\\.')}: Replication-factor is invalid \\(replication factor 9 on a cluster of \\d+ brokers?; set KAFKA_TOPIC_REPLICATION_FACTOR\\)$`));
  });

  it('provisions a topic before the first publish and the first subscription use it', async () => {
    const t = unique('first-use');
    const p = bus({ topics: { partitions: 5 } });
    const got: string[] = [];
    const sub = await p.subscribe([t], { groupId: unique('g') }, async (e) => {
      got.push(e.data as string);
    });
    await p.publish(t, 'hello', { key: 'k' });
    const deadline = Date.now() + 15_000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await sub.stop();
    expect(got).toEqual(['hello']);
    const check = admin();
    await check.connect();
    try {
      const { topics } = await check.fetchTopicMetadata({ topics: [t] });
      expect(topics[0].partitions).toHaveLength(5);
    } finally {
      await check.disconnect();
    }
  });
});
