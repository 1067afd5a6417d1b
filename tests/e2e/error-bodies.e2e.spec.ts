import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayDefinition } from '@flowplane/gateway';
import { type RunningService, startService } from '@flowplane/platform/service';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { publishFlow } from '../support/flows';
import { call, json, testEnv, token, until } from '../support/http';
import { rawExchange } from './gateway-raw-http';

const CODE = /^[A-Z][A-Z0-9_]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_LIMIT = 64 * 1024;

/**
 * The status convention of every POST route (README "Errors and status codes"): 201 when it
 * creates, 200 when it acts, 202 when it only starts the act; `outcome` where the handler answers
 * per outcome (created or replaced, waited for or started). A new POST route must be added here.
 */
const POST_STATUS: Record<string, 200 | 201 | 202 | 'outcome'> = {
  'Flows.create': 201,
  'Flows.saveVersion': 201,
  'FlowDocuments.fromTemplate': 201,
  'Deployments.create': 201,
  'Deployments.fromTemplate': 201,
  'Profiles.duplicate': 201,
  'Flows.publish': 200,
  'ContentTranslations.run': 200,
  'ContentTranslations.approve': 200,
  'ContentTranslations.reject': 200,
  'Flows.rollback': 200,
  'Flows.unpublish': 200,
  'InternalSchedules.seed': 200,
  'Activation.activate': 200,
  'FlowDocuments.documents': 200,
  'Compile.compile': 200,
  'Compile.validate': 200,
  'Compile.tools': 200,
  'Gateway.busProbe': 200,
  'Profiles.resolve': 200,
  'Hub.broadcast': 200,
  'AdminSearch.upsert': 200,
  'AdminSearch.deleteDocuments': 200,
  'AdminSearch.reindex': 200,
  'Search.query': 200,
  'SearchNodes.upsert': 200,
  'SearchNodes.query': 200,
  'InternalIndexes.query': 200,
  'InternalIndexes.upsert': 200,
  'InternalIndexes.remove': 200,
  'Knowledge.ingest': 200,
  'RagContext.step': 200,
  'InternalDeployments.select': 200,
  'InternalDeployments.routeCheck': 200,
  'Deployments.select': 200,
  'Locales.create': 201,
  'Handoffs.create': 201,
  'InternalHandoffs.create': 201,
  'InternalRuns.start': 200,
  'InternalRuns.cancel': 202,
  'InternalLlmUsage.runs': 200,
  'AssistantChat.messages': 200,
  'AssistantChat.feedback': 200,
  'AssistantTemplates.resetPublic': 200,
  'AssistantTemplates.resetAdmin': 200,
  'Catalog.report': 200,
  'AdminReportKeys.report': 200,
  'Transfer.import': 200,
  'I18nNodes.translate': 200,
  'I18nNodes.resolveLocale': 200,
  'FillTranslationsNode.step': 200,
  'TranslateMissing.run': 200,
  'PendingTranslations.approve': 200,
  'PendingTranslations.reject': 200,
  'AiTranslate.translate': 200,
  'ReviewTranslations.review': 200,
  'Runs.cancel': 202,
  'Runs.start': 'outcome',
  'Profiles.upsert': 'outcome',
  'AdminSearch.create': 'outcome',
  'AdminTranslations.upsert': 'outcome',
};

/** Every POST handler of a Nest application with the status it answers by default (Nest: 201 without @HttpCode). */
function postRoutes(app: RunningService['app']): Array<{ name: string; status: number }> {
  const scanner = app.get(MetadataScanner);
  const out: Array<{ name: string; status: number }> = [];
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const instance = wrapper.instance as Record<string, object> | undefined;
    if (!instance || !wrapper.metatype) continue;
    for (const handler of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const fn = instance[handler];
      if (Reflect.getMetadata(PATH_METADATA, fn) === undefined || Reflect.getMetadata(METHOD_METADATA, fn) !== RequestMethod.POST) continue;
      out.push({ name: `${wrapper.metatype.name.replace(/Controller$/, '')}.${handler}`, status: (Reflect.getMetadata(HTTP_CODE_METADATA, fn) as number | undefined) ?? 201 });
    }
  }
  return out;
}

