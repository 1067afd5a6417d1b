import type { CloudEvent } from '@flowplane/contracts';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import type { EventBus } from './event-bus.port';
import { MemoryEventBus } from './memory-event-bus.adapter';
import { Outbox } from './outbox';

const silent = { warn: () => undefined, error: () => undefined };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Delegates to a real bus, failing the next `failures` publishes (before or after the bus accepted them). */
function flakyBus(
  inner: EventBus,
  mode: 'reject' | 'accept-then-crash',
  failures: number,
): EventBus & { calls: number } {
  const bus = Object.create(inner) as EventBus & { calls: number };
  bus.calls = 0;
  bus.publish = async (topic, data, options) => {
    bus.calls++;
    if (failures > 0) {
      failures--;
      if (mode === 'reject') throw new Error('broker unavailable');
      await inner.publish(topic, data, options);
      throw new Error('process died right after the broker acknowledged');
    }
    return inner.publish(topic, data, options);
  };
  return bus;
}

describe('Outbox', () => {
  let store: Store;
  let bus: MemoryEventBus;
  let received: CloudEvent[];
  const relays: Outbox[] = [];

  function outbox(b: EventBus = bus, options: ConstructorParameters<typeof Outbox>[2] = {}): Outbox {
    const o = new Outbox(store, b, { pollIntervalMs: 20, leaseMs: 200, logger: silent, ...options });
    relays.push(o);
    return o;
  }

  beforeEach(async () => {
    store = createMemoryStore();
    bus = new MemoryEventBus({ logger: silent });
    received = [];
    await bus.subscribe(['profiles.updated'], { groupId: 'observer' }, async (event) => {
      received.push(event);
    });
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await bus.close();
    await store.close();
  });

  it('publishes an event written in a committed transaction, with the envelope enqueue returned', async () => {
    const o = outbox();
    o.start();
    const profiles = store.collection('profiles');
    const envelope = await o.withTransaction(async (session) => {
      await profiles.insertOne({ _id: 'p1', name: 'Ada' }, { session });
      return o.enqueue(
        session,
        'profiles.updated',
        { id: 'p1', at: new Date(0) },
        { key: 'p1', entitytype: 'profile', action: 'updated' },
      );
    });
    await waitFor('the event', () => received.length === 1);
    expect(received[0]).toMatchObject({
      id: envelope.id,
      time: envelope.time,
      source: envelope.source,
      subject: 'p1',
      entitytype: 'profile',
      action: 'updated',
      data: { id: 'p1', at: '1970-01-01T00:00:00.000Z' },
    });
    expect(await profiles.findOne({ _id: 'p1' })).toMatchObject({ name: 'Ada' });
    await waitFor('the outbox to empty', async () => (await o.pending()) === 0);
  });

  it('publishes nothing when the transaction rolls back', async () => {
    const o = outbox();
    o.start();
    await expect(
      o.withTransaction(async (session) => {
        await o.enqueue(session, 'profiles.updated', { id: 'p1' });
        throw new Error('validation failed');
      }),
    ).rejects.toThrow('validation failed');
    await sleep(100);
    expect(received).toEqual([]);
    expect(await o.pending()).toBe(0);
  });

  it('loses nothing when the process dies between the commit and the publish: the next relay publishes it once', async () => {
    // The first process commits and "dies" before any relay ran.
    const dead = new Outbox(store, bus, { logger: silent });
    const envelope = await store.withTransaction((session) =>
      dead.enqueue(session, 'profiles.updated', { id: 'p9' }, { key: 'p9' }),
    );
    await sleep(50);
    expect(received).toEqual([]);

    const next = outbox();
    next.start();
    await waitFor('the event', () => received.length >= 1);
    await sleep(100);
    expect(received.map((e) => e.id)).toEqual([envelope.id]);
    expect(received[0].time).toBe(envelope.time);
    expect(await next.pending()).toBe(0);
  });

  it('republishes with the same envelope id when it dies after the publish but before clearing the entry', async () => {
    const crashing = flakyBus(bus, 'accept-then-crash', 1);
    const o = outbox(crashing);
    o.start();
    const envelope = await o.withTransaction((session) =>
      o.enqueue(session, 'profiles.updated', { id: 'p2' }, { key: 'p2' }),
    );
    await waitFor('two deliveries', () => received.length >= 2);
    // At-least-once: a duplicate, but one a consumer can drop by id.
    expect(received.map((e) => e.id)).toEqual([envelope.id, envelope.id]);
    expect(new Set(received.map((e) => e.id)).size).toBe(1);
    await waitFor('the outbox to empty', async () => (await o.pending()) === 0);
  });

  it('keeps entries while the bus is down and publishes them in order once it is back', async () => {
    const down = flakyBus(bus, 'reject', 3);
    const o = outbox(down);
    o.start();
    for (let n = 0; n < 10; n++) {
      await o.withTransaction((session) => o.enqueue(session, 'profiles.updated', { n }, { key: 'same' }));
    }
    await waitFor('all ten', () => received.length >= 10, 5000);
    expect(received.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(down.calls).toBeGreaterThan(10);
    await waitFor('the outbox to empty', async () => (await o.pending()) === 0);
  });

  it('records the failure on the entry while the bus rejects it', async () => {
    const down = flakyBus(bus, 'reject', 1_000);
    const o = outbox(down);
    await store.withTransaction((session) => o.enqueue(session, 'profiles.updated', { id: 'p3' }));
    await expect(o.flush()).rejects.toThrow(/broker unavailable/);
    const [entry] = await store.collection('outbox').find({});
    expect(entry).toMatchObject({
      topic: 'profiles.updated',
      attempts: 1,
      lastError: expect.stringContaining('broker unavailable'),
    });
  });

  it('lets one relay per store publish at a time, and another take over when it stops', async () => {
    const a = outbox(bus, { relayId: 'a', leaseMs: 60_000 });
    const b = outbox(bus, { relayId: 'b', leaseMs: 60_000 });
    a.start();
    await sleep(30);
    b.start();
    for (let n = 0; n < 20; n++) {
      await store.withTransaction((session) =>
        a.enqueue(session, 'profiles.updated', { n }, { key: `k${n % 3}` }),
      );
      a.kick();
      b.kick();
    }
    await waitFor('twenty deliveries', () => received.length >= 20);
    await sleep(100);
    expect(received).toHaveLength(20);
    expect(await b.flush()).toBe(0);

    await a.stop();
    await store.withTransaction((session) => b.enqueue(session, 'profiles.updated', { n: 20 }));
    b.kick();
    await waitFor('the relay that took over', () => received.length >= 21);
    expect((received[20].data as { n: number }).n).toBe(20);
  });
});
