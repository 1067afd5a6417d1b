import { Parser } from '@asyncapi/parser';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { listRoutes } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';
import { publishFlow } from '../support/flows';

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer?: string;
}

type Operation = { operationId?: string; summary?: string; security?: unknown[]; parameters?: Array<{ in: string }>; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Redocly's `recommended` ruleset over a document, in a child process (tests/support/redocly-lint.mjs). */
function redoclyLint(doc: unknown): Promise<Problem[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [join(__dirname, '../support/redocly-lint.mjs')], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`redocly lint failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Problem[]);
    });
    child.stdin!.end(JSON.stringify(doc));
  });
}

function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}

/** `/flows/:id` → `/api/v1/flows/{id}`; hub routes keep their top-level path. */
function openApiPath(route: string): string {
  return `${/^\/ws(\/|$)/.test(route) ? '' : '/api/v1'}${route}`.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}').replace(/(.)\/$/, '$1');
}

/**
 * The status each route answers on success, by `method path` as OpenAPI writes it: its `@HttpCode`,
 * else Nest's default (201 for POST, 200 otherwise). Handlers that take the response object
 * (`@Res()`) set their own status and are left out.
 */
function successStatuses(app: INestApplication): Map<string, number> {
  const out = new Map<string, number>();
  const scanner = app.get(MetadataScanner);
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const instance = wrapper.instance as Record<string, object> | undefined;
    if (!instance || !wrapper.metatype) continue;
    const base = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype) ?? '');
    for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const fn = instance[name];
      const path = Reflect.getMetadata(PATH_METADATA, fn) as string | undefined;
      if (path === undefined) continue;
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, wrapper.metatype, name) ?? {}) as Record<string, unknown>;
      if (Object.keys(args).some((k) => Number(k.split(':')[0]) === RouteParamtypes.RESPONSE)) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, fn) as number];
      const status = (Reflect.getMetadata(HTTP_CODE_METADATA, fn) as number | undefined) ?? (method === 'POST' ? 201 : 200);
      out.set(`${method.toLowerCase()} ${openApiPath(`/${base}/${path}`.replace(/\/+/g, '/'))}`, status);
    }
  }
  return out;
}

/**
 * The API documents third-party tools read: the merged OpenAPI document passes Redocly's recommended
 * ruleset with no error (every operation its own security, summary and error answers; servers; no
 * nullable without a type), and the AsyncAPI document passes @asyncapi/parser, routes and events
 * contributed by deployments included.
 */
describe('API documents under third-party validators', () => {
  let platform: Standalone;
  let api: string;
  let openapi: { security?: unknown; servers?: unknown[]; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
  const statuses = new Map<string, number>();
  const publicPaths = new Set<string>();
  const protectedPaths = new Set<string>();

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    const admin = await token('alice', ['admin:access']);
    for (const svc of [platform.gateway, ...platform.services]) {
      for (const r of listRoutes(svc.app)) (r.access?.public ? publicPaths : protectedPaths).add(`${r.method.toLowerCase()} ${openApiPath(r.path)}`);
      for (const [key, status] of successStatuses(svc.app)) statuses.set(key, status);
    }
    // Deployments contribute routes (public and protected) and events to both documents.
    const routeFlow = (path: string) => ({
      name: 'Quote',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [{ id: 'e1', from: 'start', to: 'end' }],
      meta: { route: { method: 'POST', path, success_status: 200 }, packets: { Quote: { type: 'object', properties: { total: { type: 'number', nullable: true } } } } },
    });
    await publishFlow(api, admin, 'lint-quote', routeFlow('/lint/quotes/{id}'));
    await publishFlow(api, admin, 'lint-open', routeFlow('/lint/open'));
    await publishFlow(api, admin, 'lint-on-order', {
      name: 'On order',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'lint.orders.created', groupID: 'lint-on-order' } },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [{ id: 'e1', from: 'start', to: 'end' }],
    });
    const deployments = [
      { id: 'lint-quotes', name: 'Quotes', kind: 'route', auth: { mode: 'perms', perms: ['quotes:read'] }, variants: [{ label: 'stable', flowId: 'lint-quote', weight: 1 }] },
      { id: 'lint-open', name: 'Open', kind: 'route', auth: { mode: 'public' }, variants: [{ label: 'stable', flowId: 'lint-open', weight: 1 }] },
      { id: 'lint-orders', name: 'Orders', kind: 'subscriber', variants: [{ label: 'stable', flowId: 'lint-on-order', weight: 1 }] },
    ];
    for (const d of deployments) expect((await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json(d) })).status).toBe(201);
    const res = await until(
      () => call(`${api}/openapi.json`),
      (r) => !!r.body?.paths?.['/api/v1/lint/quotes/{id}'] && !!r.body?.paths?.['/api/v1/lint/open'],
      10_000,
    );
    expect(res.status).toBe(200);
    openapi = res.body;
  });
  afterAll(() => platform?.close());

  const operations = () =>
    Object.entries(openapi.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({ key: `${method} ${path}`, op: item[method] })),
    );

  it('is merged from every service, with the deployed routes', () => {
    expect((openapi as { 'x-unavailable-services'?: string[] })['x-unavailable-services']).toBeUndefined();
    expect(operations().length).toBeGreaterThan(60);
  });

  it('passes Redocly recommended with 0 errors', async () => {
    const problems = await redoclyLint(openapi);
    const errors = problems.filter((p) => p.severity === 'error');
    const warnings = problems.filter((p) => p.severity === 'warn');
    console.log(`Redocly recommended on the merged OpenAPI document: ${errors.length} errors, ${warnings.length} warnings ${JSON.stringify(countBy(warnings, (p) => p.ruleId))}`);
    expect(errors.map((p) => `${p.ruleId} at ${p.pointer}: ${p.message}`)).toEqual([]);
  });

  it('names the security of every operation, [] on public routes only, with no document-level default', () => {
    expect(openapi.security).toBeUndefined();
    expect(openapi.servers?.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const { key, op } of operations()) {
      if (!Array.isArray(op.security)) wrong.push(`${key}: no security`);
      else if (publicPaths.has(key) && op.security.length) wrong.push(`${key}: public but ${JSON.stringify(op.security)}`);
      else if (protectedPaths.has(key) && JSON.stringify(op.security) !== '[{"bearer":[]}]') wrong.push(`${key}: protected but ${JSON.stringify(op.security)}`);
    }
    expect(wrong).toEqual([]);
    // The gateway's own documents, a public settings read, and a public deployed route.
    expect(openapi.paths['/api/v1/openapi.json'].get.security).toEqual([]);
    expect(openapi.paths['/api/v1/lint/open'].post.security).toEqual([]);
    expect(openapi.paths['/api/v1/lint/quotes/{id}'].post.security).toEqual([{ bearer: [] }]);
  });

  it('gives every operation a summary and its 4xx answers, each with the standard error body', () => {
    const wrong: string[] = [];
    for (const { key, op } of operations()) {
      const has = (status: string) => (op.responses[status] ? [] : [status]);
      const pathParams = key.includes('{');
      const queryParams = (op.parameters ?? []).some((p) => p.in === 'query');
      const missing = [
        ...has('429'),
        ...(op.requestBody || pathParams || queryParams ? has('400') : []),
        ...(op.requestBody ? has('413') : []),
        ...(pathParams ? has('404') : []),
        ...(Array.isArray(op.security) && op.security.length ? has('401') : []),
      ];
      if (!op.summary) wrong.push(`${key}: no summary`);
      if (missing.length) wrong.push(`${key}: no ${missing.join(', ')}`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 400 && !response.content) wrong.push(`${key}: ${status} has no body`);
      }
    }
    expect(wrong).toEqual([]);
    const quote = openapi.paths['/api/v1/lint/quotes/{id}'].post.responses;
    expect(Object.keys(quote)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '413', '429']));
    expect(quote['401'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBodyDto' });
    expect(openapi.components.schemas.ErrorBodyDto).toMatchObject({ required: expect.arrayContaining(['statusCode', 'error', 'code', 'message', 'requestId']) });
  });

  it('documents the success status each route answers with', () => {
    const wrong: string[] = [];
    for (const { key, op } of operations()) {
      const status = statuses.get(key);
      const documented = Object.keys(op.responses).filter((s) => /^2/.test(s));
      if (status !== undefined && !documented.includes(String(status))) wrong.push(`${key}: answers ${status}, documents ${documented.join(', ') || 'no 2xx'}`);
    }
    expect(statuses.size).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it('describes events so that @asyncapi/parser finds 0 errors, every message with a messageId', async () => {
    const described = await until(
      () => call(`${api}/asyncapi.yaml`),
      (r) => r.text.includes('lint.orders.created'),
      10_000,
    );
    expect(described.status).toBe(200);
    const diagnostics = await new Parser().validate(described.text);
    const errors = diagnostics.filter((d) => d.severity === 0);
    const warnings = diagnostics.filter((d) => d.severity === 1);
    console.log(`@asyncapi/parser on the AsyncAPI document: ${errors.length} errors, ${warnings.length} warnings ${JSON.stringify(countBy(warnings, (d) => String(d.code)))}`);
    expect(errors.map((d) => `${d.code} at /${d.path.join('/')}: ${d.message}`)).toEqual([]);
    expect(warnings.filter((d) => d.code === 'asyncapi2-message-messageId').map((d) => `/${d.path.join('/')}`)).toEqual([]);
  });
});
