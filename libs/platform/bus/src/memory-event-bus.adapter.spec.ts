import { MemoryEventBus } from './memory-event-bus.adapter';
import { createEventBus, eventBusOptionsFromEnv } from './event-bus.factory';
import { KafkaEventBus } from './kafka-event-bus.adapter';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('MemoryEventBus', () => {
  const warnings: string[] = [];
  const logger = { warn: (m: string) => void warnings.push(m), error: (m: string) => void warnings.push(m) };
  let bus: MemoryEventBus;

  beforeEach(() => {
    warnings.length = 0;
  });

  afterEach(async () => {
    await bus.close();
  });

  it('never delivers inside publish: not during the call, not in the same microtask run', async () => {
    bus = new MemoryEventBus({ logger });
    let calls = 0;
    await bus.subscribe(['t.async'], { groupId: 'g' }, async () => void calls++);
    const pending = bus.publish('t.async', { a: 1 });
    expect(calls).toBe(0);
    await pending;
    await Promise.resolve();
    expect(calls).toBe(0);
    await waitFor('delivery', () => calls === 1);
  });

  it('gives each consumer its own copy of the payload', async () => {
    bus = new MemoryEventBus({ logger });
    const data = { list: [1] };
    const seen: unknown[] = [];
    await bus.subscribe<{ list: number[] }>(['t.copy'], { groupId: 'a' }, async (e) => {
      e.data.list.push(99);
      seen.push(e.data);
    });
    await bus.subscribe<{ list: number[] }>(
      ['t.copy'],
      { groupId: 'b' },
      async (e) => void seen.push(e.data),
    );
    await bus.publish('t.copy', data);
    data.list.push(2);
    await waitFor('both groups', () => seen.length === 2);
    expect(seen).toContainEqual({ list: [1, 99] });
    expect(seen).toContainEqual({ list: [1] });
  });

  it('routes a key to one partition and spreads keyless events round robin', async () => {
    bus = new MemoryEventBus({ logger, partitions: 4, topicPartitions: { 't.wide': 8 } });
    const partitionsByKey = new Map<string, Set<number>>();
    const keyless = new Set<number>();
    await bus.subscribe(['t.route'], { groupId: 'g' }, async (_e, ctx) => {
      if (ctx.key === undefined) keyless.add(ctx.partition);
      else partitionsByKey.set(ctx.key, (partitionsByKey.get(ctx.key) ?? new Set()).add(ctx.partition));
    });
    for (let i = 0; i < 40; i++) await bus.publish('t.route', { i }, { key: `k${i % 10}` });
    for (let i = 0; i < 8; i++) await bus.publish('t.route', { i });
    await bus.publish('t.wide', {});
    await waitFor('all', () => [...partitionsByKey.values()].length === 10 && keyless.size === 4);
    for (const set of partitionsByKey.values()) expect(set.size).toBe(1);
    expect(new Set([...partitionsByKey.values()].map((s) => [...s][0])).size).toBeGreaterThan(1);
    expect(bus.retained('t.wide')).toHaveLength(8);
  });

  it('rebalances: a member that leaves hands its partitions to the others, from the committed offsets', async () => {
    bus = new MemoryEventBus({ logger });
    const a: number[] = [];
    const b: number[] = [];
    const subA = await bus.subscribe<{ n: number }>(
      ['t.rebalance'],
      { groupId: 'g' },
      async (e) => void a.push(e.data.n),
    );
    await bus.subscribe<{ n: number }>(['t.rebalance'], { groupId: 'g' }, async (e) => void b.push(e.data.n));
    for (let n = 0; n < 20; n++) await bus.publish('t.rebalance', { n }, { key: `k${n}` });
    await waitFor('first 20', () => a.length + b.length === 20);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    await subA.stop();
    for (let n = 20; n < 40; n++) await bus.publish('t.rebalance', { n }, { key: `k${n}` });
    await waitFor('next 20 on the remaining member', () => a.length + b.length === 40);
    expect(b.filter((n) => n >= 20)).toHaveLength(20);
  });

  it('limits a member to `concurrency` partitions at a time', async () => {
    bus = new MemoryEventBus({ logger });
    let active = 0;
    let peak = 0;
    let done = 0;
    await bus.subscribe(['t.conc'], { groupId: 'g', concurrency: 2 }, async () => {
      active++;
      peak = Math.max(peak, active);
      await sleep(2);
      active--;
      done++;
    });
    for (let n = 0; n < 40; n++) await bus.publish('t.conc', { n }, { key: `k${n}` });
    await waitFor('all', () => done === 40);
    expect(peak).toBe(2);
  });

  it('drops log segments every group has committed past', async () => {
    bus = new MemoryEventBus({ logger, partitions: 1, segmentSize: 100 });
    let done = 0;
    await bus.subscribe(['t.trim'], { groupId: 'g' }, async () => void done++);
    for (let n = 0; n < 1000; n++) void bus.publish('t.trim', { n });
    await waitFor('consumption', () => done === 1000);
    await sleep(10);
    const [p] = bus.retained('t.trim');
    expect(p.end).toBe(1000);
    expect(p.end - p.start).toBeLessThanOrEqual(100);
  });

  it('keeps what a stopped group has not read, up to maxMessagesPerPartition, then skips it ahead with a warning', async () => {
    bus = new MemoryEventBus({ logger, partitions: 1, segmentSize: 100, maxMessagesPerPartition: 500 });
    const seen: number[] = [];
    const sub = await bus.subscribe<{ n: number }>(
      ['t.cap'],
      { groupId: 'lagging' },
      async (e) => void seen.push(e.data.n),
    );
    await sub.stop();
    for (let n = 0; n < 300; n++) await bus.publish('t.cap', { n });
    expect(bus.retained('t.cap')[0]).toEqual({ partition: 0, start: 0, end: 300 });
    for (let n = 300; n < 2000; n++) await bus.publish('t.cap', { n });
    const [p] = bus.retained('t.cap');
    expect(p.end - p.start).toBeLessThanOrEqual(600);
    expect(p.end - p.start).toBeGreaterThanOrEqual(500);
    expect(warnings.some((w) => /retention dropped/.test(w))).toBe(true);

    await bus.subscribe<{ n: number }>(
      ['t.cap'],
      { groupId: 'lagging' },
      async (e) => void seen.push(e.data.n),
    );
    await waitFor('the retained tail', () => seen.length === p.end - p.start);
    expect(seen[0]).toBe(p.start);
    expect(seen[seen.length - 1]).toBe(1999);
  });

  it('bounds a topic nobody reads', async () => {
    bus = new MemoryEventBus({ logger, partitions: 2, segmentSize: 64, maxMessagesPerPartition: 256 });
    for (let n = 0; n < 10_000; n++) void bus.publish('t.unread', { n });
    for (const p of bus.retained('t.unread')) expect(p.end - p.start).toBeLessThanOrEqual(256 + 64);
  });
});

