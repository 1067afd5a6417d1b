import { type ChildProcess, spawn } from 'node:child_process';
import { hubDefinition } from '@flowplane/hub';
import { type RunningService, startService } from '@flowplane/platform/service';
import { describeIntegration, freePort, hasCommand, hasFile, portAnswers, waitUntil } from '@flowplane/platform/testing';
import { call, metricsAuth, TEST_SECRET, token } from '../support/http';
import { eventually, HubClient } from './hub-clients';

/**
 * Issue 7, cross-replica bridge with a real coordinator: two hub instances on their own ports
 * (real TCP to the coordinator and from the clients), clients on both, a broadcast on either
 * reaches every member exactly once; the coordinator is killed mid-test (local delivery goes on,
 * /ws/health shows degraded) and restarted on the same port (the bridge recovers by itself).
 */

function binary(name: string, fallback: string): string | undefined {
  if (hasFile(fallback)) return fallback;
  return hasCommand(name) ? name : undefined;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  await waitUntil(`port ${port}`, () => portAnswers(port), { timeoutMs, intervalMs: 50 });
}

interface Coordinator {
  kind: 'nats' | 'redis';
  bin: string;
  args: (port: number) => string[];
  url: (port: number) => string;
}

const COORDINATORS: Array<Coordinator & { unavailable: string | false }> = (() => {
  const nats = binary('nats-server', '/usr/sbin/nats-server');
  const redis = binary('redis-server', '/usr/bin/redis-server');
  return [
    {
      kind: 'nats' as const,
      bin: nats ?? 'nats-server',
      args: (port: number) => ['-a', '127.0.0.1', '-p', String(port)],
      url: (port: number) => `nats://127.0.0.1:${port}`,
      unavailable: nats ? false : 'nats-server is not installed',
    },
    {
      kind: 'redis' as const,
      bin: redis ?? 'redis-server',
      args: (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      url: (port: number) => `redis://127.0.0.1:${port}`,
      unavailable: redis ? false : 'redis-server is not installed',
    },
  ];
})();

for (const coord of COORDINATORS) {
  describeIntegration(`hub: two replicas bridged over ${coord.kind}`, coord.unavailable, { requiredInCi: true }, () => {
    let port: number;
    let server: ChildProcess | undefined;
    let a: RunningService;
    let b: RunningService;
    let alice: string;
    const clients: HubClient[] = [];

    async function startCoordinator(): Promise<void> {
      server = spawn(coord.bin, coord.args(port), { stdio: 'ignore' });
      await waitForPort(port);
    }

    async function killCoordinator(): Promise<void> {
      const proc = server!;
      server = undefined;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    }

    const health = async (svc: RunningService) => (await call(`${svc.url}/ws/health`)).body;
    const broadcast = (svc: RunningService, room: string, body: unknown) =>
      call(`${svc.url}/ws/broadcast/${room}`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    async function join(svc: RunningService, room: string): Promise<HubClient> {
      const c = await HubClient.connect(`${svc.url.replace('http', 'ws')}/ws/connect?token=${alice}&room=${room}`);
      clients.push(c);
      await c.frameAt(0);
      return c;
    }
    /** Lets anything still in flight (a duplicate, an echo) arrive before counting. */
    const settle = () => new Promise((r) => setTimeout(r, 250));

    beforeAll(async () => {
      port = await freePort();
      await startCoordinator();
      const env = { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', BUS: 'memory', COORD: coord.kind, NATS_URL: coord.url(port), REDIS_URL: coord.url(port), HUB_COORD_RECONNECT_MS: '100' };
      a = await startService(hubDefinition, { env: { ...env, HUB_REPLICA_ID: 'replica-a' } });
      b = await startService(hubDefinition, { env: { ...env, HUB_REPLICA_ID: 'replica-b' } });
      alice = await token('alice');
      await eventually(async () => (await health(a)).distributed && (await health(b)).distributed, 10_000, 'both bridges connected');
    });

    afterAll(async () => {
      for (const c of clients) c.close();
      await Promise.allSettled([a?.close(), b?.close()]);
      if (server) await killCoordinator();
    });

    it('shows the bridge in /ws/health', async () => {
      expect(await health(a)).toMatchObject({ status: 'ok', distributed: true, replicaId: 'replica-a', coord: { kind: coord.kind, state: 'connected' } });
      expect(await health(b)).toMatchObject({ distributed: true, replicaId: 'replica-b' });
    });

    it('delivers a broadcast on either replica to every member exactly once, in order', async () => {
      const onA = [await join(a, 'x-room'), await join(a, 'x-room')];
      const onB = [await join(b, 'x-room')];
      const elsewhere = await join(b, 'other-room');
      const first = await broadcast(a, 'x-room', { n: 0 });
      expect(first.body).toEqual({ room: 'x-room', delivered: 2, bridged: true });
      const second = await broadcast(b, 'x-room', { n: 1 });
      expect(second.body).toEqual({ room: 'x-room', delivered: 1, bridged: true });
      for (let n = 2; n < 20; n++) expect((await broadcast(n % 2 ? b : a, 'x-room', { n })).status).toBe(200);
      for (const c of [...onA, ...onB]) await c.until(() => c.of('message').length >= 20, 5000, '20 messages');
      await settle();
      for (const c of [...onA, ...onB]) {
        const got = c.of('message').map((f) => f.data.n);
        expect(got).toHaveLength(20);
        expect(new Set(got).size).toBe(20);
        // Each origin's messages keep their order.
        expect(got.filter((n) => n % 2 === 0)).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
        expect(got.filter((n) => n % 2 === 1)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
      }
      expect(elsewhere.of('message')).toEqual([]);
      const metricsA = await (await fetch(`${a.url}/metrics`, { headers: await metricsAuth() })).text();
      expect(metricsA).toMatch(/hub_broadcasts_total\{origin="remote"[^}]*\} 10\b/);
      expect(metricsA).toMatch(/hub_broadcasts_total\{origin="local"[^}]*\} 10\b/);
    });

    it('keeps local delivery when the coordinator dies, shows degraded, and recovers when it is back', async () => {
      const onA = await join(a, 'k-room');
      const onB = await join(b, 'k-room');
      expect((await broadcast(a, 'k-room', { phase: 'before' })).body.bridged).toBe(true);
      await onB.until(() => onB.of('message').length === 1, 5000, 'bridged message');

      await killCoordinator();
      const down = await eventually(async () => {
        const h = await health(a);
        return h.status === 'degraded' ? h : undefined;
      }, 10_000, 'degraded health');
      expect(down).toMatchObject({ distributed: false, coord: { kind: coord.kind, state: 'disconnected' } });
      // Local delivery does not wait for (or depend on) the coordinator.
      const started = Date.now();
      const local = await broadcast(a, 'k-room', { phase: 'during' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(local.status).toBe(200);
      expect(local.body).toEqual({ room: 'k-room', delivered: 1 });
      await onA.until(() => onA.of('message').length === 2, 5000, 'local message while down');
      expect(onA.of('message').map((f) => f.data.phase)).toEqual(['before', 'during']);

      await startCoordinator();
      await eventually(async () => (await health(a)).distributed && (await health(b)).distributed, 15_000, 'bridges to reconnect');
      expect((await health(a)).coord.reconnects).toBeGreaterThanOrEqual(1);
      expect((await broadcast(b, 'k-room', { phase: 'after' })).body).toEqual({ room: 'k-room', delivered: 1, bridged: true });
      await onA.until(() => onA.of('message').length === 3, 5000, 'bridged message after recovery');
      await settle();
      expect(onA.of('message').map((f) => f.data.phase)).toEqual(['before', 'during', 'after']);
      expect(onB.of('message').map((f) => f.data.phase)).toEqual(['before', 'after']);
    });
  });
}