/** An answer with its headers as a plain lower-cased record, whatever client fetched it. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

async function get(url: string, init: Parameters<typeof call>[1] = {}): Promise<Answer> {
  const res = await call(url, init);
  return { status: res.status, headers: Object.fromEntries(res.headers), body: res.body, text: res.text };
}

/**
 * The standard error body (README "Errors"): statusCode, the reason phrase, an upper-case code, a
 * message and the request id of the X-Request-Id header; errorId on 5xx; never a stack.
 */
function expectErrorBody(res: Answer, status: number, code?: string): void {
  const where = `${status} ${code ?? ''}: ${res.text.slice(0, 300)}`;
  expect({ where, status: res.status }).toEqual({ where, status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ statusCode: status, error: STATUS_CODES[status], code: expect.stringMatching(CODE), message: expect.any(String) });
  expect(res.body.message).not.toBe('');
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  if (code) expect(res.body.code).toBe(code);
  if (status >= 500) expect(res.body.errorId).toMatch(UUID);
  else expect(res.body.errorId).toBeUndefined();
  expect(res.text).not.toMatch(/\n\s+at \S+ \(|node_modules/);
}

/** A WebSocket handshake; resolves the refusal (status, headers, body) or 101. */
function upgrade(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body, text });
      });
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: 101, headers: res.headers as Record<string, string>, body: undefined, text: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/**
 * One error body everywhere: every refusal a client can provoke through the gateway (auth, unknown
 * routes, bad and oversized bodies, headers, rate limits, WebSocket upgrades, unavailable and slow
 * services, readiness) answers the same JSON shape, and so does every route of every service.
 */
