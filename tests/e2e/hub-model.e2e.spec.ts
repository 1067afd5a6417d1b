import fc from 'fast-check';
import { hubDefinition } from '@flowplane/hub';
import { type RunningService, startService } from '@flowplane/platform/service';
import { call, metricsAuth, TEST_SECRET, token } from '../support/http';
import { HubClient } from './hub-clients';

/**
 * Issue 7, model-based: random sequences of join, leave, broadcast, stall (stop reading) and resume
 * against a booted hub with real `ws` clients. After each sequence every client that was not
 * evicted has received exactly the broadcasts sent to its rooms while it was a member, once each and
 * in order; an evicted client got a prefix of them. Eviction is legitimate only for a client that
 * stalled or was sent a burst of large messages (three 900 KiB messages outrun a reader that is slow
 * for a moment, as on a loaded machine, because the queue holds 1 MiB); a client that only ever got
 * small messages while reading is never evicted.
 */

const CLIENTS = 4;
const ROOMS = ['r0', 'r1'];
/**
 * Large messages make a stalled client overflow within a run: loopback kernel buffers take about
 * 4-5 MB, then the 1 MiB byte cap of the queue holds one of these.
 */
const LARGE = 'L'.repeat(900 * 1024);
const BURST = 8;

interface Model {
  members: Array<Set<string>>;
  stalled: boolean[];
  /** Clients whose queue could legitimately overflow: they stalled, or were sent a large burst. */
  mayBeEvicted: boolean[];
  /** Broadcast ids each client should get, in order. */
  expected: number[][];
  nextId: number;
}

interface Real {
  hub: RunningService;
  bearer: string;
  prefix: string;
  clients: HubClient[];
  /** Acks (subscribed/unsubscribed) each client has been sent and waits for. */
  acks: number[];
  /** Clients seen closed. */
  dead: boolean[];
}

/** The hub's slow-consumer evictions so far (every reason), from /metrics. */
async function evictionCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: await metricsAuth() })).text();
  let n = 0;
  for (const m of text.matchAll(/^hub_slow_consumer_evictions_total\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

const acksOf = (c: HubClient) => c.of('subscribed').length + c.of('unsubscribed').length;

/**
 * Sends a subscribe or unsubscribe frame and waits for its ack. Returns false (and sends nothing)
 * for a client already closed, or when the client closed before the ack came.
 */
async function roomAction(r: Real, client: number, action: 'subscribe' | 'unsubscribe', room: string): Promise<boolean> {
  const c = r.clients[client];
  if (r.dead[client] || c.closed) {
    r.dead[client] = true;
    return false;
  }
  c.send({ action, room: `${r.prefix}${room}` });
  r.acks[client]++;
  await c.until(() => acksOf(c) >= r.acks[client] || c.closed !== undefined, 5000, `${action}d ack`);
  return !c.closed;
}

class Join implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly client: number,
    readonly room: string,
  ) {}
  check = (m: Readonly<Model>) => !m.stalled[this.client];
  async run(m: Model, r: Real): Promise<void> {
    if (await roomAction(r, this.client, 'subscribe', this.room)) m.members[this.client].add(this.room);
  }
  toString = () => `join(c${this.client}, ${this.room})`;
}

class Leave implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly client: number,
    readonly room: string,
  ) {}
  check = (m: Readonly<Model>) => !m.stalled[this.client];
  async run(m: Model, r: Real): Promise<void> {
    await roomAction(r, this.client, 'unsubscribe', this.room);
    m.members[this.client].delete(this.room);
  }
  toString = () => `leave(c${this.client}, ${this.room})`;
}

class Broadcast implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly room: string,
    /** 1 small message, or a burst of BURST large ones (what fills a stalled member's buffers). */
    readonly burst: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    for (let k = 0; k < (this.burst ? BURST : 1); k++) {
      const id = m.nextId++;
      const res = await call(`${r.hub.url}/ws/broadcast/${r.prefix}${this.room}`, {
        method: 'POST',
        bearer: r.bearer,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, pad: this.burst ? LARGE : undefined }),
      });
      expect(res.status).toBe(200);
      const members = m.members.map((rooms, i) => (rooms.has(this.room) ? i : -1)).filter((i) => i >= 0);
      for (const i of members) m.expected[i].push(id);
      if (this.burst) for (const i of members) m.mayBeEvicted[i] = true;
      // Clients that could not have overflowed are certainly still members; evicted ones are not counted.
      const safe = members.filter((i) => !m.mayBeEvicted[i]).length;
      expect(res.body.delivered).toBeGreaterThanOrEqual(safe);
      expect(res.body.delivered).toBeLessThanOrEqual(members.length);
    }
  }
  toString = () => `broadcast(${this.room}${this.burst ? `, burst of ${BURST} x 900 KiB` : ''})`;
}

