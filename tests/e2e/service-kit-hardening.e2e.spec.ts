import { Controller, Get, Module } from '@nestjs/common';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Public } from '@flowplane/platform/auth';
import { type RunningService, type ServiceDefinition, startService } from '@flowplane/platform/service';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { passThroughFlow, publishFlow } from '../support/flows';
import { call, json, TEST_SECRET, testEnv, token, until } from '../support/http';

/** Robustness of every service's HTTP edge (service kit): bodies, paths, headers, metrics, binding. */

/** `{"a": [[...]]}` nested `depth` levels in all (the outer object counts as one). */
const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/** The JSON of `{"id":"<bytes>","name":"x"}` with raw bytes in the id: not UTF-8. */
const notUtf8 = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('","name":"x"}')]);

/** The standard error body: status, reason, stable code, message, request id (no stack). */
const standardError = (statusCode: number, code: string) => ({ statusCode, error: expect.any(String), code, message: expect.any(String), requestId: expect.any(String) });

/** Sends raw bytes over TCP and resolves everything written back before the server closed. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let got = '';
    socket.on('data', (c) => (got += c.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('service kit hardening (standalone through the gateway)', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let runtime: RunningService;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ROUTE_TIMEOUT_MS: '2000' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access', 'search:index:write']);
    runtime = platform.services.find((s) => s.name === 'flow-runtime')!;
    await publishFlow(api, admin, 'echo', { ...passThroughFlow, meta: { route: { method: 'POST', path: '/hardening/echo' } } });
    const d = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'hardening-echo', name: 'Echo', kind: 'route', auth: { mode: 'public' }, variants: [{ label: 'stable', flowId: 'echo', weight: 1 }] }) });
    expect(d.status).toBe(201);
    expect((await until(() => call(`${api}/hardening/echo`, { method: 'POST', ...json({}) }), (r) => r.status === 200)).status).toBe(200);
  });
  afterAll(() => platform?.close());

  const postRaw = (url: string, body: string | Buffer, bearer = admin) => call(url, { method: 'POST', bearer, headers: { 'content-type': 'application/json' }, body });

  describe('deeply nested JSON', () => {
    it('is a 400 JSON_TOO_DEEP on every service, before routing and validation', async () => {
      for (const svc of platform.services) {
        const res = await postRaw(`${svc.url}/api/v1/flows`, nested(2500));
        expect({ service: svc.name, status: res.status, body: res.body }).toEqual({ service: svc.name, status: 400, body: standardError(400, 'JSON_TOO_DEEP') });
      }
      // A body the size limit allows that is nothing but nesting.
      expect((await postRaw(`${runtime.url}/api/v1/flows`, nested(200_000))).body).toMatchObject({ code: 'JSON_TOO_DEEP' });
    });

    it('is a 400 through the gateway too, and 64 levels are still accepted', async () => {
      expect((await postRaw(`${api}/flows`, nested(65))).body).toEqual(standardError(400, 'JSON_TOO_DEEP'));
      const ok = await postRaw(`${api}/hardening/echo`, nested(64));
      expect(ok.status).toBe(200);
      expect(JSON.stringify(ok.body.body)).toBe(nested(64));
    });

    it('never starts a run of a public route deployment, and leaves no run running', async () => {
      const res = await postRaw(`${runtime.url}/api/v1/hardening/echo`, nested(10_000), '');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('JSON_TOO_DEEP');
      expect(res.headers.get('x-run-id')).toBeNull();
      const running = await runtime.ctx.store!.collection('runs').find({ status: 'running' });
      expect(running).toEqual([]);
    });
  });

  describe('a run whose events cannot be stored', () => {
    it('fails with RUN_EVENTS_NOT_PERSISTED instead of staying running', async () => {
      const batches = runtime.ctx.store!.collection('run_event_batches');
      const spy = jest.spyOn(batches, 'insertOne').mockRejectedValue(new Error('disk full'));
      try {
        const res = await postRaw(`${api}/hardening/echo`, JSON.stringify({ n: 1 }), '');
        expect(res.status).toBe(500);
        const runId = res.headers.get('x-run-id')!;
        expect(runId).toBeTruthy();
        spy.mockRestore();
        const run = await until(() => call(`${api}/runs/${runId}`, { bearer: admin }), (r) => r.body?.status !== 'running', 2000);
        expect(run.body).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED' } });
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('invalid UTF-8 in a JSON body', () => {
    it('is a 400 INVALID_UTF8 through the gateway and on the service', async () => {
      expect((await postRaw(`${api}/flows`, notUtf8)).body).toEqual(standardError(400, 'INVALID_UTF8'));
      const direct = await postRaw(`${runtime.url}/api/v1/flows`, notUtf8);
      expect(direct.status).toBe(400);
      expect(direct.body).toEqual(standardError(400, 'INVALID_UTF8'));
      expect(direct.body.requestId).toBe(direct.headers.get('x-request-id'));
    });
  });

  describe('request headers too large', () => {
    it('is a JSON 431 with the standard body on the gateway and on a service', async () => {
      for (const port of [platform.gateway.port, runtime.port]) {
        const res = await call(`http://127.0.0.1:${port}/api/v1/flows`, { headers: { 'x-big': 'a'.repeat(20_000) } });
        expect(res.status).toBe(431);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.body).toEqual(standardError(431, 'HEADERS_TOO_LARGE'));
      }
    });

    it('answers a malformed request with a JSON 400 and survives clients that reset mid-request', async () => {
      const answer = await raw(platform.gateway.port, 'BREW /pot HTTP/1.1\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.split('\r\n\r\n')[1])).toEqual(standardError(400, expect.any(String)));
      for (let i = 0; i < 50; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(platform.gateway.port, '127.0.0.1', () => {
            socket.write(`GET /api/v1/flows HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + i)}`);
            socket.resetAndDestroy();
          });
          socket.on('error', () => undefined);
          socket.on('close', () => resolve());
        });
      }
      expect((await call(`${api}/health`)).status).toBe(200);
    });
  });

  describe('an invalid percent-encoding in the path', () => {
    it('is a 400 INVALID_PATH_ENCODING through the gateway and on the service', async () => {
      for (const url of [`${api}/flows/%ff`, `${api}/flows/%ff/versions`, `${api}/runs/%E0%A4%A`, `${api}/hardening/%ff`, `${platform.url}/%ff`, `${platform.url}/ws/%ff`, `${runtime.url}/api/v1/flows/%ff`]) {
        const res = await call(url, { bearer: admin });
        expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: standardError(400, 'INVALID_PATH_ENCODING') });
      }
    });
  });

  describe('/metrics on the service port', () => {
    it('needs a token with metrics:read (or a superuser)', async () => {
      const reader = await token('prometheus', ['metrics:read']);
      const root = await token('root', [], { superuser: true });
      for (const base of [platform.gateway.url, runtime.url]) {
        const anonymous = await call(`${base}/metrics`);
        expect(anonymous.status).toBe(401);
        expect(anonymous.text).not.toContain('http_requests_total');
        expect((await call(`${base}/metrics`, { bearer: admin })).status).toBe(403);
        const ok = await call(`${base}/metrics`, { bearer: reader });
        expect(ok.status).toBe(200);
        expect(ok.text).toContain('http_requests_total');
        expect((await call(`${base}/metrics`, { bearer: root })).status).toBe(200);
      }
    });
  });

  describe('standalone binding', () => {
    it('binds every service but the gateway to the loopback address', () => {
      for (const svc of platform.services) expect({ service: svc.name, address: (svc.server.address() as AddressInfo).address }).toEqual({ service: svc.name, address: '127.0.0.1' });
      expect((platform.gateway.server.address() as AddressInfo).address).toBe(process.env.HOST || '0.0.0.0');
    });
  });

  describe('search filter', () => {
    it('refuses top-level keys other than the Qdrant clauses with a 400 naming them (embedded backend)', async () => {
      const user = await token('bob');
      expect((await call(`${api}/admin/search/indexes`, { method: 'POST', bearer: admin, ...json({ name: 'hardening', dim: 768 }) })).status).toBeLessThan(300);
      const query = (filter: unknown) => call(`${api}/search/indexes/hardening/query`, { method: 'POST', bearer: user, ...json({ text: 'x', filter }) });
      const mixed = await query({ must: [{ key: 'lang', match: { value: 'en' } }], lang: 'de', boost: 2 });
      expect(mixed.status).toBe(400);
      expect(mixed.body).toMatchObject({ code: 'VECTOR_FILTER_INVALID', keys: ['lang', 'boost'], message: expect.stringContaining('"lang", "boost"') });
      const shorthand = await query({ lang: 'de' });
      expect(shorthand.status).toBe(400);
      expect(shorthand.body.message).toContain('"lang"');
      expect((await query({ must: [{ key: 'lang', match: { value: 'en' } }] })).status).toBe(200);
    });
  });
});

@Controller('ping')
class PingController {
  @Get()
  @Public()
  ping() {
    return { pong: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

const pingService: ServiceDefinition = { name: 'ping', title: 'Ping', description: 'test service', defaultPort: 0, uses: {}, module: () => PingModule };

describe('METRICS_PORT', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(pingService, { env: { PORT: '0', METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent' } });
  });
  afterAll(() => svc?.close());

  it('serves /metrics without a token on its own port only', async () => {
    expect(svc.metricsPort).toEqual(expect.any(Number));
    expect(svc.metricsPort).not.toBe(svc.port);
    const scraped = await call(`http://127.0.0.1:${svc.metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(scraped.text).toContain('process_cpu_user_seconds_total');
    expect((await call(`http://127.0.0.1:${svc.metricsPort}/api/v1/ping`)).body).toEqual({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND', message: expect.any(String) });
    // The service port no longer serves them, with or without a token.
    const root = await token('root', [], { superuser: true });
    expect((await call(`${svc.url}/metrics`, { bearer: root })).status).toBe(404);
    expect((await call(`${svc.url}/api/v1/ping`)).body).toEqual({ pong: true });
  });

  it('stops the metrics listener on close', async () => {
    const port = svc.metricsPort;
    expect(port).toEqual(expect.any(Number));
    expect((await call(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    await svc.close();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
