import { Get } from '@nestjs/common';
import { HubModule, HubService, hubDefinition } from '@flowplane/hub';
import { CurrentPrincipal, listRoutes, mintServiceToken, mintToken, type Principal, Public } from '@flowplane/platform/auth';
import { type RunningService, startService } from '@flowplane/platform/service';
import { call, metricsAuth, TEST_SECRET, token } from '../support/http';
import { eventually, HubClient, refusal } from './hub-clients';

/**
 * Issue 7 against a booted hub (its own port, real `ws` clients): upgrade auth and origin, acks,
 * fan-out, refusal of client publishes, slow-consumer eviction, write and ping timeouts, the three
 * HTTP routes, metrics, OpenAPI and the 1001 shutdown.
 */

const base = { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', BUS: 'memory' };

async function boot(env: Record<string, string> = {}): Promise<RunningService> {
  return startService(hubDefinition, { env: { ...base, ...env } });
}

const wsUrl = (svc: RunningService, query: string) => `${svc.url.replace('http', 'ws')}/ws/connect?${query}`;

describe('hub', () => {
  let hub: RunningService;
  let alice: string;
  let bob: string;
  const open: HubClient[] = [];

  async function connect(query: string, options = {}): Promise<HubClient> {
    const c = await HubClient.connect(wsUrl(hub, query), options);
    open.push(c);
    return c;
  }

  async function broadcast(room: string, body: unknown, bearer = alice) {
    return call(`${hub.url}/ws/broadcast/${encodeURIComponent(room)}`, { method: 'POST', bearer, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  beforeAll(async () => {
    hub = await boot({ WS_WRITE_TIMEOUT_SECONDS: '60' });
    alice = await token('alice');
    bob = await token('bob');
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(() => hub?.close());

  describe('upgrade', () => {
    it('refuses a missing, malformed or wrongly signed token with 401 before any socket exists', async () => {
      const missing = await refusal(wsUrl(hub, 'room=r1'));
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      expect(missing.body.message).toMatch(/token/);
      expect((await refusal(wsUrl(hub, 'token=not-a-jwt'))).status).toBe(401);
      const forged = await mintToken('another-secret-0123456789abcdef', { sub: 'mallory' });
      const bad = await refusal(wsUrl(hub, `token=${forged}`));
      expect(bad.status).toBe(401);
      expect(JSON.stringify(bad.body)).not.toMatch(/at .*\.js:\d+/);
      const inactive = await refusal(wsUrl(hub, `token=${await token('zed', [], { active: false })}`));
      expect(inactive.status).toBe(403);
    });

    it('checks Origin: cross-origin refused with 403, same origin and no Origin accepted', async () => {
      const cross = await refusal(wsUrl(hub, `token=${alice}`), { origin: 'http://evil.example' });
      expect(cross.status).toBe(403);
      expect(cross.body.message).toMatch(/origin/);
      const host = new URL(hub.url).host;
      await expect(connect(`token=${alice}`, { origin: `http://${host}` })).resolves.toBeInstanceOf(HubClient);
      await expect(connect(`token=${alice}`)).resolves.toBeInstanceOf(HubClient);
      const listed = await boot({ WS_ALLOWED_ORIGINS: 'https://app.example, https://admin.example' });
      try {
        const c = await HubClient.connect(`${listed.url.replace('http', 'ws')}/ws/connect?token=${alice}`, { origin: 'https://admin.example' });
        c.close();
        expect((await refusal(`${listed.url.replace('http', 'ws')}/ws/connect?token=${alice}`, { origin: 'https://evil.example' })).status).toBe(403);
      } finally {
        await listed.close();
      }
    });

    it('pre-joins the session_id or room room and acks it', async () => {
      const a = await connect(`token=${alice}&session_id=sess-1`);
      const b = await connect(`token=${bob}&room=sess-1`);
      expect(await a.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'sess-1', data: null });
      expect(await b.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'sess-1' });
      const res = await broadcast('sess-1', { type: 'progress', pct: 50 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ room: 'sess-1', delivered: 2 });
      for (const c of [a, b]) expect(await c.frameAt(1)).toMatchObject({ type: 'progress', room: 'sess-1', data: { type: 'progress', pct: 50 } });
      expect(new Date((await a.frameAt(1)).ts).getTime()).toBeGreaterThan(Date.now() - 60_000);
    });

    it('refuses an invalid pre-join room with 400 and another user\'s personal room with 403', async () => {
      expect((await refusal(wsUrl(hub, `token=${alice}&room=${encodeURIComponent('bad room!')}`))).status).toBe(400);
      const personal = await refusal(wsUrl(hub, `token=${alice}&room=user:bob`));
      expect(personal.status).toBe(403);
      await expect(connect(`token=${alice}&room=user:alice`)).resolves.toBeInstanceOf(HubClient);
    });

    it('pre-joins both session_id and room when given together, or refuses the whole upgrade', async () => {
      const both = await connect(`token=${alice}&session_id=pair-s&room=pair-r`);
      await both.frameAt(1);
      expect(both.frames.map((f) => `${f.type}:${f.room}`)).toEqual(['subscribed:pair-s', 'subscribed:pair-r']);
      expect((await broadcast('pair-s', { n: 1 })).body.delivered).toBe(1);
      expect((await broadcast('pair-r', { n: 2 })).body.delivered).toBe(1);
      const same = await connect(`token=${alice}&session_id=pair-x&room=pair-x`);
      await same.frameAt(0);
      expect((await broadcast('pair-x', { n: 3 })).body.delivered).toBe(1);
      await same.frameAt(1);
      expect(same.frames.map((f) => f.type)).toEqual(['subscribed', 'message']);
      // Either room refused refuses the upgrade: no socket is left in only one of them.
      const badRoom = await refusal(wsUrl(hub, `token=${alice}&session_id=pair-ok&room=${encodeURIComponent('bad room!')}`));
      expect(badRoom.status).toBe(400);
      expect(badRoom.body.message).toMatch(/^room: /);
      expect((await refusal(wsUrl(hub, `token=${alice}&session_id=${encodeURIComponent('bad room!')}&room=pair-ok`))).status).toBe(400);
      expect((await refusal(wsUrl(hub, `token=${alice}&session_id=pair-ok&room=user:bob`))).status).toBe(403);
      expect((await refusal(wsUrl(hub, `token=${alice}&room=a1&room=a2`))).body.message).toBe('room may be given once');
      expect((await broadcast('pair-ok', { n: 4 })).body.delivered).toBe(0);
      const one = await boot({ WS_MAX_ROOMS_PER_CONNECTION: '1' });
      try {
        const over = await refusal(`${one.url.replace('http', 'ws')}/ws/connect?token=${alice}&session_id=s1&room=r1`);
        expect(over.status).toBe(400);
        expect(over.body.message).toMatch(/at most 1 rooms/);
      } finally {
        await one.close();
      }
    });

    it('refuses an upgrade on an unknown path under the mount with 404', async () => {
      expect((await refusal(`${hub.url.replace('http', 'ws')}/ws/nowhere?token=${alice}`)).status).toBe(404);
    });
  });

  describe('frames', () => {
    it('acks subscribe, unsubscribe and ping with the envelope', async () => {
      const c = await connect(`token=${alice}`);
      c.send({ action: 'subscribe', room: 'lobby' });
      expect(await c.frameAt(0)).toEqual({ type: 'subscribed', room: 'lobby', data: null, ts: expect.any(String) });
      c.send({ action: 'ping' });
      expect(await c.frameAt(1)).toMatchObject({ type: 'pong', room: '' });
      expect((await broadcast('lobby', { n: 1 })).body.delivered).toBe(1);
      expect(await c.frameAt(2)).toMatchObject({ type: 'message', room: 'lobby', data: { n: 1 } });
      c.send({ action: 'unsubscribe', room: 'lobby' });
      expect(await c.frameAt(3)).toMatchObject({ type: 'unsubscribed', room: 'lobby' });
      expect((await broadcast('lobby', { n: 2 })).body.delivered).toBe(0);
      c.send({ action: 'ping' });
      expect(await c.frameAt(4)).toMatchObject({ type: 'pong' });
      expect(c.frames).toHaveLength(5);
    });

    it('answers frames in the order they were sent: an ack never overtakes an earlier frame', async () => {
      const c = await connect(`token=${alice}`);
      // Sent back to back, so they reach the hub together.
      c.send({ action: 'subscribe', room: 'order-1' });
      c.send({ action: 'ping' });
      c.send({ action: 'unsubscribe', room: 'order-1' });
      c.send({ action: 'subscribe', room: 'order-2' });
      await c.frameAt(3);
      expect(c.frames.map((f) => `${f.type}:${f.room}`)).toEqual(['subscribed:order-1', 'pong:', 'unsubscribed:order-1', 'subscribed:order-2']);
      // The unsubscribe came after the subscribe, so the socket is out of the room.
      expect((await broadcast('order-1', { n: 1 })).body.delivered).toBe(0);
      expect((await broadcast('order-2', { n: 2 })).body.delivered).toBe(1);
      expect(await c.frameAt(4)).toMatchObject({ type: 'message', room: 'order-2' });
    });

    it('never lets a client publish over its socket: error envelope, nothing reaches the room', async () => {
      const sender = await connect(`token=${alice}&room=chat`);
      const member = await connect(`token=${bob}&room=chat`);
      await sender.frameAt(0);
      await member.frameAt(0);
      sender.send({ action: 'broadcast', room: 'chat', data: { spoof: true } });
      sender.send({ action: 'publish', room: 'chat', data: { spoof: true } });
      sender.send({ type: 'message', room: 'chat', data: { spoof: true } });
      const e1 = await sender.frameAt(1);
      expect(e1).toMatchObject({ type: 'error', data: { code: 'invalid_frame' } });
      expect(e1.data.message).toMatch(/cannot publish/);
      await sender.frameAt(3);
      expect(sender.frames.slice(1).map((f) => f.type)).toEqual(['error', 'error', 'error']);
      // The member's next frame is the HTTP broadcast: the spoofed frames never got to it.
      await broadcast('chat', { real: true });
      expect(await member.frameAt(1)).toMatchObject({ data: { real: true } });
      expect(member.frames).toHaveLength(2);
    });

    it('answers malformed JSON, unknown actions, bad rooms and frames over WS_MAX_FRAME_BYTES with an error and keeps the socket', async () => {
      const c = await connect(`token=${alice}`);
      c.send('{not json');
      c.send({ action: 'dance' });
      c.send({ action: 'subscribe', room: '' });
      c.send({ action: 'subscribe', room: 'has space' });
      c.send({ action: 'subscribe', room: 'x'.repeat(201) });
      c.send({ action: 'ping', pad: 'x'.repeat(64 * 1024 + 1) });
      c.send({ action: 'subscribe', room: 'user:bob' });
      await c.frameAt(6);
      expect(c.frames.map((f) => f.data.code)).toEqual(['invalid_frame', 'invalid_frame', 'invalid_frame', 'invalid_frame', 'invalid_frame', 'frame_too_large', 'forbidden']);
      expect(c.frames[0].data.message).toMatch(/JSON/);
      c.send({ action: 'ping' });
      expect(await c.frameAt(7)).toMatchObject({ type: 'pong' });
      expect(c.closed).toBeUndefined();
    });
  });

  describe('broadcast', () => {
    it('fans out to exactly the members of the room, once each', async () => {
      const inA = await Promise.all([connect(`token=${alice}&room=A`), connect(`token=${bob}&room=A`), connect(`token=${alice}&room=A`)]);
      const inB = await Promise.all([connect(`token=${bob}&room=B`), connect(`token=${alice}&room=B`)]);
      const both = await connect(`token=${alice}&room=A`);
      both.send({ action: 'subscribe', room: 'B' });
      const none = await connect(`token=${alice}`);
      await both.frameAt(1);
      for (const c of [...inA, ...inB]) await c.frameAt(0);
      const res = await broadcast('A', { seq: 1 });
      expect(res.body).toEqual({ room: 'A', delivered: 4 });
      await broadcast('B', { seq: 2 });
      for (const c of inA) await c.frameAt(1);
      for (const c of inB) await c.frameAt(1);
      await both.frameAt(3);
      // One more round trip so that anything extra would have arrived.
      for (const c of [...inA, ...inB, both, none]) c.send({ action: 'ping' });
      for (const c of [...inA, ...inB]) await c.frameAt(2);
      await both.frameAt(4);
      await none.frameAt(0);
      for (const c of inA) expect(c.of('message').map((f) => f.data)).toEqual([{ seq: 1 }]);
      for (const c of inB) expect(c.of('message').map((f) => f.data)).toEqual([{ seq: 2 }]);
      expect(both.of('message').map((f) => f.data)).toEqual([{ seq: 1 }, { seq: 2 }]);
      expect(none.of('message')).toEqual([]);
    });

    it('delivers any JSON value as the data of a message: a string, a number, null, a boolean', async () => {
      const member = await connect(`token=${alice}&room=scalars`);
      await member.frameAt(0);
      const values = ['x', 42, null, true, false, 0, ''];
      for (const v of values) {
        const res = await call(`${hub.url}/ws/broadcast/scalars`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify(v) });
        expect([res.status, res.body]).toEqual([200, { room: 'scalars', delivered: 1 }]);
      }
      await member.frameAt(values.length);
      expect(member.of('message').map((f) => f.data)).toEqual(values);
      expect(member.of('message').every((f) => f.room === 'scalars')).toBe(true);
    });

    it('validates the room, the body and the type; requires a token; enforces the room policy', async () => {
      expect((await broadcast('bad room', { a: 1 })).status).toBe(400);
      const noBody = await call(`${hub.url}/ws/broadcast/r`, { method: 'POST', bearer: alice });
      expect(noBody.status).toBe(400);
      expect(noBody.body.message).toMatch(/JSON/);
      const malformed = await call(`${hub.url}/ws/broadcast/r`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: '{"a":' });
      expect(malformed.status).toBe(400);
      expect(malformed.text).not.toMatch(/at .*\.js:\d+/);
      expect((await broadcast('r', { type: 'pong' })).status).toBe(400);
      expect((await broadcast('r', { type: 42 })).status).toBe(400);
      expect((await broadcast('r', [1, 2, 3])).body).toEqual({ room: 'r', delivered: 0 });
      const anonymous = await call(`${hub.url}/ws/broadcast/r`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(anonymous.status).toBe(401);
      const intoBob = await broadcast('user:bob', { hi: 1 }, alice);
      expect(intoBob.status).toBe(403);
      expect(intoBob.body.message).toMatch(/personal room/);
      expect((await broadcast('user:bob', { hi: 1 }, bob)).status).toBe(200);
      const svc = await mintServiceToken(TEST_SECRET, { from: 'flow-runtime', to: 'hub' });
      expect((await broadcast('user:bob', { hi: 1 }, svc)).status).toBe(200);
    });

    it('refuses a message whose envelope exceeds WS_SEND_BUFFER_BYTES with 413', async () => {
      const small = await boot({ WS_SEND_BUFFER_BYTES: '2048' });
      try {
        const res = await call(`${small.url}/ws/broadcast/r`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blob: 'x'.repeat(4096) }) });
        expect(res.status).toBe(413);
        expect(res.body).toMatchObject({ statusCode: 413, code: 'HUB_MESSAGE_TOO_LARGE' });
      } finally {
        await small.close();
      }
    });
  });

  describe('slow consumers', () => {
    it('closes a client that stops reading with 4008 on its 33rd queued message; the others receive everything', async () => {
      const slow = await connect(`token=${alice}&room=firehose`);
      const fast = await Promise.all([connect(`token=${bob}&room=firehose`), connect(`token=${bob}&room=firehose`)]);
      for (const c of [slow, ...fast]) await c.frameAt(0);
      slow.pause();
      // 16 KiB messages: 32 of them stay under the 1 MiB byte cap, so the message count decides.
      const pad = 'x'.repeat(16 * 1024);
      let evictedAt = 0;
      for (let i = 1; i <= 5000 && !evictedAt; i++) {
        const res = await broadcast('firehose', { i, pad });
        expect(res.status).toBe(200);
        if (res.body.delivered === 2) evictedAt = i;
        else expect(res.body.delivered).toBe(3);
      }
      expect(evictedAt).toBeGreaterThan(33);
      // After eviction the slow client no longer counts; the others still get every message.
      expect((await broadcast('firehose', { i: evictedAt + 1, pad })).body.delivered).toBe(2);
      slow.resume();
      const closed = await slow.waitClose(10_000);
      expect(closed).toEqual({ code: 4008, reason: 'slow consumer' });
      // Everything the socket had taken arrives; the 32 queued and the 33rd do not.
      const got = slow.of('message').map((f) => f.data.i);
      expect(got).toEqual(Array.from({ length: evictedAt - 33 }, (_, k) => k + 1));
      for (const c of fast) {
        await c.until(() => c.of('message').length === evictedAt + 1, 10_000, 'every message');
        expect(c.of('message').map((f) => f.data.i)).toEqual(Array.from({ length: evictedAt + 1 }, (_, k) => k + 1));
        expect(c.closed).toBeUndefined();
      }
      const metrics = await (await fetch(`${hub.url}/metrics`, { headers: await metricsAuth() })).text();
      expect(metrics).toMatch(/hub_slow_consumer_evictions_total\{reason="queue"[^}]*\} 1\b/);
    });

    it('lets a client that pauses and catches up before its queue fills receive everything in order', async () => {
      const roomy = await boot({ WS_SEND_BUFFER: '100000', WS_SEND_BUFFER_BYTES: String(512 * 1024 * 1024), WS_WRITE_TIMEOUT_SECONDS: '60' });
      const c = await HubClient.connect(`${roomy.url.replace('http', 'ws')}/ws/connect?token=${alice}&room=q`);
      try {
        await c.frameAt(0);
        c.pause();
        const pad = 'q'.repeat(128 * 1024);
        const queued = async () => Number(/^hub_send_queue_messages(?:\{[^}]*\})? (\d+)/m.exec(await (await fetch(`${roomy.url}/metrics`, { headers: await metricsAuth() })).text())?.[1] ?? 0);
        let sent = 0;
        // Fill the kernel buffers, then queue some 20 messages in the hub.
        while (sent < 2000 && (await queued()) < 20) {
          for (let k = 0; k < 10; k++) await call(`${roomy.url}/ws/broadcast/q`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i: ++sent, pad }) });
        }
        expect(await queued()).toBeGreaterThanOrEqual(20);
        c.resume();
        await c.until(() => c.of('message').length === sent, 10_000, 'every message');
        expect(c.of('message').map((f) => f.data.i)).toEqual(Array.from({ length: sent }, (_, k) => k + 1));
        expect(await queued()).toBe(0);
        expect(c.closed).toBeUndefined();
      } finally {
        c.close();
        await roomy.close();
      }
    });

    it('closes a client whose writes stall past WS_WRITE_TIMEOUT_SECONDS with 4008 write timeout', async () => {
      const quick = await boot({ WS_WRITE_TIMEOUT_SECONDS: '0.3', WS_SEND_BUFFER: '100000', WS_SEND_BUFFER_BYTES: String(512 * 1024 * 1024) });
      const clients: HubClient[] = [];
      try {
        const stalled = await HubClient.connect(`${quick.url.replace('http', 'ws')}/ws/connect?token=${alice}&room=big`);
        clients.push(stalled);
        await stalled.frameAt(0);
        stalled.pause();
        const pad = 'y'.repeat(256 * 1024);
        let evicted = false;
        for (let i = 0; i < 400 && !evicted; i++) {
          const res = await call(`${quick.url}/ws/broadcast/big`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i, pad }) });
          evicted = res.body.delivered === 0;
          if (i % 16 === 15) await new Promise((r) => setTimeout(r, 100));
        }
        expect(evicted).toBe(true);
        stalled.resume();
        expect(await stalled.waitClose(10_000)).toEqual({ code: 4008, reason: 'write timeout' });
        expect(await (await fetch(`${quick.url}/metrics`, { headers: await metricsAuth() })).text()).toMatch(/hub_slow_consumer_evictions_total\{reason="write_timeout"[^}]*\} 1\b/);
      } finally {
        for (const c of clients) c.close();
        await quick.close();
      }
    });

    it('pings every WS_PING_INTERVAL_SECONDS and closes a client that missed two pongs', async () => {
      const pinging = await boot({ WS_PING_INTERVAL_SECONDS: '0.15' });
      try {
        const url = `${pinging.url.replace('http', 'ws')}/ws/connect?token=${alice}`;
        const mute = await HubClient.connect(url, { autoPong: false });
        const alive = await HubClient.connect(url);
        let pings = 0;
        alive.ws.on('ping', () => pings++);
        const started = Date.now();
        expect(await mute.waitClose(5000)).toEqual({ code: 4000, reason: 'ping timeout' });
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        expect(pings).toBeGreaterThanOrEqual(2);
        await new Promise((r) => setTimeout(r, 400));
        expect(alive.closed).toBeUndefined();
        alive.send({ action: 'ping' });
        expect(await alive.frameAt(0)).toMatchObject({ type: 'pong' });
        alive.close();
        expect(await (await fetch(`${pinging.url}/metrics`, { headers: await metricsAuth() })).text()).toMatch(/hub_ping_timeouts_total\{[^}]*\} 1\b/);
      } finally {
        await pinging.close();
      }
    });
  });

  describe('HTTP routes', () => {
    it('GET /ws/health is public and reports counts, distributed and the replica', async () => {
      const c = await connect(`token=${alice}&room=h1`);
      await c.frameAt(0);
      const res = await call(`${hub.url}/ws/health`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', distributed: false, replicaId: expect.any(String), coord: { kind: 'noop', state: 'disabled' } });
      expect(res.body.connections).toBeGreaterThanOrEqual(1);
      expect(res.body.rooms).toBeGreaterThanOrEqual(1);
    });

    it("GET /ws/info needs a bearer token and counts the caller's own connections", async () => {
      expect((await call(`${hub.url}/ws/info`)).status).toBe(401);
      const carol = await token('carol');
      await connect(`token=${carol}`);
      await connect(`token=${carol}&room=x`);
      await connect(`token=${alice}`);
      const res = await call(`${hub.url}/ws/info`, { bearer: carol });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ caller: { sub: 'carol', connections: 2 }, limits: { sendBuffer: 32, sendBufferBytes: 1048576, maxFrameBytes: 65536 }, mountPath: '/ws' });
      for (const c of open.splice(0)) c.close();
      await eventually(async () => (await call(`${hub.url}/ws/info`, { bearer: carol })).body.caller.connections === 0, 5000, 'connections to close');
    });

    it('documents the three control routes at their absolute paths, and not the upgrade', async () => {
      const doc = (await call(`${hub.url}/openapi.json`)).body;
      expect(Object.keys(doc.paths).filter((p: string) => p.startsWith('/ws')).sort()).toEqual(['/ws/broadcast/{session_id}', '/ws/health', '/ws/info']);
      expect(doc.paths['/ws/health'].get['x-absolute-path']).toBe(true);
      expect(doc.paths['/ws/broadcast/{session_id}'].post).toBeDefined();
      expect(Object.keys(doc.paths).some((p: string) => p.startsWith('/api/v1/ws'))).toBe(false);
    });
  });

  it('refuses to boot with an unknown COORD or a malformed REDIS_URL, naming the variables and masking the URL', async () => {
    await expect(boot({ COORD: 'kafka' })).rejects.toThrow(/COORD/);
    const err = await boot({ COORD: 'redis', REDIS_URL: 'http://user:s3cret@host' }).catch((e: Error) => e);
    expect(String(err)).toMatch(/REDIS_URL/);
    expect(String(err)).not.toContain('s3cret');
  });

  it('starts without its coordinator and reports the bridge as degraded until it is reachable', async () => {
    const lonely = await boot({ COORD: 'nats', NATS_URL: 'nats://127.0.0.1:1', HUB_COORD_RECONNECT_MS: '50' });
    try {
      const h = await eventually(async () => {
        const body = (await call(`${lonely.url}/ws/health`)).body;
        return body.coord.state === 'disconnected' ? body : undefined;
      }, 5000, 'disconnected bridge');
      expect(h).toMatchObject({ status: 'degraded', distributed: false, coord: { kind: 'nats', lastError: expect.any(String) } });
      expect(h.coord.lastError).not.toMatch(/nats:\/\//);
      const c = await HubClient.connect(`${lonely.url.replace('http', 'ws')}/ws/connect?token=${alice}&room=solo`);
      await c.frameAt(0);
      const res = await call(`${lonely.url}/ws/broadcast/solo`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
      expect(res.body).toEqual({ room: 'solo', delivered: 1 });
      expect(await c.frameAt(1)).toMatchObject({ data: { ok: true } });
      c.close();
      expect(await (await fetch(`${lonely.url}/metrics`, { headers: await metricsAuth() })).text()).toMatch(/hub_bridge_publish_total\{result="dropped"[^}]*\} 1\b/);
    } finally {
      await lonely.close();
    }
  });

  it('lets a module add routes to the mount with the absolute-path flag', async () => {
    class RoomCountRoutes {
      constructor(private readonly hub: HubService) {}
      @Get('rooms/count')
      @Public()
      count() {
        return { rooms: this.hub.roomCount() };
      }
    }
    Reflect.defineMetadata('design:paramtypes', [HubService], RoomCountRoutes);
    // The spec's two groups: routes for any active user, and public routes (no declaration of their own).
    class MineRoutes {
      @Get('mine')
      mine(@CurrentPrincipal() principal: Principal) {
        return { sub: principal.sub };
      }
    }
    class StatusRoutes {
      @Get('status')
      status() {
        return { up: true };
      }
    }
    const custom = await startService(
      { ...hubDefinition, module: (ctx) => HubModule.forRoot(ctx, { routes: [RoomCountRoutes], authenticatedRoutes: [MineRoutes], publicRoutes: [StatusRoutes] }) },
      { env: { ...base, WS_MOUNT_PATH: '/rt' } },
    );
    try {
      expect((await call(`${custom.url}/rt/mine`)).status).toBe(401);
      expect((await call(`${custom.url}/rt/mine`, { bearer: await token('bob', [], { active: false }) })).status).toBe(403);
      expect(await call(`${custom.url}/rt/mine`, { bearer: alice })).toMatchObject({ status: 200, body: { sub: 'alice' } });
      expect(await call(`${custom.url}/rt/status`)).toMatchObject({ status: 200, body: { up: true } });
      expect((await call(`${custom.url}/rt/rooms/count`)).body).toEqual({ rooms: 0 });
      expect((await call(`${custom.url}/rt/health`)).status).toBe(200);
      expect((await call(`${custom.url}/ws/health`)).status).toBe(404);
      const doc = (await call(`${custom.url}/openapi.json`)).body;
      expect(doc.paths['/rt/rooms/count'].get['x-absolute-path']).toBe(true);
      expect(listRoutes(custom.app).filter((r) => r.path.startsWith('/rt')).every((r) => r.declared)).toBe(true);
      const c = await HubClient.connect(`${custom.url.replace('http', 'ws')}/rt/connect?token=${alice}&room=z`);
      expect(await c.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'z' });
      c.close();
    } finally {
      await custom.close();
    }
  });

  it('on shutdown closes every client with 1001 so it reconnects elsewhere', async () => {
    const doomed = await boot();
    const url = `${doomed.url.replace('http', 'ws')}/ws/connect?token=${alice}&room=r`;
    const clients = await Promise.all([HubClient.connect(url), HubClient.connect(url)]);
    const started = Date.now();
    await doomed.close();
    for (const c of clients) expect(await c.waitClose(3000)).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
