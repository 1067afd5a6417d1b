import SwaggerParser from '@apidevtools/swagger-parser';
import { rmSync } from 'node:fs';
import WebSocket from 'ws';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, metricsAuth, tempDir, TEST_SECRET, testEnv, token } from '../support/http';

describe('standalone platform through the gateway', () => {
  let platform: Standalone;
  let dataDir: string;
  let url: string;

  beforeAll(async () => {
    dataDir = tempDir('e2e');
    platform = await startStandalone({ env: { ...process.env, PORT: '0', DATA_DIR: dataDir, AUTH_JWT_SECRET: TEST_SECRET, GATEWAY_RATE_LIMIT: '0', LOG_LEVEL: 'silent' } });
    url = platform.url;
  });
  afterAll(async () => {
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports every service ready on /api/v1/health', async () => {
    const res = await call(`${url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.body.services).sort()).toEqual(['assistant', 'deployments', 'flow-runtime', 'gateway', 'hub', 'i18n', 'profiles', 'search']);
    expect(res.body.services.profiles).toMatchObject({ status: 'up', checks: { bus: { status: 'up' }, store: { status: 'up' } } });
    expect(res.body.services.search.checks.vector).toEqual({ status: 'up' });
  });

  it('proxies each service health at /api/v1/<service>/healthz', async () => {
    for (const s of ['profiles', 'search', 'hub', 'flow-runtime']) {
      const res = await call(`${url}/api/v1/${s}/readyz`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
    }
  });

  it('serves a valid merged OpenAPI 3.0 document with unique operation ids', async () => {
    const res = await call(`${url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0\./);
    const paths = Object.keys(res.body.paths);
    expect(paths.length).toBeGreaterThan(0);
    // Everything under /api/v1, except the hub's control routes at their top-level mount /ws.
    expect(paths.filter((p) => !p.startsWith('/api/v1/') && !p.startsWith('/ws/'))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/health', '/api/v1/admin/system']));
    const ids = Object.values(res.body.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('serves Swagger UI at /api/docs', async () => {
    const res = await fetch(`${url}/api/docs`, { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger');
  });

  it('answers 401 without a token and with a bad token', async () => {
    const none = await call(`${url}/api/v1/admin/system`);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: 'missing bearer token' });
    const bad = await call(`${url}/api/v1/admin/system`, { bearer: 'abc.def.ghi' });
    expect(bad.status).toBe(401);
  });

  it('answers 403 without the permission and for an inactive user', async () => {
    const noPerm = await call(`${url}/api/v1/admin/system`, { bearer: await token('bob', ['profiles:read']) });
    expect(noPerm.status).toBe(403);
    expect(noPerm.body.message).toContain('admin:access');
    const inactive = await call(`${url}/api/v1/admin/system`, { bearer: await token('carol', ['admin:access'], { active: false }) });
    expect(inactive.status).toBe(403);
    expect(inactive.body.message).toBe('user is inactive');
  });

  it('lists every service to an admin, calling them with service tokens', async () => {
    const res = await call(`${url}/api/v1/admin/system`, { bearer: await token('alice', ['admin:access']) });
    expect(res.status).toBe(200);
    expect(res.body.services).toHaveLength(7);
    expect(res.body.services.every((s: any) => s.status === 'up')).toBe(true);
    expect(res.body.services.find((s: any) => s.service === 'search').adapters).toMatchObject({ bus: 'memory', store: 'embedded', vector: 'embedded' });
  });

  it('refuses internal routes to user tokens, even superusers', async () => {
    const svc = platform.services.find((s) => s.name === 'profiles')!;
    const res = await call(`${svc.url}/internal/info`, { bearer: await token('root', [], { superuser: true }) });
    expect(res.status).toBe(403);
  });

  it('answers unknown routes with 404 JSON', async () => {
    const res = await call(`${url}/api/v1/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('answers a body over the limit with 413 and malformed JSON with 400', async () => {
    const big = await call(`${url}/api/v1/admin/profiles`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    expect(big.body.statusCode).toBe(413);
    const bad = await call(`${url}/api/v1/admin/profiles`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(bad.body.message).toMatch(/JSON/);
    expect(bad.text).not.toMatch(/at .*\.js:\d+/);
  });

  it('propagates X-Request-Id and makes one when absent', async () => {
    const given = await call(`${url}/api/v1/profiles/healthz`, { headers: { 'x-request-id': 'req-12345' } });
    expect(given.headers.get('x-request-id')).toBe('req-12345');
    const made = await call(`${url}/api/v1/no/such/route`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('proxies WebSocket upgrades on /ws/* to the hub', async () => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws/health`);
    const frames: any[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (d) => {
        frames.push(JSON.parse(d.toString()));
        if (frames.length === 1) ws.send(JSON.stringify({ action: 'ping' }));
        if (frames.length === 2) resolve();
      });
      ws.on('error', reject);
    });
    ws.close();
    expect(frames[0]).toMatchObject({ type: 'health', data: { status: 'ok' } });
    expect(frames[1].type).toBe('pong');
  });

  it('refuses a WebSocket upgrade outside /ws with 404', async () => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/health`);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
  });

  it('carries a probe event through the shared bus to every service and back', async () => {
    const res = await call(`${url}/api/v1/admin/system/bus-probe?timeoutMs=5000`, { method: 'POST', bearer: await token('alice', ['admin:access']) });
    expect(res.status).toBe(200);
    expect(res.body.missing).toEqual([]);
    expect(Object.keys(res.body.acknowledged).sort()).toEqual(['assistant', 'deployments', 'flow-runtime', 'hub', 'i18n', 'profiles', 'search']);
  });

  it('exposes Prometheus metrics with request counts by route and status', async () => {
    const svc = platform.services.find((s) => s.name === 'profiles')!;
    await call(`${svc.url}/healthz`);
    const text = await (await fetch(`${svc.url}/metrics`, { headers: await metricsAuth() })).text();
    expect(text).toMatch(/http_requests_total\{[^}]*route="\/healthz"[^}]*status="200"/);
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).toContain('process_cpu_user_seconds_total');
    // The probe consumer of every service is a group on the shared bus: its lag is exported.
    expect(text).toMatch(/bus_consumer_lag\{[^}]*group="profiles-probe",topic="platform.probe"[^}]*\} 0/);
    expect(text).toMatch(/bus_events\{[^}]*outcome="published"[^}]*\} \d+/);
  });

  it('reports consumer lag with the bus readiness check', async () => {
    const res = await call(`${platform.services.find((s) => s.name === 'hub')!.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.body.info.bus).toMatchObject({ status: 'up', lag: expect.any(Number), consumers: expect.any(Number) });
  });
});

describe('standalone data', () => {
  it('survives a restart', async () => {
    const dataDir = tempDir('restart');
    const env = { ...process.env, PORT: '0', DATA_DIR: dataDir, AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent' };
    let p = await startStandalone({ env });
    await p.services.find((s) => s.name === 'profiles')!.ctx.store!.collection('notes').insertOne({ _id: 'n1', text: 'kept' });
    await p.close();
    p = await startStandalone({ env });
    try {
      const doc = await p.services.find((s) => s.name === 'profiles')!.ctx.store!.collection('notes').findOne({ _id: 'n1' });
      expect(doc).toMatchObject({ _id: 'n1', text: 'kept' });
    } finally {
      await p.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('AsyncAPI document', () => {
  let platform: Standalone;
  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
  });
  afterAll(() => platform?.close());

  it('describes every topic with its payload schema at /api/v1/asyncapi.yaml', async () => {
    const { parse } = await import('yaml');
    const { FIXED_TOPICS } = await import('@flowplane/contracts');
    const res = await fetch(`${platform.url}/api/v1/asyncapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('yaml');
    const doc = parse(await res.text());
    expect(doc.asyncapi).toBe('2.6.0');
    expect(Object.keys(doc.channels).sort()).toEqual([...FIXED_TOPICS].sort());
    for (const [topic, channel] of Object.entries<any>(doc.channels)) {
      const msg = doc.components.messages[channel.subscribe.message.$ref.split('/').pop()];
      expect(msg.title).toBe(topic);
      const schema = doc.components.schemas[msg.payload.$ref.split('/').pop()];
      expect(schema).toMatchObject({ type: 'object' });
      // every $ref resolves inside the document
      for (const m of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas[m[1]]).toBeDefined();
    }
    expect(doc.components.schemas.ProfilesUpdatedPayload.required).toEqual(expect.arrayContaining(['module', 'kind', 'profileId', 'action']));
  });
});
