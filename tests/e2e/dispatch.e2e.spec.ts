import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';
import { publishFlow } from '../support/flows';

/** Route deployments dispatched through the gateway (issue 6 item 8). */

/** start -> render a greeting from the request -> end (or reject when the body says so). */
const greeter = (label: string) => ({
  name: `Greeter ${label}`,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: `${label}: order {{ input.params.id }} for {{ input.body.customer }} ({{ input.meta.session_id }})`, target: 'text' } },
    { id: 'end', name: 'End', kind: 'end' },
    { id: 'refuse', name: 'Refuse', kind: 'end', config: { status: 'rejected' } },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'refuse', condition: 'packet.body.customer == "mallory"' },
    { id: 'e3', from: 'render', to: 'end' },
  ],
  meta: { route: { method: 'POST', path: '/orders/{id}/greetings', success_status: 201, summary: 'Greet' } },
});

describe('route dispatcher through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let user: string;
  let api: string;

  const publish = (id: string, doc: unknown) => publishFlow(api, admin, id, doc);
  const greet = (id: string, body: unknown, bearer?: string, session?: string) =>
    call(`${api}/orders/${id}/greetings`, { method: 'POST', bearer, headers: { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) }, body: JSON.stringify(body) });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ROUTE_TIMEOUT_MS: '2000' }) });
    admin = await token('alice', ['admin:access']);
    user = await token('bob', ['orders:write']);
    api = `${platform.url}/api/v1`;
    await publish('greeter-a', greeter('A'));
    await publish('greeter-b', greeter('B'));
    const d = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ id: 'greetings', name: 'Greetings', kind: 'route', stickyBy: 'session_id', auth: { mode: 'perms', perms: ['orders:write'] }, variants: [{ label: 'stable', flowId: 'greeter-a', weight: 50 }, { label: 'canary', flowId: 'greeter-b', weight: 50 }] }),
    });
    expect(d.status).toBe(201);
  });
  afterAll(() => platform?.close());

  it('runs the variant flow with the request and answers its output with success_status', async () => {
    const res = await until(() => greet('42', { customer: 'Ada' }, user, 'sess-1'), (r) => r.status !== 404);
    expect(res.status).toBe(201);
    expect(res.body.text).toMatch(/^[AB]: order 42 for Ada \(sess-1\)$/);
    expect(res.headers.get('x-run-id')).toBeTruthy();
    // The run is recorded like any other.
    const run = await call(`${api}/runs/${res.headers.get('x-run-id')}`, { bearer: admin });
    expect(run.body).toMatchObject({ status: 'completed' });
  });

  it('keeps a session on its variant (sticky by X-Session-Id) and spreads sessions over both', async () => {
    const seen = new Map<string, Set<string>>();
    for (let s = 0; s < 30; s++) {
      for (let k = 0; k < 3; k++) {
        const res = await greet('1', { customer: 'Ada' }, user, `session-${s}`);
        const label = res.headers.get('x-variant')!;
        if (!seen.has(`session-${s}`)) seen.set(`session-${s}`, new Set());
        seen.get(`session-${s}`)!.add(label);
      }
    }
    for (const labels of seen.values()) expect(labels.size).toBe(1);
    const all = new Set([...seen.values()].flatMap((s) => [...s]));
    expect(all).toEqual(new Set(['stable', 'canary']));
  });

  it('enforces the deployment auth: 401 without or with a bad token, 403 without the perm', async () => {
    expect((await greet('1', { customer: 'Ada' })).status).toBe(401);
    expect((await greet('1', { customer: 'Ada' }, 'not-a-token')).status).toBe(401);
    expect((await greet('1', { customer: 'Ada' }, await token('carol', []))).status).toBe(403);
  });

  it('answers 422 with the message when the run is rejected, and 404 for unknown routes', async () => {
    const res = await greet('9', { customer: 'mallory' }, user);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, runId: expect.any(String) });
    expect((await call(`${api}/no/such/route`, { bearer: user })).status).toBe(404);
    expect((await call(`${api}/orders/1/greetings`, { method: 'GET', bearer: user })).status).toBe(404);
  });

  it('describes the route in the gateway openapi.json', async () => {
    const doc = await until(() => call(`${platform.url}/api/v1/openapi.json`), (r) => !!r.body?.paths?.['/api/v1/orders/{id}/greetings'], 1000);
    const op = doc.body.paths['/api/v1/orders/{id}/greetings'].post;
    expect(op).toMatchObject({ 'x-deployment-id': 'greetings', summary: 'Greet', security: [{ bearer: [] }] });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '404', '422', '500', '504']));
    expect(op.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it('unbinds a disabled deployment at once (404, gone from openapi.json within a second) and binds it again when re-enabled', async () => {
    const described = async () => !!(await call(`${platform.url}/api/v1/openapi.json`)).body?.paths?.['/api/v1/orders/{id}/greetings'];
    expect((await call(`${api}/deployments/greetings`, { method: 'PATCH', bearer: admin, ...json({ disabled: true }) })).status).toBe(200);
    const patchedAt = Date.now();
    const off = await until(() => greet('1', { customer: 'Ada' }, user), (r) => r.status === 404, 1000);
    expect(off.status).toBe(404);
    expect(await until(described, (d) => !d, 1000)).toBe(false);
    expect(Date.now() - patchedAt).toBeLessThan(1000);
    await call(`${api}/deployments/greetings`, { method: 'PATCH', bearer: admin, ...json({ disabled: false }) });
    const on = await until(() => greet('1', { customer: 'Ada' }, user), (r) => r.status === 201, 1000);
    expect(on.status).toBe(201);
    expect(await until(described, (d) => d, 1000)).toBe(true);
  });

  it('answers within a second for a deployment deleted and created again on the same route, and describes it as it is', async () => {
    const superAdmin = await token('root', ['admin:access', 'admin']);
    const describedBy = async () => (await call(`${platform.url}/api/v1/openapi.json`)).body?.paths?.['/api/v1/orders/{id}/greetings']?.post?.['x-deployment-id'] as string | undefined;
    const body = { id: 'greetings', name: 'Greetings', kind: 'route', auth: { mode: 'perms', perms: ['orders:write'] }, variants: [{ label: 'stable', flowId: 'greeter-a', weight: 1 }] };
    for (let round = 0; round < 2; round++) {
      expect((await call(`${api}/deployments/greetings`, { method: 'DELETE', bearer: superAdmin })).status).toBe(204);
      const deletedAt = Date.now();
      // The published flows are never left without a deployment: greeter-a's meta.route gives it
      // its own route deployment at once (default auth: any authenticated caller).
      const own = await until(() => greet('1', { customer: 'Ada' }, admin), (r) => r.status === 201, 1000);
      expect(own.body.text).toMatch(/^A: order 1 for Ada/);
      expect(await until(describedBy, (d) => d === 'route-post-orders-id-greetings', 1000)).toBe('route-post-orders-id-greetings');
      expect(Date.now() - deletedAt).toBeLessThan(1000);
      // Created again, the operator's deployment absorbs it and answers with its own auth.
      expect((await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json(body) })).status).toBe(201);
      const createdAt = Date.now();
      expect((await until(() => greet('1', { customer: 'Ada' }, admin), (r) => r.status === 403, 1000)).status).toBe(403);
      const back = await until(() => greet('1', { customer: 'Ada' }, user), (r) => r.status === 201, 1000);
      expect(back.status).toBe(201);
      expect(back.body.text).toMatch(/^A: order 1 for Ada/);
      expect(await until(describedBy, (d) => d === 'greetings', 1000)).toBe('greetings');
      expect(Date.now() - createdAt).toBeLessThan(1000);
    }
  });

  it('routes by specificity, not creation order: a static segment beats a parameter', async () => {
    const echo = (label: string) => ({ ...greeter(label), meta: {} });
    for (const id of ['cat-param', 'cat-static', 'shelf-static', 'shelf-param']) await publish(id, echo(id));
    const deploy = (id: string, route: string) => call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id, name: id, kind: 'route', auth: { mode: 'public' }, labels: { 'x-route': route }, variants: [{ label: 'stable', flowId: id, weight: 1 }] }) });
    // Parameter first, then the static route ...
    expect((await deploy('cat-param', 'POST /catalog/{id}/greetings')).status).toBe(201);
    expect((await deploy('cat-static', 'POST /catalog/special/greetings')).status).toBe(201);
    // ... and the other way round.
    expect((await deploy('shelf-static', 'POST /shelf/special/greetings')).status).toBe(201);
    expect((await deploy('shelf-param', 'POST /shelf/{id}/greetings')).status).toBe(201);
    const post = (path: string) => call(`${api}${path}`, { method: 'POST', ...json({ customer: 'Ada' }) });
    const served = async (path: string) => {
      const res = await until(() => post(path), (r) => r.status !== 404, 1000);
      // No meta.route on these flows: the default success status.
      expect(res.status).toBe(200);
      return res.body.text as string;
    };
    expect(await served('/catalog/special/greetings')).toMatch(/^cat-static: /);
    expect(await served('/catalog/42/greetings')).toMatch(/^cat-param: order 42 /);
    expect(await served('/shelf/special/greetings')).toMatch(/^shelf-static: /);
    expect(await served('/shelf/42/greetings')).toMatch(/^shelf-param: order 42 /);
  });

  it('refuses with 409 naming the owner a route on a path a service answers itself', async () => {
    await publish('squatter', { ...greeter('S'), meta: {} });
    const claim = (route: string) => call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ name: 'Squatter', kind: 'route', labels: { 'x-route': route }, variants: [{ label: 'stable', flowId: 'squatter', weight: 1 }] }) });
    for (const [route, owner] of [
      ['GET /flows/templates', 'flow-runtime'],
      ['GET /flows/{flowId}/versions', 'flow-runtime'],
      ['POST /runs/{id}/cancel', 'flow-runtime'],
      ['GET /search/status', 'search'],
      ['POST /admin/profiles/x', 'profiles'],
      ['GET /deployments/{id}/extra', 'deployments'],
      ['GET /assistant/config', 'assistant'],
      ['GET /openapi.json', 'gateway'],
      ['GET /profiles/healthz', 'gateway'],
    ]) {
      const res = await claim(route);
      expect({ route, status: res.status, code: res.body.code, owner: res.body.owner }).toEqual({ route, status: 409, code: 'ROUTE_OWNED', owner });
      expect(res.body.message).toContain(owner);
    }
    // A path no service answers is the dispatcher's.
    expect((await claim('POST /flowsheets/{id}')).status).toBe(201);
  });
});
