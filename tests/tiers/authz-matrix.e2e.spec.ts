import { internalPermsFor } from '@flowplane/contracts';
import { listRoutes } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { publishFlow } from '../support/flows';
import { call, json, serviceToken, testEnv, token } from '../support/http';
import { badTokens, fetchOpenApi, fillPath, missingPermToken, type Op, type OpenApiDoc, operations, pool, rightToken, securityOf, send } from './openapi-operations';

/**
 * Tier 1, the authorization matrix: every operation of the merged OpenAPI document (deployed routes
 * included) called with no token, an expired token, a token signed with another secret, an
 * `alg: none` token, an inactive user, a user missing one permission and the least user the
 * operation admits. The expected answer comes from the document alone: `security: []` is public
 * (no credential is ever refused with 401/403), the bearer scheme is protected and its `x-access`
 * names what a token needs (every bad credential 401, an inactive user 403 when `active` is asked,
 * a missing permission 403, the right token neither). An operation whose `security` is missing or
 * disagrees with `x-access` fails the tier. Internal routes (`/internal/*`, outside the document)
 * are called on each service directly with service tokens: no token or a token for another
 * service 401, a user token or a service token without the route's permission 403.
 */

type Expect = 'allowed' | 401 | 403;
interface Case {
  key: string;
  credential: string;
  method: string;
  url: string;
  bearer?: string;
  body?: string;
  expect: Expect;
}

const CONCURRENCY = Number(process.env.AUTHZ_CONCURRENCY ?? 8);

function judge(expect: Expect, status: number | 'hang' | 'reset'): boolean {
  if (typeof status !== 'number') return expect === 'allowed' && status === 'hang';
  if (expect === 'allowed') return status !== 401 && status !== 403;
  return status === expect;
}

