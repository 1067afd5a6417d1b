import type { Server } from 'node:http';
import { gatewayDefinition } from '@flowplane/gateway';
import { type RunningService, startService } from '@flowplane/platform/service';
import { call, TEST_SECRET, token, until } from '../support/http';
import { echoUpstream, type RawResponse, openFileLimit, type StalledClient, stalledClient } from './gateway-raw-http';

type Echo = Awaited<ReturnType<typeof echoUpstream>>;

/** Opens `n` clients that send a request's headers announcing 1,000 bytes of body, then one byte, then nothing. */
async function slowClients(port: number, n: number, path: string): Promise<StalledClient[]> {
  const clients: StalledClient[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, j) => {
      const type = (i + j) % 2 ? 'application/json' : 'application/octet-stream';
      return stalledClient(port, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{`);
    });
    clients.push(...(await Promise.all(batch)));
  }
  return clients;
}

/** Opens an event stream through the gateway; resolves once its headers arrived. */
async function openStream(url: string, bearer?: string, accept = true): Promise<{ status: number; res: Response; body: any; close: () => void }> {
  const ac = new AbortController();
  const headers: Record<string, string> = {};
  if (accept) headers.accept = 'text/event-stream';
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(url, { headers, signal: ac.signal });
  let body: any;
  if (res.status !== 200) body = await res.json();
  return { status: res.status, res, body, close: () => ac.abort() };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - t };
}

async function stopEcho(e: Echo): Promise<void> {
  e.server.closeAllConnections();
  await new Promise((r) => (e.server as Server).close(r));
}

const baseEnv = (echo: Echo): Record<string, string> => ({
  PORT: '0',
  AUTH_JWT_SECRET: TEST_SECRET,
  LOG_LEVEL: 'silent',
  GATEWAY_RATE_LIMIT: '0',
  FLOW_RUNTIME_URL: echo.url,
  DEPLOYMENTS_URL: echo.url,
  GATEWAY_UPSTREAM_TIMEOUT_MS: '5000',
});

/** Slow clients and open streams cannot starve a service behind the gateway. */
describe('gateway connection limits', () => {
  // Each slow client costs two descriptors here (client and gateway side); keep well inside the limit.
  const fdLimit = openFileLimit() ?? 4096;
  const SLOW = Math.max(300, Math.min(1000, Math.floor((fdLimit - 500) / 2)));

  describe('with the default limits', () => {
    let echo: Echo;
    let gateway: RunningService;
    let api: string;

    beforeAll(async () => {
      echo = await echoUpstream('flow-runtime');
      gateway = await startService(gatewayDefinition, { env: { ...baseEnv(echo), GATEWAY_BODY_IDLE_TIMEOUT_MS: '4000' } });
      api = `${gateway.url}/api/v1`;
    });
    afterAll(async () => {
      await gateway?.close();
      await stopEcho(echo);
    });

    it(`answers normal requests within a second while ${SLOW} slow clients hang on to their requests`, async () => {
      const alice = await token('alice', ['admin:access']);
      const clients = await slowClients(gateway.port, SLOW, '/api/v1/flows/slow/runs');
      // Let every slow request reach the proxy (and, before the fix, the upstream pool), and the
      // ones over the cap be turned away.
      await new Promise((r) => setTimeout(r, 1000));
      const get = await timed(() => call(`${api}/flows/normal`, { bearer: alice }));
      expect(get.value.status).toBe(200);
      expect(get.ms).toBeLessThan(1000);
      // An authenticated short request with a body from the same address is not a slow one.
      const post = await timed(() => call(`${api}/flows/normal/runs`, { method: 'POST', bearer: alice, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { n: 1 } }) }));
      expect(post.value.status).toBe(200);
      expect(post.value.body).toMatchObject({ method: 'POST', text: '{"input":{"n":1}}' });
      expect(post.ms).toBeLessThan(1000);
      const chunked = await timed(() => fetch(`${api}/deployments/d1`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: new Blob(['{"disabled":true}']).stream(), duplex: 'half' } as RequestInit));
      expect(chunked.value.status).toBe(200);
      expect(chunked.ms).toBeLessThan(1000);

      // Beyond the per-address cap on unfinished requests the slow ones were turned away at once;
      // the others end with 408 when their body stalls.
      const answers = (await Promise.all(clients.map((c) => c.answer))) as RawResponse[];
      const statuses = answers.map((a) => a?.status);
      expect(statuses.filter((s) => s === 429)).toHaveLength(SLOW - 64);
      expect(statuses.filter((s) => s === 408)).toHaveLength(64);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'TOO_MANY_PENDING_REQUESTS', requestId: expect.any(String) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // None of the slow bodies reached the service as a request.
      expect(echo.seen.filter((r) => r.url.includes('/slow/'))).toHaveLength(0);
    }, 30_000);
  });

  describe('with a small pool and no cap on unfinished requests', () => {
    let echo: Echo;
    let gateway: RunningService;
    let api: string;

    beforeAll(async () => {
      echo = await echoUpstream('flow-runtime');
      gateway = await startService(gatewayDefinition, {
        env: {
          ...baseEnv(echo),
          GATEWAY_UPSTREAM_CONNECTIONS: '16',
          GATEWAY_UPSTREAM_RESERVE: '4',
          GATEWAY_MAX_PENDING_PER_CLIENT: '0',
          GATEWAY_STREAM_CONNECTIONS: '40',
          GATEWAY_MAX_STREAMS_PER_CALLER: '3',
          GATEWAY_MAX_STREAMS_PER_CLIENT: '6',
          GATEWAY_BODY_IDLE_TIMEOUT_MS: '3000',
        },
      });
      api = `${gateway.url}/api/v1`;
    });
    afterAll(async () => {
      await gateway?.close();
      await stopEcho(echo);
    });

    it('keeps the reserve for short requests: slow bodies beyond it are collected at the gateway, then sent whole', async () => {
      const clients = await slowClients(gateway.port, 300, '/api/v1/flows/slow/runs');
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 5; i++) {
        const get = await timed(() => call(`${api}/flows/normal`));
        expect(get.value.status).toBe(200);
        expect(get.ms).toBeLessThan(1000);
      }
      // A slow client that finishes its body still gets its answer.
      const [first] = clients;
      first.socket.write('x'.repeat(999));
      const answer = await first.answer;
      expect(answer?.status).toBe(200);
      expect(answer?.body).toMatchObject({ bytes: 1000 });
      for (const c of clients.slice(1)) c.socket.destroy();
    }, 30_000);

    it('caps open event streams per caller and per address with 429, while normal requests still answer', async () => {
      const [alice, bob, carol] = await Promise.all([token('alice', ['admin:access']), token('bob', ['admin:access']), token('carol', ['admin:access'])]);
      const open: Array<{ close: () => void }> = [];
      try {
        for (let i = 0; i < 3; i++) {
          const s = await openStream(`${api}/runs/r${i}/events`, alice);
          expect(s.status).toBe(200);
          expect(s.res.headers.get('content-type')).toContain('text/event-stream');
          open.push(s);
        }
        const fourth = await openStream(`${api}/runs/r4/events`, alice);
        expect(fourth.status).toBe(429);
        expect(fourth.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'TOO_MANY_STREAMS', requestId: expect.any(String) });
        expect(Number(fourth.res.headers.get('retry-after'))).toBeGreaterThan(0);

        for (let i = 0; i < 3; i++) {
          const s = await openStream(`${api}/runs/b${i}/events`, bob);
          expect(s.status).toBe(200);
          open.push(s);
        }
        // Six streams from this address: a seventh is refused whoever asks.
        const seventh = await openStream(`${api}/runs/c1/events`, carol);
        expect(seventh.status).toBe(429);
        expect(seventh.body.code).toBe('TOO_MANY_STREAMS');
        // A response that turns out to be a stream counts the same.
        const late = await openStream(`${api}/runs/c2/sse`, carol, false);
        expect(late.status).toBe(429);
        // (the upstream had opened it; the gateway cut it)
        expect(await until(async () => echo.openStreams(), (n) => n === 6)).toBe(6);

        // Completed short requests are never counted: the same callers and address still get answers.
        for (const bearer of [alice, bob, carol, undefined]) {
          const res = await timed(() => call(`${api}/flows/normal`, { bearer }));
          expect(res.value.status).toBe(200);
          expect(res.ms).toBeLessThan(1000);
        }

        // Closing a stream frees its place.
        open.shift()!.close();
        await new Promise((r) => setTimeout(r, 200));
        const again = await openStream(`${api}/runs/r5/events`, alice);
        expect(again.status).toBe(200);
        open.push(again);
      } finally {
        for (const s of open) s.close();
      }
    });
  });

  describe('with event stream caps off', () => {
    let echo: Echo;
    let gateway: RunningService;
    let api: string;

    beforeAll(async () => {
      echo = await echoUpstream('flow-runtime');
      gateway = await startService(gatewayDefinition, {
        env: { ...baseEnv(echo), GATEWAY_UPSTREAM_CONNECTIONS: '16', GATEWAY_UPSTREAM_RESERVE: '4', GATEWAY_STREAM_CONNECTIONS: '40', GATEWAY_MAX_STREAMS_PER_CALLER: '0', GATEWAY_MAX_STREAMS_PER_CLIENT: '0' },
      });
      api = `${gateway.url}/api/v1`;
    });
    afterAll(async () => {
      await gateway?.close();
      await stopEcho(echo);
    });

    it('gives event streams their own pool: more open streams than ordinary connections leave short requests alone', async () => {
      const open: Array<{ close: () => void }> = [];
      try {
        for (let i = 0; i < 30; i++) {
          const s = await openStream(`${api}/runs/r${i}/events`);
          expect(s.status).toBe(200);
          open.push(s);
        }
        expect(echo.openStreams()).toBe(30);
        const res = await timed(() => call(`${api}/flows/normal`));
        expect(res.value.status).toBe(200);
        expect(res.ms).toBeLessThan(1000);
        // Past the stream pool's size the gateway says so instead of queueing the stream forever.
        for (let i = 30; i < 40; i++) open.push(await openStream(`${api}/runs/r${i}/events`));
        const over = await openStream(`${api}/runs/r40/events`);
        expect(over.status).toBe(503);
        expect(over.body).toMatchObject({ statusCode: 503, code: 'STREAMS_BUSY' });
        expect(Number(over.res.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        for (const s of open) s.close();
      }
    });
  });
});