describe('one error body everywhere, through the gateway', () => {
  let platform: Standalone;
  let url: string;
  let api: string;
  let admin: string;
  let user: string;
  /** A gateway whose profiles and hub are down and whose search never answers. */
  let faulty: RunningService;
  /** A gateway allowing three requests a minute per client. */
  let limited: RunningService;
  let hanging: Server;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0', HTTP_BODY_LIMIT: `${BODY_LIMIT}` }) });
    url = platform.url;
    api = `${url}/api/v1`;
    admin = await token('alice', ['admin:access', 'profiles:read', 'profiles:write', 'search:index:write']);
    user = await token('bob', []);
    const upstreams = Object.fromEntries(platform.services.map((s) => [`${s.name.replace(/-/g, '_').toUpperCase()}_URL`, s.url]));
    const closed = createServer();
    const closedUrl = await listen(closed);
    await new Promise((r) => closed.close(r));
    hanging = createServer(() => undefined);
    const hangingUrl = await listen(hanging);
    faulty = await startService(gatewayDefinition, {
      bus: platform.bus,
      env: testEnv({ ...upstreams, GATEWAY_RATE_LIMIT: '0', GATEWAY_UPSTREAM_TIMEOUT_MS: '300', PROFILES_URL: closedUrl, HUB_URL: closedUrl, SEARCH_URL: hangingUrl }),
    });
    limited = await startService(gatewayDefinition, { bus: platform.bus, env: testEnv({ ...upstreams, GATEWAY_RATE_LIMIT: '3' }) });
  }, 60_000);

  afterAll(async () => {
    await limited?.close();
    await faulty?.close();
    hanging?.closeAllConnections();
    hanging?.close();
    await platform?.close();
  });

  describe('auth', () => {
    it('401 without a token or with an invalid one', async () => {
      expectErrorBody(await get(`${api}/deployments`), 401, 'UNAUTHORIZED');
      expectErrorBody(await get(`${api}/deployments`, { bearer: 'not-a-jwt' }), 401, 'UNAUTHORIZED');
    });

    it('403 without the permission', async () => {
      expectErrorBody(await get(`${api}/deployments`, { bearer: user }), 403, 'FORBIDDEN');
    });

    it('keeps a request id the client sent', async () => {
      const res = await get(`${api}/deployments`, { headers: { 'x-request-id': 'client-chosen-1' } });
      expectErrorBody(res, 401);
      expect(res.body.requestId).toBe('client-chosen-1');
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['a path under a service prefix no controller serves', '/api/v1/deployments/a/b/c'],
      ['a path no service and no route deployment owns', '/api/v1/no-such-thing'],
      ['a path outside the API', '/no-such-page'],
      ['a path under the hub mount', '/ws/no-such-route'],
    ])('404 ROUTE_NOT_FOUND for %s', async (_what, path) => {
      expectErrorBody(await get(`${url}${path}`, { bearer: admin }), 404, 'ROUTE_NOT_FOUND');
    });

    it('404 with the record code for an unknown record', async () => {
      expectErrorBody(await get(`${api}/deployments/nope`, { bearer: admin }), 404, 'DEPLOYMENT_NOT_FOUND');
    });
  });

  describe('bodies and headers', () => {
    it('400 INVALID_JSON for malformed JSON', async () => {
      expectErrorBody(await get(`${api}/deployments`, { method: 'POST', bearer: admin, headers: { 'content-type': 'application/json' }, body: '{"id":' }), 400, 'INVALID_JSON');
    });

    it('400 VALIDATION_FAILED with details for a DTO that does not validate', async () => {
      const res = await get(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ bogus: 1 }) });
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details).toEqual(expect.arrayContaining([{ field: 'bogus', problems: [expect.any(String)] }]));
    });

    it('413 BODY_TOO_LARGE for a body over the limit, declared or streamed', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
      expectErrorBody(await get(`${api}/deployments`, { method: 'POST', bearer: admin, headers: { 'content-type': 'application/json' }, body: big }), 413, 'BODY_TOO_LARGE');
      const chunked = await rawExchange(platform.gateway.port, [
        `POST /api/v1/deployments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        `${Buffer.byteLength(big).toString(16)}\r\n${big}\r\n0\r\n\r\n`,
      ]);
      expectErrorBody({ ...chunked, headers: chunked.headers }, 413, 'BODY_TOO_LARGE');
    });

    it('431 HEADERS_TOO_LARGE for oversized headers', async () => {
      const res = await rawExchange(platform.gateway.port, [`GET /api/v1/flows HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
      expectErrorBody(res, 431, 'HEADERS_TOO_LARGE');
    });
  });

  describe('route deployments', () => {
    it('422 FLOW_REJECTED when the dispatched flow rejects the request', async () => {
      await publishFlow(api, admin, 'error-bodies-refuser', {
        name: 'Refuser',
        nodes: [
          { id: 'start', name: 'Start', kind: 'start' },
          { id: 'refuse', name: 'Refuse', kind: 'end', config: { status: 'rejected' } },
        ],
        edges: [{ id: 'e1', from: 'start', to: 'refuse' }],
        meta: { route: { method: 'POST', path: '/error-bodies/refuse' } },
      });
      const res = await until(() => get(`${api}/error-bodies/refuse`, { method: 'POST', bearer: admin, ...json({}) }), (r) => r.status !== 404);
      expectErrorBody(res, 422, 'FLOW_REJECTED');
      expect(res.body.runId).toBe(res.headers['x-run-id']);
    });
  });

  describe('rate limits', () => {
    it('429 RATE_LIMITED with Retry-After on proxied routes, the gateway own routes and WebSocket upgrades', async () => {
      const base = limited.url;
      let res: Answer | undefined;
      for (let i = 0; i < 5; i++) {
        res = await get(`${base}/api/v1/flows`);
        if (res.status === 429) break;
      }
      expectErrorBody(res!, 429, 'RATE_LIMITED');
      expect(Number(res!.headers['retry-after'])).toBeGreaterThan(0);
      expectErrorBody(await get(`${base}/api/v1/health`), 429, 'RATE_LIMITED');
      const ws = await upgrade(base, '/ws/connect');
      expectErrorBody(ws, 429, 'RATE_LIMITED');
      expect(Number(ws.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('the hub', () => {
    it('answers its HTTP routes with the standard body', async () => {
      expectErrorBody(await get(`${url}/ws/info`), 401, 'UNAUTHORIZED');
      expectErrorBody(await get(`${url}/ws/broadcast/-bad-room`, { method: 'POST', bearer: admin, ...json({ hello: 1 }) }), 400, 'HUB_INVALID_ROOM');
    });

    it('refuses upgrades with the standard body, the request id kept from the gateway to the hub', async () => {
      const missing = await upgrade(url, '/ws/connect', { 'x-request-id': 'ws-upgrade-1' });
      expectErrorBody(missing, 401, 'UNAUTHORIZED');
      expect(missing.body.requestId).toBe('ws-upgrade-1');
      expectErrorBody(await upgrade(url, '/ws/connect?token=not-a-jwt'), 401, 'UNAUTHORIZED');
      expectErrorBody(await upgrade(url, `/ws/connect?token=${admin}`, { origin: 'https://evil.example.com' }), 403, 'ORIGIN_NOT_ALLOWED');
      expectErrorBody(await upgrade(url, `/ws/connect?token=${admin}&room=-bad`), 400, 'HUB_INVALID_ROOM');
      expectErrorBody(await upgrade(url, '/ws/nowhere'), 404, 'ROUTE_NOT_FOUND');
      // Refused by the gateway itself: not a hub path.
      expectErrorBody(await upgrade(url, '/api/v1/health'), 404, 'ROUTE_NOT_FOUND');
    });
  });

  describe('unavailable, slow and not-ready services', () => {
    it('503 SERVICE_UNAVAILABLE with an errorId for a service that is down', async () => {
      const res = await get(`${faulty.url}/api/v1/admin/profiles`, { bearer: admin });
      expectErrorBody(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.body.service).toBe('profiles');
    });

    it('504 UPSTREAM_TIMEOUT with an errorId for a service that does not answer', async () => {
      const res = await get(`${faulty.url}/api/v1/search/indexes`, { bearer: admin });
      expectErrorBody(res, 504, 'UPSTREAM_TIMEOUT');
      expect(res.body.service).toBe('search');
    });

    it('503 for a WebSocket upgrade when the hub is down', async () => {
      expectErrorBody(await upgrade(faulty.url, '/ws/connect'), 503, 'SERVICE_UNAVAILABLE');
    });

    it('503 NOT_READY from the health naming the services that are not ready', async () => {
      const res = await get(`${faulty.url}/api/v1/health`);
      expectErrorBody(res, 503, 'NOT_READY');
      expect(res.body.failing).toEqual(expect.arrayContaining(['profiles', 'hub', 'search']));
      expect(res.body.services.profiles).toMatchObject({ status: 'down', reason: expect.any(String) });
    });
  });

  describe('status conventions', () => {
    it('every POST route of every service answers 201 when it creates and 200 when it acts', () => {
      const routes = [platform.gateway, ...platform.services].flatMap((svc) => postRoutes(svc.app).map((r) => ({ ...r, name: r.name, service: svc.name })));
      expect(routes.length).toBeGreaterThan(20);
      const wrong = routes
        .filter((r) => POST_STATUS[r.name] === undefined || (POST_STATUS[r.name] !== 'outcome' && POST_STATUS[r.name] !== r.status))
        .map((r) => `${r.service} ${r.name}: answers ${r.status}, expected ${POST_STATUS[r.name] ?? 'a classification in POST_STATUS'}`);
      expect(wrong).toEqual([]);
    });

    it('the OpenAPI document declares the same success status for every POST', async () => {
      const doc = (await call(`${api}/openapi.json`)).body as { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown>; 'x-deployment-id'?: string }>> };
      // Routes of route deployments answer what their flow says (meta.route.success_status).
      const declared = Object.values(doc.paths).flatMap((ops) => (ops.post && !ops.post['x-deployment-id'] ? [ops.post] : []));
      expect(declared.length).toBeGreaterThan(15);
      for (const op of declared) {
        // operationId: <service>_<Controller>_<handler>
        const name = op.operationId!.split('_').slice(1).join('.');
        const success = Object.keys(op.responses ?? {}).filter((c) => c.startsWith('2'));
        const expected = POST_STATUS[name];
        expect({ name, success: expected === 'outcome' ? success.length > 1 : success }).toEqual({ name, success: expected === 'outcome' ? true : [String(expected)] });
      }
    });
  });

  describe('every service', () => {
    // Representative refusals of each service, through the gateway.
    const cases: Array<[service: string, method: string, path: string, who: 'none' | 'user' | 'admin', body: unknown, status: number]> = [
      ['flow-runtime', 'GET', '/api/v1/flows', 'none', undefined, 401],
      ['flow-runtime', 'GET', '/api/v1/flows/no-such-flow', 'admin', undefined, 404],
      ['flow-runtime', 'POST', '/api/v1/flows', 'admin', { name: 7 }, 400],
      ['flow-runtime', 'GET', '/api/v1/runs/no-such-run', 'admin', undefined, 404],
      ['flow-runtime', 'GET', '/api/v1/flows/templates/no-such-template', 'admin', undefined, 404],
      ['flow-runtime', 'POST', '/api/v1/flows/no-such-flow/runs', 'user', {}, 403],
      ['deployments', 'GET', '/api/v1/deployments', 'user', undefined, 403],
      ['deployments', 'PATCH', '/api/v1/deployments/no-such-deployment', 'admin', { disabled: true }, 404],
      ['profiles', 'GET', '/api/v1/admin/profiles', 'none', undefined, 401],
      ['profiles', 'GET', '/api/v1/admin/profiles/no-such-module/no-such-kind/no-such-id', 'admin', undefined, 404],
      ['profiles', 'POST', '/api/v1/admin/profiles', 'admin', { bogus: true }, 400],
      ['search', 'GET', '/api/v1/admin/search/indexes', 'none', undefined, 401],
      ['search', 'POST', '/api/v1/search/indexes/no-such-index/query', 'admin', { limit: 'many' }, 400],
      ['assistant', 'GET', '/api/v1/assistant/no-such-route', 'admin', undefined, 404],
      ['i18n', 'GET', '/api/v1/i18n/no-such-route', 'admin', undefined, 404],
      ['i18n', 'GET', '/api/v1/pages/no-such-page', 'none', undefined, 404],
      ['i18n', 'PUT', '/api/v1/admin/content/pages/Not_A_Slug', 'admin', { title: {}, body: {} }, 400],
      ['i18n', 'PUT', '/api/v1/admin/content/fragments/footer', 'admin', { data: { $where: 1 } }, 400],
      ['i18n', 'DELETE', '/api/v1/admin/content/fragments/no-such-fragment', 'admin', undefined, 404],
      ['hub', 'GET', '/ws/info', 'user', undefined, 200],
      ['hub', 'POST', '/ws/broadcast/room-1', 'none', { hello: 1 }, 401],
      ['gateway', 'GET', '/api/v1/admin/system', 'user', undefined, 403],
      ['gateway', 'POST', '/api/v1/admin/system/bus-probe', 'none', undefined, 401],
    ];

    it.each(cases)('%s: %s %s (token: %s, body: %j) answers %i', async (_service, method, path, who, body, status) => {
      const bearer = who === 'admin' ? admin : who === 'user' ? user : undefined;
      const res = await get(`${url}${path}`, { method, bearer, ...(body === undefined ? {} : json(body)) });
      if (status < 400) expect(res.status).toBe(status);
      else expectErrorBody(res, status);
    });

    it('every operation of the merged OpenAPI document, called without a token, answers the standard body when it refuses', async () => {
      const doc = (await call(`${api}/openapi.json`)).body as { paths: Record<string, Record<string, unknown>> };
      const refused: string[] = [];
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
          // Absolute paths (the hub mount) are served as they are; the others under /api/v1.
          const target = (path.startsWith('/api/') || path.startsWith('/ws') ? path : `/api/v1${path}`).replace(/\{[^}]+\}/g, 'x');
          const res = await get(`${url}${target}`, { method: method.toUpperCase(), ...(method === 'get' || method === 'delete' ? {} : json({})) });
          if (res.status < 400) continue;
          refused.push(`${method} ${path}`);
          expectErrorBody(res, res.status);
        }
      }
      expect(refused.length).toBeGreaterThan(30);
    });
  });
});
