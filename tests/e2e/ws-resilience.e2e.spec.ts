import { randomBytes } from 'node:crypto';
import { connect as netConnect, type Server, type Socket } from 'node:net';
import { runInThisContext } from 'node:vm';
import { HubService } from '@flowplane/hub';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { upgradeProxyOf } from '../../libs/gateway/src/upgrade-proxy';
import { testEnv, token } from '../support/http';
import { eventually, HubClient } from './hub-clients';

/**
 * Clients that vanish (TCP reset) at any point of a WebSocket handshake or session, through the
 * gateway and straight at the hub: the process stays up and nothing is left open.
 */

/** Jest hands the test a copy of `process`; crashes are reported on the real one. */
const realProcess = runInThisContext('process') as NodeJS.Process;

const STAGES = [
  'partial-headers',
  'after-headers',
  'refused-no-token',
  'refused-partly-read',
  'not-found',
  'after-101',
  'mid-frame',
  'after-subscribe',
  'during-ping',
  'refused-after-body',
  'refused-half-open',
  'bad-handshake',
  'odd-target',
] as const;
type Stage = (typeof STAGES)[number];

/** A masked client text frame (RFC 6455 §5.2), as a browser sends it. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('test frames stay short');
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

function upgradeRequest(path: string, key = randomBytes(16).toString('base64')): string {
  return `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`;
}

const pause = (ms: number) => new Promise<void>((r) => (ms <= 0 ? setImmediate(r) : setTimeout(r, ms)));

interface Outcome {
  switched: boolean;
}

/**
 * One client that resets its connection at `stage`. Resolves once its socket is gone. Waits are
 * bounded so a stage that never comes (a refused handshake) still resets. A half-open client reads
 * its refusal and then never closes its side: it resolves at once and is left in `lingering`.
 */
function attempt(port: number, stage: Stage, bearer: string, jitterMs: number, lingering: Socket[]): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const socket: Socket = netConnect({ port, host: '127.0.0.1', allowHalfOpen: stage === 'refused-half-open' });
    let received = '';
    let switched = false;
    const waiters: Array<{ check: () => boolean; go: () => void }> = [];
    const done = () => resolve({ switched });
    socket.on('error', () => undefined);
    socket.once('close', done);
    const reset = () => {
      if (!socket.destroyed) socket.resetAndDestroy();
    };
    const guard = setTimeout(reset, 3000);
    socket.once('close', () => clearTimeout(guard));
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (!switched && received.startsWith('HTTP/1.1 101')) switched = true;
      for (const w of waiters.splice(0)) {
        if (w.check()) w.go();
        else waiters.push(w);
      }
    });
    const when = (check: () => boolean) =>
      new Promise<void>((go) => {
        if (check()) go();
        else waiters.push({ check, go });
      });
    const withToken = `/ws/connect?token=${bearer}`;
    const run = async () => {
      await new Promise<void>((r) => socket.once('connect', () => r()));
      switch (stage) {
        case 'partial-headers': {
          const req = upgradeRequest(withToken);
          socket.write(req.slice(0, 1 + Math.floor(Math.random() * (req.length - 5))));
          await pause(jitterMs);
          return reset();
        }
        case 'after-headers':
          socket.write(upgradeRequest(withToken));
          await pause(jitterMs);
          return reset();
        case 'refused-no-token':
          socket.write(upgradeRequest('/ws/connect'));
          await pause(jitterMs);
          return reset();
        case 'refused-partly-read':
          socket.write(upgradeRequest('/ws/connect'));
          await when(() => received.length > 0);
          return reset();
        case 'refused-after-body':
          // Reads the whole refusal, then resets instead of closing cleanly.
          socket.write(upgradeRequest('/ws/connect'));
          await when(() => received.includes('}'));
          return reset();
        case 'refused-half-open':
          socket.write(upgradeRequest('/ws/connect'));
          await when(() => received.includes('}'));
          clearTimeout(guard);
          lingering.push(socket);
          return done();
        case 'bad-handshake':
          // Passes every check of the hub, then fails the WebSocket handshake itself (`ws` answers 400).
          socket.write(upgradeRequest(withToken, 'not-a-key'));
          await pause(jitterMs);
          return reset();
        case 'odd-target':
          // An absolute-form target that is no valid URL: refused, never thrown.
          socket.write(upgradeRequest('http://['));
          await when(() => received.includes('}'));
          return reset();
        case 'not-found':
          socket.write(upgradeRequest('/api/v1/no-such-socket'));
          await pause(jitterMs);
          return reset();
        case 'after-101':
          socket.write(upgradeRequest(withToken));
          await when(() => switched);
          return reset();
        case 'mid-frame': {
          socket.write(upgradeRequest(withToken));
          await when(() => switched);
          const frame = clientFrame(JSON.stringify({ action: 'subscribe', room: 'storm' }));
          socket.write(frame.subarray(0, 2 + Math.floor(Math.random() * (frame.length - 3))));
          await pause(jitterMs);
          return reset();
        }
        case 'after-subscribe':
          socket.write(upgradeRequest(withToken));
          await when(() => switched);
          socket.write(clientFrame(JSON.stringify({ action: 'subscribe', room: 'storm' })));
          await when(() => received.includes('"subscribed"'));
          return reset();
        case 'during-ping':
          socket.write(upgradeRequest(withToken));
          await when(() => switched);
          socket.write(clientFrame(JSON.stringify({ action: 'subscribe', room: 'storm' })));
          socket.write(clientFrame(JSON.stringify({ action: 'ping' })));
          await pause(jitterMs);
          return reset();
      }
    };
    run().catch(reset);
  });
}