class Stall implements fc.AsyncCommand<Model, Real> {
  constructor(readonly client: number) {}
  check = (m: Readonly<Model>) => !m.stalled[this.client];
  async run(m: Model, r: Real): Promise<void> {
    r.clients[this.client].pause();
    m.stalled[this.client] = true;
    m.mayBeEvicted[this.client] = true;
  }
  toString = () => `stall(c${this.client})`;
}

class Resume implements fc.AsyncCommand<Model, Real> {
  constructor(readonly client: number) {}
  check = (m: Readonly<Model>) => m.stalled[this.client];
  async run(m: Model, r: Real): Promise<void> {
    r.clients[this.client].resume();
    m.stalled[this.client] = false;
    // Acks sent while it was stalled are read now; none are outstanding (join/leave need a reader).
  }
  toString = () => `resume(c${this.client})`;
}

describe('hub model: join, leave, broadcast, stall', () => {
  let hub: RunningService;
  let bearer: string;
  let run = 0;

  beforeAll(async () => {
    hub = await startService(hubDefinition, { env: { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', BUS: 'memory', WS_WRITE_TIMEOUT_SECONDS: '60' } });
    bearer = await token('model');
  });
  afterAll(() => hub?.close());

  it('every live member gets every broadcast once and in order', async () => {
    const client = fc.integer({ min: 0, max: CLIENTS - 1 });
    const room = fc.constantFrom(...ROOMS);
    const commands = fc.commands(
      [
        fc.tuple(client, room).map(([c, rm]) => new Join(c, rm)),
        fc.tuple(client, room).map(([c, rm]) => new Leave(c, rm)),
        room.map((rm) => new Broadcast(rm, false)),
        room.map((rm) => new Broadcast(rm, false)),
        fc.tuple(room, fc.boolean()).map(([rm, burst]) => new Broadcast(rm, burst)),
        client.map((c) => new Stall(c)),
        client.map((c) => new Resume(c)),
      ],
      { maxCommands: 40, size: 'max' },
    );
    let evictions = 0;
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const prefix = `m${run++}-`;
        const clients = await Promise.all(Array.from({ length: CLIENTS }, () => HubClient.connect(`${hub.url.replace('http', 'ws')}/ws/connect?token=${bearer}`)));
        // Every client starts in every room, so that stalls mostly hit members.
        for (const c of clients) for (const rm of ROOMS) c.send({ action: 'subscribe', room: `${prefix}${rm}` });
        for (const c of clients) await c.until(() => c.of('subscribed').length === ROOMS.length, 5000, 'initial rooms');
        const model: Model = { members: clients.map(() => new Set(ROOMS)), stalled: clients.map(() => false), mayBeEvicted: clients.map(() => false), expected: clients.map(() => []), nextId: 0 };
        const real: Real = { hub, bearer, prefix, clients, acks: clients.map(() => ROOMS.length), dead: clients.map(() => false) };
        try {
          const evictedBefore = await evictionCount(hub.url);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          for (const c of clients) c.resume();
          for (const [i, c] of clients.entries()) {
            const want = model.expected[i];
            await c.until(() => c.of('message').length >= want.length || c.closed !== undefined, 10_000, `c${i} to catch up`);
            if (!c.closed) {
              // A pong is written after every earlier frame: anything extra would be here by now.
              c.send({ action: 'ping' });
              await c.until(() => c.of('pong').length >= 1 || c.closed !== undefined, 5000, 'pong');
            }
            const got = c.of('message').map((f) => f.data.id);
            if (c.closed) {
              // Evicted: the client reads 4008 if it resumes within the hub's 2 s grace; a client
              // still stalled then is cut (1006) because it would never read the close frame.
              if (c.closed.code !== 1006) expect(c.closed).toEqual({ code: 4008, reason: 'slow consumer' });
              expect(model.mayBeEvicted[i]).toBe(true);
              expect(got).toEqual(want.slice(0, got.length));
              evictions++;
            } else {
              expect(got).toEqual(want);
            }
          }
          // Every closed client was closed by an eviction the hub counted, never for another reason.
          const closed = clients.filter((c) => c.closed).length;
          expect((await evictionCount(hub.url)) - evictedBefore).toBe(closed);
        } finally {
          for (const c of clients) c.close();
        }
      }),
      {
        numRuns: 12,
        endOnFailure: true,
        // Random sequences reach an eviction only now and then; this one always does (a stalled
        // member of r0 gets 21 MB, past what loopback buffers and its 1 MiB queue hold), so every
        // run checks the evicted-client rules at least once.
        examples: [[[new Stall(0), new Broadcast('r0', true), new Broadcast('r0', true), new Broadcast('r0', true), new Join(1, 'r0'), new Broadcast('r0', false)]]],
      },
    );
    // The runs exercised the eviction path at least once (large messages to a stalled member).
    expect(evictions).toBeGreaterThan(0);
    process.stdout.write(`hub model: ${evictions} evictions over the runs\n`);
  }, 120_000);
});