describe('tier 1: authorization matrix from the merged OpenAPI document', () => {
  let platform: Standalone;
  let doc: OpenApiDoc;
  let ops: Op[];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '1000000', ASSISTANT_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '0' }) });
    const api = `${platform.url}/api/v1`;
    const admin = await token('tier-admin', ['admin:access'], { superuser: true });
    // Deployed routes (public, any user, one permission) join the document like any other operation.
    const routeFlow = (path: string) => ({
      name: 'Echo',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [{ id: 'e1', from: 'start', to: 'end' }],
      meta: { route: { method: 'POST', path, success_status: 200 } },
    });
    await publishFlow(api, admin, 'tier-perms', routeFlow('/tier/perms/{id}'));
    await publishFlow(api, admin, 'tier-user', routeFlow('/tier/user'));
    await publishFlow(api, admin, 'tier-open', routeFlow('/tier/open'));
    const deployments = [
      { id: 'tier-perms', name: 'Perms', kind: 'route', auth: { mode: 'perms', perms: ['tier:read'] }, variants: [{ label: 'stable', flowId: 'tier-perms', weight: 1 }] },
      { id: 'tier-user', name: 'User', kind: 'route', auth: { mode: 'authenticated' }, variants: [{ label: 'stable', flowId: 'tier-user', weight: 1 }] },
      { id: 'tier-open', name: 'Open', kind: 'route', auth: { mode: 'public' }, variants: [{ label: 'stable', flowId: 'tier-open', weight: 1 }] },
    ];
    for (const d of deployments) expect((await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json(d) })).status).toBe(201);
    for (let i = 0; i < 100; i++) {
      doc = await fetchOpenApi(platform.url);
      if (doc.paths['/api/v1/tier/perms/{id}'] && doc.paths['/api/v1/tier/user'] && doc.paths['/api/v1/tier/open']) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    ops = operations(doc);
  }, 60_000);
  afterAll(() => platform?.close());

  it('every operation names a consistent policy: security [] without x-access, or the bearer scheme with x-access', () => {
    const inconsistent = ops.filter((o) => securityOf(o) === 'inconsistent').map((o) => `${o.key}: security ${JSON.stringify(o.op.security)}, x-access ${JSON.stringify(o.op['x-access'])}`);
    expect(ops.length).toBeGreaterThan(60);
    expect(doc.paths['/api/v1/tier/perms/{id}'].post['x-access']).toEqual({ active: true, allPerms: ['tier:read'] });
    expect(doc.paths['/api/v1/tier/open'].post.security).toEqual([]);
    expect(inconsistent).toEqual([]);
  });

  it('counts an operation without security, or protected without x-access, as inconsistent', () => {
    const op = (extra: object): Op => ({ method: 'get', path: '/api/v1/new', key: 'GET /api/v1/new', params: [], op: { responses: {}, ...extra } });
    expect(securityOf(op({}))).toBe('inconsistent');
    expect(securityOf(op({ security: [{ bearer: [] }] }))).toBe('inconsistent');
    expect(securityOf(op({ security: [], 'x-access': { allPerms: ['x'] } }))).toBe('inconsistent');
    expect(securityOf(op({ security: [{ apiKey: [] }], 'x-access': {} }))).toBe('inconsistent');
    expect(securityOf(op({ security: [{ bearer: [] }], 'x-access': {} }))).toBe('protected');
    expect(securityOf(op({ security: [] }))).toBe('public');
  });

  it('answers every credential as the document says, with 0 unexpected 2xx', async () => {
    const bad = await badTokens();
    const cases: Case[] = [];
    for (const o of ops) {
      const kind = securityOf(o);
      if (kind === 'inconsistent') continue;
      const url = `${platform.url}${fillPath(doc, o)}`;
      const body = o.op.requestBody ? '{}' : undefined;
      const add = (credential: string, bearer: string | undefined, expect: Expect) => cases.push({ key: o.key, credential, method: o.method.toUpperCase(), url, bearer, body, expect });
      if (kind === 'public') {
        add('no token', undefined, 'allowed');
        for (const [name, t] of Object.entries(bad)) add(name, t, 'allowed');
        continue;
      }
      const policy = o.op['x-access']!;
      add('no token', undefined, 401);
      for (const [name, t] of Object.entries(bad)) add(name, t, 401);
      add('inactive user', await rightToken(policy, 'tier-user', { active: false }), policy.active ? 403 : 'allowed');
      const missing = missingPermToken(policy);
      if (missing) add('missing permission', await missing, 403);
      add('right permission', await rightToken(policy), 'allowed');
    }
    // Refusals first, the admitted calls (which may act) last, so no act changes a later refusal.
    cases.sort((a, b) => Number(a.expect === 'allowed') - Number(b.expect === 'allowed'));
    const started = Date.now();
    const results = await pool(cases, CONCURRENCY, async (c) => {
      const r = await send(c.url, { method: c.method, bearer: c.bearer, body: c.body, headers: c.body ? { 'content-type': 'application/json' } : {}, statusOnly: true, timeoutMs: 10_000 });
      return { ...c, status: r.status };
    });
    const unexpected = results.filter((r) => !judge(r.expect, r.status));
    const unexpected2xx = unexpected.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300);
    const protectedOps = ops.filter((o) => securityOf(o) === 'protected').length;
    console.log(
      `authz matrix: ${ops.length} operations (${protectedOps} protected, ${ops.length - protectedOps} public), ${cases.length} cases, ${unexpected.length} unexpected (${unexpected2xx.length} unexpected 2xx) in ${Date.now() - started} ms` +
        (unexpected.length ? `\n${unexpected.map((u) => `  ${u.key} [${u.credential}] expected ${u.expect}, got ${u.status}`).join('\n')}` : ''),
    );
    expect(unexpected.map((u) => `${u.key} [${u.credential}] expected ${u.expect}, got ${u.status}`)).toEqual([]);
  }, 120_000);

  it('refuses internal routes to anything but a service token for the service with the route permission', async () => {
    const cases: Case[] = [];
    const undeclared: string[] = [];
    let routes = 0;
    const superuser = await token('tier-admin', ['admin:access'], { superuser: true });
    for (const svc of [platform.gateway, ...platform.services]) {
      for (const r of listRoutes(svc.app)) {
        if (!r.access?.internal) continue;
        routes++;
        const key = `${svc.name} ${r.method} ${r.path}`;
        const perms = r.access.internalPerms ?? [];
        // The route's permission and the contracts table agree, so clients ask for the token the route checks.
        if (JSON.stringify(perms) !== JSON.stringify(internalPermsFor(svc.name, r.method, r.path))) undeclared.push(`${key}: declares ${JSON.stringify(perms)}, INTERNAL_ROUTES says ${JSON.stringify(internalPermsFor(svc.name, r.method, r.path))}`);
        const url = `${svc.url}${r.path.replace(/:([A-Za-z0-9_]+)\??/g, (_, n: string) => `tier-${n.toLowerCase()}-1`)}`;
        const body = ['POST', 'PUT', 'PATCH'].includes(r.method) ? '{}' : undefined;
        const other = svc.name === 'profiles' ? 'search' : 'profiles';
        const add = (credential: string, bearer: string | undefined, expect: Expect) => cases.push({ key, credential, method: r.method, url, bearer, body, expect });
        add('no token', undefined, 401);
        add('superuser user token', superuser, 403);
        add('wrong audience', await serviceToken('gateway', other, perms), 401);
        if (perms.length) add('missing permission', await serviceToken('gateway', svc.name, ['internal:unrelated']), 403);
        add('right permission', await serviceToken('gateway', svc.name, perms), 'allowed');
      }
    }
    cases.sort((a, b) => Number(a.expect === 'allowed') - Number(b.expect === 'allowed'));
    const results = await pool(cases, CONCURRENCY, async (c) => ({ ...c, status: (await send(c.url, { method: c.method, bearer: c.bearer, body: c.body, headers: c.body ? { 'content-type': 'application/json' } : {}, statusOnly: true })).status }));
    const unexpected = results.filter((r) => !judge(r.expect, r.status));
    const unexpected2xx = unexpected.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300);
    console.log(
      `authz matrix, internal routes: ${routes} routes, ${cases.length} cases, ${unexpected.length} unexpected (${unexpected2xx.length} unexpected 2xx)` +
        (unexpected.length ? `\n${unexpected.map((u) => `  ${u.key} [${u.credential}] expected ${u.expect}, got ${u.status}`).join('\n')}` : ''),
    );
    expect(routes).toBeGreaterThan(20);
    expect(undeclared).toEqual([]);
    expect(unexpected.map((u) => `${u.key} [${u.credential}] expected ${u.expect}, got ${u.status}`)).toEqual([]);
  }, 60_000);
});
