import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv, token } from '../support/http';
import { HubClient, refusal } from './hub-clients';

/**
 * Issue 7 through the gateway (`npm start` shape: every service in one process, port of the
 * gateway only): the upgrade, its refusals, acks and fan-out, slow-consumer eviction and the three
 * HTTP routes on /ws/*, and the merged OpenAPI document.
 */
describe('hub through the gateway (standalone)', () => {
  let platform: Standalone;
  let ws: string;
  let alice: string;
  const open: HubClient[] = [];

  async function connect(query: string, options = {}): Promise<HubClient> {
    const c = await HubClient.connect(`${ws}/ws/connect?${query}`, options);
    open.push(c);
    return c;
  }
  const broadcast = (room: string, body: unknown) =>
    call(`${platform.url}/ws/broadcast/${room}`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    ws = platform.url.replace('http', 'ws');
    alice = await token('alice');
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(() => platform?.close());

  it('passes the hub refusals through: 401 without or with a bad token, 403 cross-origin', async () => {
    const none = await refusal(`${ws}/ws/connect`);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    expect((await refusal(`${ws}/ws/connect?token=abc.def.ghi`)).status).toBe(401);
    expect((await refusal(`${ws}/ws/connect?token=${alice}`, { origin: 'https://elsewhere.example' })).status).toBe(403);
    // A page served by the gateway itself is same-origin: the gateway keeps the Host header.
    await expect(connect(`token=${alice}`, { origin: platform.url })).resolves.toBeInstanceOf(HubClient);
  });

  it('pre-joins, acks frames and fans a broadcast out to exactly the room', async () => {
    const a = await connect(`token=${alice}&session_id=g-1`);
    const b = await connect(`token=${await token('bob')}`);
    const other = await connect(`token=${alice}&room=g-2`);
    expect(await a.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'g-1' });
    b.send({ action: 'subscribe', room: 'g-1' });
    expect(await b.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'g-1' });
    b.send({ action: 'ping' });
    expect(await b.frameAt(1)).toMatchObject({ type: 'pong' });
    b.send({ action: 'broadcast', room: 'g-1', data: 'spoof' });
    expect(await b.frameAt(2)).toMatchObject({ type: 'error' });
    const res = await broadcast('g-1', { type: 'status', ok: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ room: 'g-1', delivered: 2 });
    expect(await a.frameAt(1)).toMatchObject({ type: 'status', room: 'g-1', data: { ok: true } });
    expect(await b.frameAt(3)).toMatchObject({ type: 'status', room: 'g-1' });
    b.send({ action: 'unsubscribe', room: 'g-1' });
    expect(await b.frameAt(4)).toMatchObject({ type: 'unsubscribed', room: 'g-1' });
    expect((await broadcast('g-1', { n: 2 })).body.delivered).toBe(1);
    await other.frameAt(0);
    other.send({ action: 'ping' });
    await other.frameAt(1);
    expect(a.frames.map((f) => f.type)).toEqual(['subscribed', 'status', 'message']);
    expect(other.of('message')).toEqual([]);
  });

  it('evicts a client that stops reading with 4008 while the others keep receiving everything', async () => {
    const slow = await connect(`token=${alice}&room=g-fire`);
    const fast = await connect(`token=${alice}&room=g-fire`);
    await slow.frameAt(0);
    await fast.frameAt(0);
    slow.pause();
    const pad = 'z'.repeat(16 * 1024);
    let evictedAt = 0;
    // Through the gateway the proxy's socket buffers add to the kernel's before the hub sees it.
    for (let i = 1; i <= 8000 && !evictedAt; i++) {
      const res = await broadcast('g-fire', { i, pad });
      if (res.body.delivered === 1) evictedAt = i;
    }
    expect(evictedAt).toBeGreaterThan(33);
    slow.resume();
    expect(await slow.waitClose(10_000)).toEqual({ code: 4008, reason: 'slow consumer' });
    await fast.until(() => fast.of('message').length === evictedAt, 10_000, 'every message');
    expect(fast.of('message').map((f) => f.data.i)).toEqual(Array.from({ length: evictedAt }, (_, k) => k + 1));
  });

  it('serves GET /ws/health, GET /ws/info and POST /ws/broadcast on the gateway port, with request ids', async () => {
    const health = await call(`${platform.url}/ws/health`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', distributed: false, coord: { kind: 'noop' } });
    expect(health.headers.get('x-request-id')).toBeTruthy();
    expect((await call(`${platform.url}/ws/info`)).status).toBe(401);
    await connect(`token=${alice}`);
    const info = await call(`${platform.url}/ws/info`, { bearer: alice });
    expect(info.status).toBe(200);
    expect(info.body.caller).toEqual({ sub: 'alice', connections: 1 });
    expect((await call(`${platform.url}/ws/broadcast/x`, { method: 'POST' })).status).toBe(401);
    expect((await call(`${platform.url}/ws/nothing`)).status).toBe(404);
  });

  it('lists the three hub routes, not the upgrade, in the merged OpenAPI document', async () => {
    const doc = (await call(`${platform.url}/api/v1/openapi.json`)).body;
    const hubPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/ws'));
    expect(hubPaths.sort()).toEqual(['/ws/broadcast/{session_id}', '/ws/health', '/ws/info']);
    expect(Object.keys(doc.paths['/ws/health'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/ws/broadcast/{session_id}'])).toEqual(['post']);
  });

  it('keeps the reachability socket on /ws/health', async () => {
    const c = await HubClient.connect(`${ws}/ws/health`);
    open.push(c);
    expect(await c.frameAt(0)).toMatchObject({ type: 'health', data: { status: 'ok' } });
  });
});

describe('standalone shutdown with WebSocket clients connected', () => {
  it('does not hang, and clients through the gateway get the same 1001 as direct ones', async () => {
    const platform = await startStandalone({ env: testEnv() });
    const ws = platform.url.replace('http', 'ws');
    const viaGateway = await HubClient.connect(`${ws}/ws/connect?token=${await token('alice')}&room=s`);
    const hub = platform.services.find((s) => s.name === 'hub')!;
    const direct = await HubClient.connect(`${hub.url.replace('http', 'ws')}/ws/connect?token=${await token('bob')}&room=s`);
    await viaGateway.frameAt(0);
    await direct.frameAt(0);
    const started = Date.now();
    await platform.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await viaGateway.waitClose(1000)).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(await direct.waitClose(1000)).toEqual({ code: 1001, reason: 'server shutting down' });
  });
});

describe('hub on another mount (WS_MOUNT_PATH) through the gateway', () => {
  it('forwards the upgrade, the HTTP routes and their OpenAPI entries at the configured mount only', async () => {
    const platform = await startStandalone({ env: testEnv({ WS_MOUNT_PATH: '/realtime' }) });
    try {
      const alice = await token('alice');
      const ws = platform.url.replace('http', 'ws');
      const c = await HubClient.connect(`${ws}/realtime/connect?token=${alice}&room=elsewhere`);
      expect(await c.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'elsewhere' });
      const sent = await call(`${platform.url}/realtime/broadcast/elsewhere`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: 1 }) });
      expect(sent.body).toMatchObject({ room: 'elsewhere', delivered: 1 });
      expect(await c.frameAt(1)).toMatchObject({ type: 'message', room: 'elsewhere', data: { n: 1 } });
      c.close();
      expect((await call(`${platform.url}/realtime/health`)).status).toBe(200);
      // The default mount is not the hub's any more.
      expect((await call(`${platform.url}/ws/health`)).status).toBe(404);
      expect((await refusal(`${ws}/ws/connect?token=${alice}`)).status).toBe(404);
      const paths = Object.keys((await call(`${platform.url}/api/v1/openapi.json`)).body.paths);
      expect(paths).toEqual(expect.arrayContaining(['/realtime/health', '/realtime/info', '/realtime/broadcast/{session_id}']));
      expect(paths.filter((p) => p.startsWith('/ws/'))).toEqual([]);
    } finally {
      await platform.close();
    }
  });
});
