import { Kafka, logLevel } from 'kafkajs';
import {
  describeIntegration,
  kafkaMockUnavailable,
  startKafkaMock,
  type KafkaMock,
} from '@flowplane/platform/testing';
import type { CloudEvent } from '@flowplane/contracts';
import { DLQ_HEADERS, dlqTopic, type ConsumeContext } from './event-bus.port';
import { KafkaEventBus, type KafkaEventBusOptions } from './kafka-event-bus.adapter';

const silent = { warn: () => undefined, error: () => undefined };

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('KafkaEventBus without a broker', () => {
  it('fails ping with the reason instead of hanging', async () => {
    const bus = new KafkaEventBus({
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 200,
      retry: { retries: 0 },
      pingTimeoutMs: 2000,
      logLevel: logLevel.NOTHING,
      logger: silent,
    });
    const started = Date.now();
    await expect(bus.ping()).rejects.toThrow(/Kafka unavailable/);
    expect(Date.now() - started).toBeLessThan(5000);
    await bus.close();
  });
});

describeIntegration(
  'KafkaEventBus on the mock broker',
  kafkaMockUnavailable(),
  { requiredInCi: true },
  () => {
    let mock: KafkaMock;
    const buses: KafkaEventBus[] = [];
    const options = (): KafkaEventBusOptions => ({
      brokers: mock.brokers,
      sessionTimeout: 6000,
      heartbeatInterval: 300,
      maxWaitTimeInMs: 50,
      logLevel: logLevel.NOTHING,
      logger: silent,
    });
    const newBus = (extra: Partial<KafkaEventBusOptions> = {}): KafkaEventBus => {
      const bus = new KafkaEventBus({ ...options(), ...extra });
      buses.push(bus);
      return bus;
    };
    const raw = (): Kafka => new Kafka({ brokers: mock.brokers, logLevel: logLevel.NOTHING });

    beforeAll(async () => {
      mock = await startKafkaMock({ topics: [{ name: 'pre.created', partitions: 2 }, 'pre.default'] });
    });

    afterAll(async () => {
      await Promise.allSettled(buses.map((b) => b.close()));
      await mock?.stop();
    });

    it('pre-creates the topics it was started with', async () => {
      const admin = raw().admin();
      await admin.connect();
      const { topics } = await admin.fetchTopicMetadata({ topics: ['pre.created', 'pre.default'] });
      await admin.disconnect();
      expect(topics.find((t) => t.name === 'pre.created')?.partitions).toHaveLength(2);
      expect(topics.find((t) => t.name === 'pre.default')?.partitions).toHaveLength(4);
    });

    it('writes CloudEvents in binary content mode: ce_* headers, JSON value, key = subject', async () => {
      const bus = newBus({ idempotent: true });
      const topic = `binary.${Date.now()}`;
      const sent = await bus.publish(
        topic,
        { a: 1 },
        { key: 'agg-1', entitytype: 'profile', action: 'created', headers: { 'x-trace': 't1' } },
      );
      const consumer = raw().consumer({ groupId: `raw-${Date.now()}`, maxWaitTimeInMs: 50 });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const got: Array<{ key: string; value: string; headers: Record<string, string> }> = [];
      await consumer.run({
        eachMessage: async ({ message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
          got.push({ key: String(message.key), value: String(message.value), headers });
        },
      });
      await waitFor('the raw message', () => got.length === 1);
      await consumer.disconnect();
      expect(got[0].key).toBe('agg-1');
      expect(JSON.parse(got[0].value)).toEqual({ a: 1 });
      expect(got[0].headers).toMatchObject({
        ce_id: sent.id,
        ce_source: sent.source,
        ce_type: topic,
        ce_time: sent.time,
        ce_specversion: '1.0',
        ce_subject: 'agg-1',
        ce_entitytype: 'profile',
        ce_action: 'created',
        'content-type': 'application/json',
        'x-trace': 't1',
      });
    });

    it('gives events from plain Kafka producers an envelope, and dead-letters values that are not JSON', async () => {
      const bus = newBus();
      const topic = `foreign.${Date.now()}`;
      const got: CloudEvent[] = [];
      const parked: Array<{ data: unknown; ctx: ConsumeContext }> = [];
      let handlerCalls = 0;
      await bus.subscribe(
        [dlqTopic(topic)],
        { groupId: `dlq-${Date.now()}`, fromBeginning: true },
        async (e, ctx) => void parked.push({ data: e.data, ctx }),
      );
      await bus.subscribe([topic], { groupId: `g-${Date.now()}` }, async (event) => {
        handlerCalls++;
        got.push(event);
      });
      const producer = raw().producer();
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { key: 'k', value: 'not json {' },
          { key: 'k', value: JSON.stringify({ plain: true }) },
        ],
      });
      await producer.disconnect();
      await waitFor('the plain event and the parked one', () => got.length === 1 && parked.length === 1);
      expect(handlerCalls).toBe(1);
      expect(got[0]).toMatchObject({ type: topic, specversion: '1.0', subject: 'k', data: { plain: true } });
      expect(typeof got[0].id).toBe('string');
      expect(parked[0].ctx.headers[DLQ_HEADERS.error]).toMatch(/undecodable/);
      // The DLQ reader sees the raw value it could not have parsed either.
      expect(parked[0].data).toBe('not json {');
    });

    it('counts the rebalances of a member: none after its first join, one each time its group re-forms', async () => {
      const topic = `rebalance.${Date.now()}`;
      const groupId = `g-${Date.now()}`;
      const first = await newBus().subscribe([topic], { groupId }, async () => undefined);
      expect(first.rebalances).toBe(0);
      // The second member joining makes the first one join again.
      const second = await newBus().subscribe([topic], { groupId }, async () => undefined);
      expect(second.rebalances).toBe(0);
      await waitFor('the first member to rejoin', () => (first.rebalances ?? 0) >= 1, 20_000);
      const before = first.rebalances!;
      // ... and so does the second one leaving.
      await second.stop();
      await waitFor('the first member to rejoin again', () => first.rebalances! > before, 20_000);
      expect(second.rebalances).toBe(0);
    }, 60_000);

    it('commits where every partition starts before subscribe() resolves, so a member that stalls leaves nothing for the next owner to skip', async () => {
      const topic = `positioned.${Date.now()}`;
      const groupId = `g-positioned-${Date.now()}`;
      const admin = raw().admin();
      await admin.connect();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seen = new Set<number>();
      try {
        // A slow fetch loop: a start position left for it to commit later would still be missing.
        await newBus({ maxWaitTimeInMs: 1000 }).subscribe<{ n: number }>([topic], { groupId }, async () => gate);
        const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
        expect(committed.partitions.map((p) => Number(p.offset) >= 0)).toEqual([true, true, true, true]);
        // A second member joins; the first one stalls on its first event, stops heartbeating and is
        // dropped. Its partitions move to the second member, which must run every event published
        // since, starting from the committed start rather than from a later log end.
        await newBus().subscribe<{ n: number }>([topic], { groupId }, async (e) => void seen.add(e.data.n));
        const publisher = newBus();
        for (let n = 0; n < 24; n++) await publisher.publish(topic, { n }, { key: `k${n}` });
        await waitFor('every event to reach the member left', () => seen.size === 24, 45_000);
      } finally {
        release();
        await admin.disconnect();
      }
      expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, n) => n));
    }, 90_000);
  },
);