describe('createEventBus', () => {
  it('creates the adapter BUS names, with common options applied', async () => {
    const memory = createEventBus({
      bus: 'memory',
      maxAttempts: 2,
      source: '/services/x',
      memory: { partitions: 2 },
    });
    expect(memory).toBeInstanceOf(MemoryEventBus);
    expect((await memory.publish('t.f', {})).source).toBe('/services/x');
    expect((memory as MemoryEventBus).retained('t.f')).toHaveLength(2);
    await memory.close();
    const kafka = createEventBus({ bus: 'kafka', kafka: { brokers: ['127.0.0.1:1'] } });
    expect(kafka).toBeInstanceOf(KafkaEventBus);
    await kafka.close();
    expect(() => createEventBus({ bus: 'kafka' })).toThrow(/brokers/);
    expect(() => createEventBus({ bus: 'nats' as 'memory' })).toThrow(/unknown bus/);
  });

  it('reads BUS, KAFKA_BROKERS, KAFKA_CLIENT_ID and KAFKA_IDEMPOTENT', () => {
    expect(eventBusOptionsFromEnv({})).toEqual({ bus: 'memory' });
    expect(
      eventBusOptionsFromEnv(
        { BUS: 'kafka', KAFKA_BROKERS: 'a:9092, b:9092', KAFKA_IDEMPOTENT: 'true' },
        { clientId: 'svc' },
      ),
    ).toEqual({
      bus: 'kafka',
      kafka: { brokers: ['a:9092', 'b:9092'], clientId: 'svc', idempotent: true },
    });
    expect(() => eventBusOptionsFromEnv({ BUS: 'kafka' })).toThrow(/KAFKA_BROKERS/);
    expect(() => eventBusOptionsFromEnv({ BUS: 'rabbit' })).toThrow(/memory or kafka/);
  });
});