const connections = (server: Server) => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

describe('WebSocket upgrade path: clients that reset at any stage', () => {
  let platform: Standalone;
  let alice: string;
  const uncaught: unknown[] = [];
  const record = (e: unknown) => uncaught.push(e);

  beforeAll(async () => {
    realProcess.on('uncaughtException', record);
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    alice = await token('alice');
  });
  afterAll(async () => {
    await platform?.close();
    realProcess.off('uncaughtException', record);
  });

  it('survives 1,000 resets at every stage of the handshake and of a session, through the gateway and at the hub, and leaks nothing', async () => {
    const hubService = platform.services.find((s) => s.name === 'hub')!;
    const hub = hubService.app.get(HubService);
    const gatewayServer = platform.gateway.server as unknown as Server;
    const hubServer = hubService.server as unknown as Server;
    const baseline = { gateway: await connections(gatewayServer), hub: await connections(hubServer) };
    const ports = [platform.gateway.port, hubService.port];

    const TOTAL = 1000;
    const PARALLEL = 25;
    let next = 0;
    let switched = 0;
    const lingering: Socket[] = [];
    const worker = async () => {
      while (next < TOTAL && uncaught.length === 0) {
        const i = next++;
        const stage = STAGES[i % STAGES.length];
        // Two thirds through the gateway, one third straight at the hub.
        const port = ports[Math.floor(i / STAGES.length) % 3 === 2 ? 1 : 0];
        const out = await attempt(port, stage, alice, Math.floor(Math.random() * 3), lingering);
        if (out.switched) switched++;
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));

    expect(uncaught).toEqual([]);
    // The session stages really reached an open WebSocket (4 of the 13 stages need the 101).
    expect(switched).toBeGreaterThan(TOTAL * 0.25);

    // Nothing stays open: the gateway's proxied sockets, the hub's clients, both servers' sockets;
    // the half-open clients are cut once their grace (5 s) is over.
    expect(lingering.length).toBeGreaterThan(0);
    const upgrades = upgradeProxyOf(platform.gateway.server)!;
    expect(upgrades).toBeDefined();
    await eventually(() => upgrades.openSockets === 0, 10_000, 'the gateway to drop every proxied socket');
    await eventually(() => hub.connectionCount() === 0, 10_000, 'the hub to drop every client');
    await eventually(async () => (await connections(gatewayServer)) <= baseline.gateway, 10_000, 'gateway connections back to baseline');
    await eventually(async () => (await connections(hubServer)) <= baseline.hub, 10_000, 'hub connections back to baseline');
    for (const s of lingering) s.destroy();

    // And the platform still serves a normal session through the gateway.
    const client = await HubClient.connect(`${platform.url.replace('http', 'ws')}/ws/connect?token=${alice}`);
    try {
      client.send({ action: 'subscribe', room: 'after-storm' });
      expect(await client.frameAt(0)).toMatchObject({ type: 'subscribed', room: 'after-storm' });
      client.send({ action: 'ping' });
      expect(await client.frameAt(1)).toMatchObject({ type: 'pong' });
    } finally {
      client.ws.close();
      await client.waitClose();
    }
    await eventually(() => upgrades.openSockets === 0 && hub.connectionCount() === 0, 5000, 'the last session to be released');
    expect(uncaught).toEqual([]);
  });
});
