import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as netConnect } from 'node:net';
import { runInThisContext } from 'node:vm';
import { Registry } from 'prom-client';
import WebSocket from 'ws';
import { mintToken, TokenVerifier } from '@flowplane/platform/auth';
import { NoopHubBridge } from './bridge/hub-bridge.port';
import { HubMetrics } from './hub.metrics';
import { HubService } from './hub.service';
import { HubSockets } from './hub-sockets';
import type { PolicyDecision, RoomPolicy } from './room-policy';

/** Jest hands the test a copy of `process`; crashes are reported on the real one. */
const realProcess = runInThisContext('process') as NodeJS.Process;
const SECRET = 'hub-sockets-spec-secret-0123456789';

/** A room policy backed by a lookup that is down for rooms named `down-*`. */
const flakyPolicy: RoomPolicy = {
  canJoin: async (_p, room): Promise<PolicyDecision> => {
    if (room.startsWith('down-')) throw new Error('lookup failed');
    return true;
  },
  canBroadcast: () => true,
};

/** Sends a raw upgrade request; resolves what the hub answered once it closed the connection. */
function rawUpgrade(port: number, target: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
  });
}

describe('HubSockets upgrade handling', () => {
  let server: Server;
  let hub: HubService;
  let sockets: HubSockets;
  let port: number;
  let bearer: string;
  const uncaught: unknown[] = [];
  const record = (e: unknown) => uncaught.push(e);

  beforeAll(async () => {
    realProcess.on('uncaughtException', record);
    realProcess.on('unhandledRejection', record);
    const metrics = new HubMetrics(new Registry());
    hub = new HubService(
      { replicaId: 'spec', pingIntervalMs: 60_000, writeTimeoutMs: 10_000, sendBuffer: 64, sendBufferBytes: 1 << 20, maxFrameBytes: 65_536, maxRoomsPerConnection: 10, allowedOrigins: [], requireAuth: true, mountPath: '/ws' },
      new NoopHubBridge(),
      metrics,
    );
    sockets = new HubSockets(hub, new TokenVerifier({ jwtSecret: SECRET }), flakyPolicy, metrics);
    server = createServer();
    server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    bearer = await mintToken(SECRET, { sub: 'alice', perms: [] });
  });
  afterAll(async () => {
    await sockets.shutdown(100);
    await new Promise<void>((r) => server.close(() => r()));
    realProcess.off('uncaughtException', record);
    realProcess.off('unhandledRejection', record);
  });
  afterEach(() => expect(uncaught).toEqual([]));

  it('refuses a request target that is no valid URL with 400 instead of throwing', async () => {
    const text = await rawUpgrade(port, 'http://[');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ statusCode: 400, error: 'Bad Request', code: 'INVALID_REQUEST_TARGET', message: 'invalid request target', requestId: expect.any(String) });
    expect(text).toContain(`X-Request-Id: ${body.requestId as string}\r\n`);
  });

  it('answers 503 when the room policy fails on a pre-joined room', async () => {
    const text = await rawUpgrade(port, `/ws/connect?token=${bearer}&room=down-1`);
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toContain('room policy is unavailable');
  });

  it('answers a subscribe the room policy fails on with an error frame and keeps the connection', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/connect?token=${bearer}`);
    const frames: Array<{ type: string; data?: { code?: string } }> = [];
    ws.on('message', (m) => frames.push(JSON.parse(m.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ action: 'subscribe', room: 'down-2' }));
    ws.send(JSON.stringify({ action: 'ping' }));
    const deadline = Date.now() + 3000;
    while (frames.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(frames.find((f) => f.type === 'error')?.data?.code).toBe('unavailable');
    expect(frames.some((f) => f.type === 'pong')).toBe(true);
    const closed = new Promise((r) => ws.once('close', r));
    ws.close();
    await closed;
  });
});

describe('HubSockets frame order behind an async room policy', () => {
  let server: Server;
  let hub: HubService;
  let sockets: HubSockets;
  let port: number;
  let bearer: string;
  /** Rooms named `slow-*` are decided only when the test releases them. */
  const waiting = new Map<string, () => void>();
  const lookupPolicy: RoomPolicy = {
    canJoin: (_p, room) => {
      if (!room.startsWith('slow-')) return Promise.resolve(true as const);
      return new Promise<PolicyDecision>((resolve) => waiting.set(room, () => resolve(true)));
    },
    canBroadcast: () => true,
  };

  beforeAll(async () => {
    const metrics = new HubMetrics(new Registry());
    hub = new HubService(
      { replicaId: 'order', pingIntervalMs: 60_000, writeTimeoutMs: 10_000, sendBuffer: 64, sendBufferBytes: 1 << 20, maxFrameBytes: 65_536, maxRoomsPerConnection: 10, allowedOrigins: [], requireAuth: true, mountPath: '/ws' },
      new NoopHubBridge(),
      metrics,
    );
    sockets = new HubSockets(hub, new TokenVerifier({ jwtSecret: SECRET }), lookupPolicy, metrics);
    server = createServer();
    server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    bearer = await mintToken(SECRET, { sub: 'alice', perms: [] });
  });
  afterAll(async () => {
    await sockets.shutdown(100);
    await new Promise<void>((r) => server.close(() => r()));
  });

  async function client(): Promise<{ ws: WebSocket; frames: Array<{ type: string; room: string; data: unknown }>; until: (n: number) => Promise<void> }> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/connect?token=${bearer}`);
    const frames: Array<{ type: string; room: string; data: unknown }> = [];
    ws.on('message', (m) => frames.push(JSON.parse(m.toString())));
    await new Promise((r) => ws.once('open', r));
    const until = async (n: number) => {
      const deadline = Date.now() + 3000;
      while (frames.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    return { ws, frames, until };
  }

  it('answers every frame in the order sent while a subscribe waits for its lookup', async () => {
    const c = await client();
    c.ws.send(JSON.stringify({ action: 'subscribe', room: 'slow-1' }));
    c.ws.send(JSON.stringify({ action: 'subscribe', room: 'fast-1' }));
    c.ws.send(JSON.stringify({ action: 'ping' }));
    c.ws.send(JSON.stringify({ action: 'unsubscribe', room: 'slow-1' }));
    c.ws.send('{not json');
    const deadline = Date.now() + 3000;
    while (!waiting.has('slow-1') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    // Nothing overtakes the subscribe that waits.
    expect(c.frames).toEqual([]);
    // A broadcast while the lookup runs does not reach the socket: it is not a member yet.
    expect(hub.broadcast('slow-1', 'message', { early: true }).delivered).toBe(0);
    waiting.get('slow-1')!();
    await c.until(5);
    expect(c.frames.map((f) => `${f.type}:${f.room}`)).toEqual(['subscribed:slow-1', 'subscribed:fast-1', 'pong:', 'unsubscribed:slow-1', 'error:']);
    // The unsubscribe sent after the subscribe was applied after it.
    expect(hub.broadcast('slow-1', 'message', {}).delivered).toBe(0);
    expect(hub.broadcast('fast-1', 'message', { n: 1 }).delivered).toBe(1);
    await c.until(6);
    expect(c.frames[5]).toMatchObject({ type: 'message', room: 'fast-1' });
    c.ws.close();
  });

  it('sends the subscribe ack before any broadcast to the room it joined', async () => {
    const c = await client();
    c.ws.send(JSON.stringify({ action: 'subscribe', room: 'slow-2' }));
    const deadline = Date.now() + 3000;
    while (!waiting.has('slow-2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    waiting.get('slow-2')!();
    // Broadcast in a tight loop until the join lands: the first frame must still be the ack.
    let delivered = 0;
    for (let i = 0; i < 10_000 && delivered === 0; i++) {
      delivered = hub.broadcast('slow-2', 'message', { i }).delivered;
      if (delivered === 0) await Promise.resolve();
    }
    expect(delivered).toBe(1);
    await c.until(2);
    expect(c.frames[0]).toMatchObject({ type: 'subscribed', room: 'slow-2' });
    expect(c.frames[1]).toMatchObject({ type: 'message', room: 'slow-2' });
    c.ws.close();
  });

  it('pauses a socket that sends many frames behind a lookup, then handles all of them in order', async () => {
    const c = await client();
    c.ws.send(JSON.stringify({ action: 'subscribe', room: 'slow-3' }));
    for (let i = 0; i < 300; i++) c.ws.send(JSON.stringify({ action: 'ping' }));
    const deadline = Date.now() + 3000;
    while (!waiting.has('slow-3') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.frames).toEqual([]);
    waiting.get('slow-3')!();
    await c.until(301);
    expect(c.frames[0]).toMatchObject({ type: 'subscribed', room: 'slow-3' });
    expect(c.frames.slice(1).every((f) => f.type === 'pong')).toBe(true);
    expect(c.frames).toHaveLength(301);
    c.ws.send(JSON.stringify({ action: 'ping' }));
    await c.until(302);
    expect(c.frames[301]).toMatchObject({ type: 'pong' });
    c.ws.close();
  });
});
