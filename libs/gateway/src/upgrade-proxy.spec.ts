import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect as netConnect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { runInThisContext } from 'node:vm';
import WebSocket, { WebSocketServer } from 'ws';
import { UpgradeProxy, type UpgradeProxyOptions, upgradeProxyOf } from './upgrade-proxy';

/** Jest hands the test a copy of `process`; crashes are reported on the real one. */
const realProcess = runInThisContext('process') as NodeJS.Process;

const listen = async <S extends Server | NetServer>(server: S): Promise<S> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return server;
};
const portOf = (server: Server | NetServer) => (server.address() as AddressInfo).port;
const closeServer = (server: Server | NetServer) => new Promise<void>((r) => server.close(() => r()));

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends a raw upgrade request and collects everything the proxy answers until it closes. */
function rawExchange(port: number, path: string): Promise<{ text: string; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, socket }));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe('UpgradeProxy', () => {
  let upstream: Server;
  let wss: WebSocketServer;
  let front: Server;
  let proxy: UpgradeProxy;
  const upstreamSockets = new Set<WebSocket>();
  const uncaught: unknown[] = [];
  const record = (e: unknown) => uncaught.push(e);

  async function startFront(options: Partial<UpgradeProxyOptions> = {}, target = `http://127.0.0.1:${portOf(upstream)}`): Promise<number> {
    if (front?.listening) {
      proxy.closeAll();
      await closeServer(front);
    }
    front = createServer();
    proxy = new UpgradeProxy({ target, accepts: (p) => p.startsWith('/ws/'), timeoutMs: 1000, ...options });
    proxy.attach(front);
    await listen(front);
    return portOf(front);
  }

  beforeAll(async () => {
    realProcess.on('uncaughtException', record);
    upstream = createServer();
    wss = new WebSocketServer({ noServer: true });
    upstream.on('upgrade', (req: IncomingMessage, socket, head) => {
      socket.on('error', () => socket.destroy());
      if (!req.url?.includes('token=ok')) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 19\r\nConnection: close\r\n\r\n{"statusCode":401}\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        upstreamSockets.add(ws);
        ws.on('error', () => ws.terminate());
        ws.once('close', () => upstreamSockets.delete(ws));
        ws.send(JSON.stringify({ hello: req.headers['x-forwarded-for'], host: req.headers.host }));
        ws.on('message', (m) => ws.send(`echo:${m.toString()}`));
      });
    });
    await listen(upstream);
  });
  afterAll(async () => {
    proxy?.closeAll();
    if (front?.listening) await closeServer(front);
    for (const ws of upstreamSockets) ws.terminate();
    await closeServer(upstream);
    realProcess.off('uncaughtException', record);
  });
  afterEach(() => expect(uncaught).toEqual([]));

  it('carries a session both ways, keeps the Host header, and releases both sockets when the client closes', async () => {
    const port = await startFront();
    expect(upgradeProxyOf(front)).toBe(proxy);
    const client = new WebSocket(`ws://localhost:${port}/ws/connect?token=ok`);
    const frames: string[] = [];
    client.on('message', (m) => frames.push(m.toString()));
    await new Promise((r) => client.once('open', r));
    client.send('hi');
    await until(() => frames.length === 2);
    expect(JSON.parse(frames[0])).toEqual({ hello: '127.0.0.1', host: `localhost:${port}` });
    expect(frames[1]).toBe('echo:hi');
    expect(proxy.openSockets).toBe(2);
    client.close();
    await until(() => proxy.openSockets === 0 && upstreamSockets.size === 0);
  });

  it('passes an upstream refusal through with its status and body, then closes', async () => {
    const port = await startFront();
    const { text } = await rawExchange(port, '/ws/connect');
    expect(text).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(bodyOf(text)).toEqual({ statusCode: 401 });
    await until(() => proxy.openSockets === 0);
  });

  it('refuses paths it does not carry with 404 and clients over their rate with 429 and Retry-After', async () => {
    let port = await startFront();
    const notFound = await rawExchange(port, '/elsewhere');
    expect(notFound.text).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(bodyOf(notFound.text)).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'no WebSocket endpoint at /elsewhere' });
    port = await startFront({ overLimit: async () => 7 });
    const limited = await rawExchange(port, '/ws/connect?token=ok');
    expect(limited.text).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(limited.text).toContain('Retry-After: 7\r\n');
    expect(bodyOf(limited.text)).toMatchObject({ statusCode: 429 });
  });

  it('refuses with 400 what Node would not send upstream, instead of throwing', async () => {
    await startFront();
    const odd = createServer();
    // Stands for a request line the parser let through but http.request rejects.
    odd.on('upgrade', (req: IncomingMessage, socket, head) => proxy.handle(Object.assign(req, { url: '/ws/a b' }), socket, head));
    await listen(odd);
    const { text } = await rawExchange(portOf(odd), '/ws/connect');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(bodyOf(text)).toMatchObject({ statusCode: 400, message: 'invalid request target or header' });
    await closeServer(odd);
  });

  it('answers 503 when the upstream is down and 504 when it never answers the handshake', async () => {
    const dead = await listen(createNetServer());
    const deadPort = portOf(dead);
    await closeServer(dead);
    let port = await startFront({}, `http://127.0.0.1:${deadPort}`);
    const down = await rawExchange(port, '/ws/connect?token=ok');
    expect(down.text).toMatch(/^HTTP\/1\.1 503 /);
    expect(bodyOf(down.text)).toMatchObject({ statusCode: 503, service: 'hub', reason: 'ECONNREFUSED' });

    const held: Socket[] = [];
    const silent = await listen(createNetServer((s) => held.push(s.on('error', () => undefined).resume())));
    port = await startFront({ timeoutMs: 150 }, `http://127.0.0.1:${portOf(silent)}`);
    const slow = await rawExchange(port, '/ws/connect?token=ok');
    expect(slow.text).toMatch(/^HTTP\/1\.1 504 /);
    expect(bodyOf(slow.text)).toMatchObject({ statusCode: 504, service: 'hub' });
    // The abandoned upstream connection is closed, not left to the upstream.
    await until(() => held.length > 0 && held.every((s) => s.destroyed));
    for (const s of held) s.destroy();
    await closeServer(silent);
  });

  it('drops the upstream request when the client resets before the upstream answers', async () => {
    const held: Socket[] = [];
    const silent = await listen(createNetServer((s) => held.push(s.on('error', () => undefined).resume())));
    const port = await startFront({ timeoutMs: 5000 }, `http://127.0.0.1:${portOf(silent)}`);
    const client = netConnect(port, '127.0.0.1');
    client.on('error', () => undefined);
    client.write('GET /ws/connect?token=ok HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    await until(() => held.length === 1);
    client.resetAndDestroy();
    await until(() => proxy.openSockets === 0);
    await until(() => held[0].destroyed);
    await closeServer(silent);
  });

  it('cuts a pair whose client keeps its half open after the upstream ended', async () => {
    const port = await startFront({ halfOpenMs: 100 });
    const client = netConnect({ port, host: '127.0.0.1', allowHalfOpen: true });
    client.on('error', () => undefined);
    let text = '';
    client.on('data', (d) => (text += d.toString('latin1')));
    client.write('GET /ws/connect?token=ok HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    await until(() => text.startsWith('HTTP/1.1 101') && upstreamSockets.size === 1);
    // The upstream goes away without a close handshake: its FIN reaches the client, which never
    // ends its own half.
    const [ws] = upstreamSockets;
    (ws as unknown as { _socket: Socket })._socket.end();
    await until(() => proxy.openSockets === 0, 2000);
    client.destroy();
  });

  it('closeAll cuts established sessions', async () => {
    const port = await startFront();
    const client = new WebSocket(`ws://localhost:${port}/ws/connect?token=ok`);
    client.on('error', () => undefined);
    await new Promise((r) => client.once('open', r));
    const closed = new Promise<number>((r) => client.once('close', (code) => r(code)));
    proxy.closeAll();
    expect(await closed).toBe(1006);
    expect(proxy.openSockets).toBe(0);
  });
});
