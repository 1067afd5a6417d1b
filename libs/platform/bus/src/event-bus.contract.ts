import type { CloudEvent } from '@flowplane/contracts';
import {
  BusClosedError,
  DLQ_HEADERS,
  NonRetriableEventError,
  dlqTopic,
  type ConsumeContext,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './event-bus.port';

/**
 * The ONE contract every EventBus adapter passes (ARCHITECTURE §2). Call it inside a `describe`
 * with a factory creating a fresh bus; the suite closes every bus it created.
 */
export interface EventBusContractOptions {
  /** Longest wait for an expected delivery (memory: short; Kafka: a rejoin takes about one session timeout). */
  deliveryTimeoutMs: number;
  /** How long to watch for a delivery that must NOT happen. */
  quietMs: number;
  /** Jest timeout of each test. */
  testTimeoutMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
let seq = 0;

/** A topic (and group) name no other test, run or adapter uses. */
function unique(prefix: string): string {
  return `contract.${prefix}.${process.pid}.${Date.now().toString(36)}.${(seq++).toString(36)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Registers the EventBus contract tests. */
export function eventBusContract(createBus: () => Promise<EventBus>, options: EventBusContractOptions): void {
  const { deliveryTimeoutMs: T, quietMs, testTimeoutMs } = options;
  let buses: EventBus[] = [];
  const subs: Subscription[] = [];

  async function newBus(): Promise<EventBus> {
    const bus = await createBus();
    buses.push(bus);
    return bus;
  }

  async function subscribe<D>(
    bus: EventBus,
    topics: string[],
    opts: SubscribeOptions,
    handler: (event: CloudEvent<D>, ctx: ConsumeContext) => Promise<void>,
  ): Promise<Subscription> {
    const sub = await bus.subscribe<D>(topics, { retryDelayMs: 20, ...opts }, handler);
    subs.push(sub);
    return sub;
  }

  afterEach(async () => {
    await Promise.allSettled(subs.splice(0).map((s) => s.stop()));
    await Promise.allSettled(buses.map((b) => b.close()));
    buses = [];
  });

  it(
    'delivers a CloudEvents 1.0 envelope whose data went through a JSON round trip',
    async () => {
      const bus = await newBus();
      const topic = unique('envelope');
      const groupId = unique('g');
      const got: Array<{ event: CloudEvent; ctx: ConsumeContext }> = [];
      await subscribe(bus, [topic], { groupId }, async (event, ctx) => {
        got.push({ event, ctx });
      });

      const published = await bus.publish(
        topic,
        { when: new Date(0), nested: { list: [1, 'two', null] }, dropped: undefined, n: 1.5 },
        { key: 'profile-42', headers: { 'x-trace': 'abc' }, entitytype: 'profile', action: 'updated' },
      );
      const explicit = await bus.publish(topic, 'plain string', {
        id: 'fixed-id',
        source: '/services/test',
        time: '2024-01-02T03:04:05.000Z',
      });
      await waitFor('two deliveries', () => got.length === 2, T);

      expect(published.id).toMatch(UUID);
      expect(published).toMatchObject({
        type: topic,
        specversion: '1.0',
        datacontenttype: 'application/json',
        subject: 'profile-42',
        entitytype: 'profile',
        action: 'updated',
      });
      expect(explicit).toMatchObject({
        id: 'fixed-id',
        source: '/services/test',
        time: '2024-01-02T03:04:05.000Z',
      });
      expect(new Date(published.time).toISOString()).toBe(published.time);
      expect(typeof published.source).toBe('string');

      const first = got.find((g) => g.event.id === published.id);
      expect(first).toBeDefined();
      expect(first!.event).toEqual({
        id: published.id,
        source: published.source,
        type: topic,
        time: published.time,
        specversion: '1.0',
        datacontenttype: 'application/json',
        subject: 'profile-42',
        entitytype: 'profile',
        action: 'updated',
        data: { when: '1970-01-01T00:00:00.000Z', nested: { list: [1, 'two', null] }, n: 1.5 },
      });
      expect(Object.keys(first!.event.data as object)).not.toContain('dropped');
      expect(first!.ctx).toMatchObject({
        topic,
        groupId,
        attempt: 1,
        key: 'profile-42',
        headers: { 'x-trace': 'abc' },
      });
      expect(first!.ctx.offset).toMatch(/^\d+$/);

      const second = got.find((g) => g.event.id === 'fixed-id');
      expect(second!.event).toMatchObject({
        source: '/services/test',
        time: '2024-01-02T03:04:05.000Z',
        data: 'plain string',
      });
      expect(second!.event.subject).toBeUndefined();
      expect(second!.ctx.headers).toEqual({});
    },
    testTimeoutMs,
  );

  it(
    'rejects what Kafka could not carry: bad topic names, undefined data, reserved headers',
    async () => {
      const bus = await newBus();
      await expect(bus.publish('bad topic!', { a: 1 })).rejects.toThrow(/topic/);
      await expect(bus.publish(unique('t'), undefined)).rejects.toThrow(/JSON/);
      await expect(bus.publish(unique('t'), { a: 1 }, { headers: { ce_id: 'x' } })).rejects.toThrow(
        /reserved/,
      );
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(bus.publish(unique('t'), cyclic)).rejects.toThrow();
    },
    testTimeoutMs,
  );

  it(
    'fans out: two groups each receive every event once',
    async () => {
      const bus = await newBus();
      const topic = unique('fanout');
      const a: number[] = [];
      const b: number[] = [];
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId: unique('ga') },
        async (e) => void a.push(e.data.n),
      );
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId: unique('gb') },
        async (e) => void b.push(e.data.n),
      );
      await Promise.all(
        Array.from({ length: 20 }, (_, n) => bus.publish(topic, { n }, { key: `k${n % 5}` })),
      );
      await waitFor('both groups to get 20', () => a.length >= 20 && b.length >= 20, T);
      await sleep(quietMs);
      expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
      expect([...b].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    },
    testTimeoutMs,
  );

  it(
    'shares: two members of one group split the events, each delivered once overall',
    async () => {
      const bus = await newBus();
      const topic = unique('share');
      const groupId = unique('g');
      const seen = { a: [] as number[], b: [] as number[] };
      const subA = await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId, fromBeginning: true },
        async (e) => void seen.a.push(e.data.n),
      );
      const subB = await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId, fromBeginning: true },
        async (e) => void seen.b.push(e.data.n),
      );
      const rejoins = () => (subA.rebalances ?? 0) + (subB.rebalances ?? 0);
      const settled = rejoins();
      await Promise.all(Array.from({ length: 40 }, (_, n) => bus.publish(topic, { n }, { key: `key-${n}` })));
      await waitFor('40 deliveries', () => new Set([...seen.a, ...seen.b]).size >= 40, T);
      await sleep(quietMs);
      const all = [...seen.a, ...seen.b].sort((x, y) => x - y);
      // Once overall while the group stays as it was. A rebalance during the batch (a member missing
      // its heartbeats on a loaded machine) redelivers what was not committed yet: at-least-once, so
      // then every event still arrives and only repeats are allowed.
      if (rejoins() === settled) expect(all).toEqual(Array.from({ length: 40 }, (_, n) => n));
      else expect([...new Set(all)]).toEqual(Array.from({ length: 40 }, (_, n) => n));
      expect(seen.a.length).toBeGreaterThan(0);
      expect(seen.b.length).toBeGreaterThan(0);
    },
    testTimeoutMs,
  );

  it(
    'keeps publish order per key, with partitions processed concurrently',
    async () => {
      const bus = await newBus();
      const topic = unique('order');
      const byKey = new Map<string, number[]>();
      let total = 0;
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId: unique('g'), concurrency: 4 },
        async (e, ctx) => {
          // Yield so that concurrently processed partitions really interleave.
          if (e.data.n % 7 === 0) await sleep(1);
          const list = byKey.get(ctx.key!) ?? [];
          list.push(e.data.n);
          byKey.set(ctx.key!, list);
          total++;
        },
      );
      const publishes: Array<Promise<unknown>> = [];
      for (let n = 0; n < 200; n++) publishes.push(bus.publish(topic, { n }, { key: `agg-${n % 5}` }));
      await Promise.all(publishes);
      await waitFor('200 deliveries', () => total >= 200, T);
      expect(byKey.size).toBe(5);
      for (const [key, list] of byKey) {
        const k = Number(key.slice(4));
        expect(list).toEqual(Array.from({ length: 40 }, (_, i) => i * 5 + k));
      }
    },
    testTimeoutMs,
  );

  it(
    'redelivers an event whose handler threw, before later events of its key',
    async () => {
      const bus = await newBus();
      const topic = unique('retry');
      const calls: Array<{ n: number; attempt: number }> = [];
      const done: number[] = [];
      await subscribe<{ n: number }>(bus, [topic], { groupId: unique('g') }, async (e, ctx) => {
        calls.push({ n: e.data.n, attempt: ctx.attempt });
        if (e.data.n === 1 && ctx.attempt === 1) throw new Error('transient');
        done.push(e.data.n);
      });
      for (let n = 0; n < 3; n++) await bus.publish(topic, { n }, { key: 'same' });
      await waitFor('3 successes', () => done.length >= 3, T);
      expect(done).toEqual([0, 1, 2]);
      expect(calls).toEqual([
        { n: 0, attempt: 1 },
        { n: 1, attempt: 1 },
        { n: 1, attempt: 2 },
        { n: 2, attempt: 1 },
      ]);
      const stats = await bus.stats();
      expect(stats.counters.failed).toBeGreaterThanOrEqual(1);
    },
    testTimeoutMs,
  );

  it(
    'parks an event on <topic>.dlq after maxAttempts, with the original envelope and the error, then moves on',
    async () => {
      const bus = await newBus();
      const topic = unique('dlq');
      const groupId = unique('g');
      let badCalls = 0;
      const done: number[] = [];
      const parked: Array<{ event: CloudEvent<{ n: number }>; ctx: ConsumeContext }> = [];
      await subscribe<{ n: number }>(
        bus,
        [dlqTopic(topic)],
        { groupId: unique('dlq-reader'), fromBeginning: true },
        async (event, ctx) => {
          parked.push({ event, ctx });
        },
      );
      await subscribe<{ n: number }>(bus, [topic], { groupId, maxAttempts: 3 }, async (e) => {
        if (e.data.n === 1) {
          badCalls++;
          throw new Error(`boom ${e.data.n}`);
        }
        done.push(e.data.n);
      });
      const sent = [];
      for (let n = 0; n < 3; n++)
        sent.push(await bus.publish(topic, { n }, { key: 'k', headers: { 'x-origin': 'test' } }));
      await waitFor('the DLQ entry and the later event', () => parked.length >= 1 && done.length >= 2, T);
      await sleep(quietMs);
      expect(badCalls).toBe(3);
      expect(done).toEqual([0, 2]);
      expect(parked).toHaveLength(1);
      const { event, ctx } = parked[0];
      expect(event.id).toBe(sent[1].id);
      expect(event.type).toBe(topic);
      expect(event.data).toEqual({ n: 1 });
      expect(ctx.topic).toBe(dlqTopic(topic));
      expect(ctx.key).toBe('k');
      expect(ctx.headers['x-origin']).toBe('test');
      expect(ctx.headers[DLQ_HEADERS.error]).toContain('boom 1');
      expect(ctx.headers[DLQ_HEADERS.attempts]).toBe('3');
      expect(ctx.headers[DLQ_HEADERS.topic]).toBe(topic);
      expect(ctx.headers[DLQ_HEADERS.group]).toBe(groupId);
      expect((await bus.stats()).counters.deadLettered).toBeGreaterThanOrEqual(1);
    },
    testTimeoutMs,
  );

  it(
    'dead-letters a non-retriable failure on the first attempt',
    async () => {
      const bus = await newBus();
      const topic = unique('poison');
      let calls = 0;
      const parked: string[] = [];
      await subscribe(
        bus,
        [dlqTopic(topic)],
        { groupId: unique('dlq-reader'), fromBeginning: true },
        async (_e, ctx) => {
          parked.push(ctx.headers[DLQ_HEADERS.error]);
        },
      );
      await subscribe(bus, [topic], { groupId: unique('g'), maxAttempts: 5 }, async () => {
        calls++;
        throw new NonRetriableEventError('will never parse');
      });
      await bus.publish(topic, { x: 1 });
      await waitFor('the DLQ entry', () => parked.length === 1, T);
      expect(calls).toBe(1);
      expect(parked[0]).toContain('will never parse');
    },
    testTimeoutMs,
  );

  it(
    'starts a new group at the log end unless fromBeginning',
    async () => {
      const bus = await newBus();
      const topic = unique('start');
      await bus.publish(topic, { n: 0 });
      await bus.publish(topic, { n: 1 });
      const early: number[] = [];
      const late: number[] = [];
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId: unique('early'), fromBeginning: true },
        async (e) => void early.push(e.data.n),
      );
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId: unique('late') },
        async (e) => void late.push(e.data.n),
      );
      await bus.publish(topic, { n: 2 });
      await waitFor('deliveries', () => early.length >= 3 && late.length >= 1, T);
      await sleep(quietMs);
      expect([...early].sort()).toEqual([0, 1, 2]);
      expect(late).toEqual([2]);
    },
    testTimeoutMs,
  );

  it(
    'commits only what succeeded: a group restarted mid-stream neither repeats nor loses events',
    async () => {
      const bus = await newBus();
      const topic = unique('restart');
      const groupId = unique('g');
      const first: number[] = [];
      let stopping: Promise<void> | undefined;
      const sub = await subscribe<{ n: number }>(bus, [topic], { groupId }, async (e) => {
        if (stopping) throw new Error('handler called after stop() was requested');
        first.push(e.data.n);
        // Stop from inside the stream; this handler still finishes and must be committed.
        if (first.length === 5) stopping = sub.stop();
        await sleep(2);
      });
      await Promise.all(
        Array.from({ length: 30 }, (_, n) => bus.publish(topic, { n }, { key: `k${n % 3}` })),
      );
      await waitFor('stop to be requested', () => stopping !== undefined, T);
      await stopping;
      expect(first).toHaveLength(5);

      const second: number[] = [];
      await subscribe<{ n: number }>(bus, [topic], { groupId }, async (e) => void second.push(e.data.n));
      await waitFor('the rest of the stream', () => first.length + second.length >= 30, T);
      await sleep(quietMs);
      const all = [...first, ...second].sort((x, y) => x - y);
      expect(all).toEqual(Array.from({ length: 30 }, (_, n) => n));
      expect(second.filter((n) => first.includes(n))).toEqual([]);
    },
    testTimeoutMs,
  );

  it(
    'stop() lets the in-flight handler finish and commits it',
    async () => {
      const bus = await newBus();
      const topic = unique('inflight');
      const groupId = unique('g');
      const entered = gate();
      const release = gate();
      const first: number[] = [];
      const sub = await subscribe<{ n: number }>(bus, [topic], { groupId }, async (e) => {
        entered.open();
        await release.promise;
        first.push(e.data.n);
      });
      await bus.publish(topic, { n: 0 }, { key: 'k' });
      await entered.promise;
      let stopped = false;
      const stopping = sub.stop().then(() => {
        stopped = true;
      });
      await sleep(100);
      expect(stopped).toBe(false);
      release.open();
      await stopping;
      expect(first).toEqual([0]);

      await bus.publish(topic, { n: 1 }, { key: 'k' });
      const second: number[] = [];
      await subscribe<{ n: number }>(bus, [topic], { groupId }, async (e) => void second.push(e.data.n));
      await waitFor('the next event', () => second.length >= 1, T);
      await sleep(quietMs);
      expect(second).toEqual([1]);
    },
    testTimeoutMs,
  );

  it(
    'stop() during a retry backoff gives the event up uncommitted: the group gets it again',
    async () => {
      const bus = await newBus();
      const topic = unique('backoff');
      const groupId = unique('g');
      const failed = gate();
      const ok: number[] = [];
      const sub = await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId, retryDelayMs: 60_000 },
        async (e) => {
          if (e.data.n === 1) {
            failed.open();
            throw new Error('not yet');
          }
          ok.push(e.data.n);
        },
      );
      await bus.publish(topic, { n: 0 }, { key: 'k' });
      await bus.publish(topic, { n: 1 }, { key: 'k' });
      await failed.promise;
      const started = Date.now();
      await sub.stop();
      // It must not sit out the 60 s backoff.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(ok).toEqual([0]);

      const again: Array<{ n: number; attempt: number }> = [];
      await subscribe<{ n: number }>(
        bus,
        [topic],
        { groupId },
        async (e, ctx) => void again.push({ n: e.data.n, attempt: ctx.attempt }),
      );
      await waitFor('the redelivery', () => again.length >= 1, T);
      await sleep(quietMs);
      expect(again).toEqual([{ n: 1, attempt: 1 }]);
    },
    testTimeoutMs,
  );

  it(
    'reports consumer lag per group and topic',
    async () => {
      const bus = await newBus();
      const topic = unique('lag');
      const groupId = unique('g');
      const entered = gate();
      const release = gate();
      let processed = 0;
      await subscribe(bus, [topic], { groupId }, async () => {
        entered.open();
        await release.promise;
        processed++;
      });
      for (let n = 0; n < 5; n++) await bus.publish(topic, { n }, { key: 'k' });
      await entered.promise;
      const lagOf = async (): Promise<number | undefined> =>
        (await bus.stats()).consumers.find((c) => c.groupId === groupId && c.topic === topic)?.lag;
      await waitFor('lag to show the backlog', async () => ((await lagOf()) ?? 0) >= 4, T);
      const row = (await bus.stats()).consumers.find((c) => c.groupId === groupId && c.topic === topic)!;
      expect(row.partitions.reduce((s, p) => s + p.lag, 0)).toBe(row.lag);
      expect(row.partitions.some((p) => p.end >= 5)).toBe(true);
      release.open();
      await waitFor('processing', () => processed === 5, T);
      await waitFor('lag to drain', async () => (await lagOf()) === 0, T);
    },
    testTimeoutMs,
  );

  it(
    'answers ping while open and rejects everything after close',
    async () => {
      const bus = await newBus();
      await expect(bus.ping()).resolves.toBeUndefined();
      await bus.close();
      await expect(bus.ping()).rejects.toThrow();
      await expect(bus.publish(unique('t'), { a: 1 })).rejects.toBeInstanceOf(BusClosedError);
      await expect(
        bus.subscribe([unique('t')], { groupId: unique('g') }, async () => undefined),
      ).rejects.toBeInstanceOf(BusClosedError);
    },
    testTimeoutMs,
  );
}
