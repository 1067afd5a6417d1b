import { parse as parseYaml } from 'yaml';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';
import { publishFlow } from '../support/flows';

/** Deployments through the gateway (issue 6 items 1-7). */

const routeFlow = (route?: { method: string; path: string; success_status?: number; summary?: string }) => ({
  name: 'Route flow',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'emit', name: 'Emit', kind: 'action', action_ref: 'svc/emit-event', config: { topic: 'orders.accepted' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'emit' },
    { id: 'e2', from: 'emit', to: 'end', port: 'out' },
  ],
  meta: { ...(route ? { route } : {}), packets: { Order: { type: 'object' } } },
});

const eventFlow = {
  name: 'On order',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'orders.created', groupID: 'on-order' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'end' }],
};

describe('deployments through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let superAdmin: string;
  let api: string;

  const flow = (id: string, doc: unknown) => publishFlow(api, admin, id, doc);

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    superAdmin = await token('root', ['admin:access', 'admin']);
    api = `${platform.url}/api/v1`;
    await flow('orders-v1', routeFlow({ method: 'post', path: '/orders/{id}/items/', success_status: 201, summary: 'Add an item' }));
    await flow('orders-v2', routeFlow({ method: 'POST', path: '/orders/{id}/items' }));
    await flow('plain', routeFlow());
    await flow('on-order', eventFlow);
  });
  afterAll(() => platform?.close());

  it('creates a route deployment whose route comes from the stable flow, with tags and contributes', async () => {
    const res = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ id: 'orders-items', name: 'Order items', kind: 'route', labels: { 'x-source': 'shop', 'tag:beta': '', owner: 'team-a' }, variants: [{ label: 'stable', flowId: 'orders-v1', weight: 90 }, { label: 'canary', flowId: 'orders-v2', weight: 10 }] }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: 'orders-items',
      kind: 'route',
      disabled: false,
      tags: ['beta', 'shop'],
      route: { method: 'POST', path: '/orders/{id}/items' },
      auth: { mode: 'authenticated' },
      contributes: {
        routes: [{ method: 'POST', path: '/orders/{id}/items', success_status: 201, summary: 'Add an item' }],
        events: [{ name: 'orders.accepted', direction: 'publish' }],
        packets: [{ name: 'Order', $ref: '#/components/schemas/Order' }],
      },
    });
    const list = await call(`${api}/deployments`, { bearer: admin });
    expect(list.body.map((d: { id: string }) => d.id)).toContain('orders-items');
  });

  it("contributes each route with the summary the OpenAPI description shows, and the packets the flow declares", async () => {
    await flow('unsummarised', routeFlow());
    const res = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ id: 'plain-things', name: 'Plain things', kind: 'route', labels: { 'x-route': 'GET /plain/things' }, variants: [{ label: 'stable', flowId: 'unsummarised', weight: 1 }] }),
    });
    expect(res.status).toBe(201);
    expect(res.body.contributes.routes).toEqual([{ method: 'GET', path: '/plain/things', success_status: 200, summary: 'Plain things (GET /plain/things)' }]);
    expect(res.body.contributes.packets).toEqual([{ name: 'Order', $ref: '#/components/schemas/Order' }]);
    const described = await until(() => call(`${platform.url}/api/v1/openapi.json`), (r) => !!r.body?.paths?.['/api/v1/plain/things'], 1000);
    expect(described.body.paths['/api/v1/plain/things'].get.summary).toBe(res.body.contributes.routes[0].summary);
    expect(described.body.components.schemas.Order).toEqual({ type: 'object' });
    // A declared summary is carried as it is.
    expect((await call(`${api}/deployments/orders-items`, { bearer: admin })).body.contributes.routes[0].summary).toBe('Add an item');
  });

  it('answers 409 with the spec body when another deployment claims the same route (parameters by position)', async () => {
    const res = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ name: 'Thief', kind: 'route', labels: { 'x-route': 'post /orders/{orderId}/items' }, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] }),
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ conflicting_deployment_id: 'orders-items', conflicting_deployment_name: 'Order items', method: 'POST', path: '/orders/{id}/items', detail: expect.stringContaining('Order items') });
    // A disabled deployment keeps its claim.
    expect((await call(`${api}/deployments/orders-items`, { method: 'PATCH', bearer: admin, ...json({ disabled: true }) })).body.disabled).toBe(true);
    const again = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ name: 'Thief', kind: 'route', labels: { 'x-route': 'POST /orders/{x}/items' }, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] }) });
    expect(again.status).toBe(409);
    // A PATCH moving another deployment onto the route conflicts too.
    const other = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'other-route', name: 'Other', kind: 'route', labels: { 'x-route': 'GET /other' }, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] }) });
    expect(other.status).toBe(201);
    const moved = await call(`${api}/deployments/other-route`, { method: 'PATCH', bearer: admin, ...json({ labels: { 'x-route': 'POST /orders/{a}/items' } }) });
    expect(moved.status).toBe(409);
    expect(moved.body.conflicting_deployment_id).toBe('orders-items');
  });

  it('rejects bad input with the fields: unknown kind, negative weight, empty variants, unknown flow, missing route', async () => {
    const bad = async (body: unknown) => call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json(body) });
    const kind = await bad({ name: 'x', kind: 'cron', variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] });
    expect(kind.status).toBe(400);
    expect(JSON.stringify(kind.body.details)).toContain('kind');
    const weight = await bad({ name: 'x', kind: 'route', labels: { 'x-route': 'GET /w' }, variants: [{ label: 'stable', flowId: 'plain', weight: -1 }] });
    expect(weight.status).toBe(400);
    expect(JSON.stringify(weight.body.details)).toContain('weight');
    const empty = await bad({ name: 'x', kind: 'route', variants: [] });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body.details)).toContain('variants');
    const unknown = await bad({ name: 'x', kind: 'route', labels: { 'x-route': 'GET /u' }, variants: [{ label: 'stable', flowId: 'nope', weight: 1 }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'variants.0.flowId', problems: ['no flow nope'] }]);
    const noRoute = await bad({ name: 'x', kind: 'route', variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] });
    expect(noRoute.status).toBe(400);
    expect(noRoute.body.details[0].field).toBe('labels.x-route');
    const badLabel = await bad({ name: 'x', kind: 'route', labels: { 'x-route': 'FETCH /x' }, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] });
    expect(badLabel.status).toBe(400);
    const extra = await bad({ name: 'x', kind: 'route', hack: true, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] });
    expect(extra.status).toBe(400);
    expect((await call(`${api}/deployments/nope`, { bearer: admin })).status).toBe(404);
    const dup = await bad({ id: 'orders-items', name: 'x', kind: 'subscriber', labels: { 'x-event': 'a.b' }, variants: [{ label: 'stable', flowId: 'on-order', weight: 1 }] });
    expect(dup.status).toBe(409);
  });

  it('validates labels with 400 before looking at flows: keys, x-route, x-event (a topic name) and x-event-filter (with the column)', async () => {
    const bad = async (labels: Record<string, string>, kind = 'subscriber', flowId = 'no-such-flow') =>
      call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ name: 'Labels', kind, labels, variants: [{ label: 'stable', flowId, weight: 1 }] }) });
    const fields = (res: { body: { details?: Array<{ field: string; problems: string[] }> } }) => (res.body.details ?? []).map((d) => d.field);

    const topic = await bad({ 'x-event': 'Orders Created!' });
    expect(topic.status).toBe(400);
    // The unknown flow is not even looked at.
    expect(fields(topic)).toEqual(['labels.x-event']);
    expect((await bad({ 'x-event': `t${'x'.repeat(249)}` })).status).toBe(400);
    // A valid topic passes the label check; only then is the flow looked up.
    expect(fields(await bad({ 'x-event': 'orders.created_v2-eu' }))).toEqual(['variants.0.flowId']);

    const filter = await bad({ 'x-event': 'orders.created', 'x-event-filter': 'payload.total >' });
    expect(filter.status).toBe(400);
    expect(filter.body.details).toEqual([{ field: 'labels.x-event-filter', problems: [expect.stringMatching(/column 16/)] }]);
    expect(fields(await bad({ 'x-event-filter': 'payload.kind == "a" &&' }))).toEqual(['labels.x-event-filter']);

    const key = await bad({ 'Owner Team': 'a', 'x-event': 'orders.created' });
    expect(key.status).toBe(400);
    expect(fields(key)).toEqual(['labels.Owner Team']);
    expect(fields(await bad({ 'tag:ÿ': '' }))).toEqual(['labels.tag:ÿ']);

    const route = await bad({ 'x-route': 'orders' }, 'route');
    expect(route.status).toBe(400);
    expect(fields(route)).toEqual(['labels.x-route']);
    expect(fields(await bad({ 'x-route': 'GET orders/{id}' }, 'route'))).toEqual(['labels.x-route']);

    // PATCH: the same checks, before the deployment is even read.
    const patch = await call(`${api}/deployments/no-such-deployment`, { method: 'PATCH', bearer: admin, ...json({ labels: { 'x-event': 'UPPER' } }) });
    expect(patch.status).toBe(400);
    expect(fields(patch)).toEqual(['labels.x-event']);
  });

  it('checks a PATCH of auth or stickyBy alone as strictly as a create (no perms-mode route open to everyone)', async () => {
    const patch = (body: unknown) => call(`${api}/deployments/orders-items`, { method: 'PATCH', bearer: admin, ...json(body) });
    const noPerms = await patch({ auth: { mode: 'perms' } });
    expect(noPerms.status).toBe(400);
    expect(noPerms.body.details).toEqual([{ field: 'auth.perms', problems: ['mode perms needs at least one permission'] }]);
    const sticky = await patch({ stickyBy: 'not a field!' });
    expect(sticky.status).toBe(400);
    expect(sticky.body.details[0].field).toBe('stickyBy');
    // Nothing was stored.
    expect((await call(`${api}/deployments/orders-items`, { bearer: admin })).body).toMatchObject({ auth: { mode: 'authenticated' } });
    expect((await call(`${api}/deployments/orders-items`, { bearer: admin })).body.stickyBy).toBeUndefined();
    expect((await patch({ auth: { mode: 'perms', perms: ['orders:write'] } })).body.auth).toEqual({ mode: 'perms', perms: ['orders:write'] });
    expect((await patch({ auth: { mode: 'authenticated' } })).body.auth).toEqual({ mode: 'authenticated' });
  });

  it('selects variants: normalised weights, sticky by stickyBy, 409 when every weight is zero', async () => {
    const created = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ id: 'sub-orders', name: 'Order events', kind: 'subscriber', stickyBy: 'session_id', labels: { 'x-event-filter': 'payload.total > 10' }, variants: [{ label: 'stable', flowId: 'on-order', weight: 9 }, { label: 'canary', flowId: 'on-order', weight: 1 }] }),
    });
    expect(created.status).toBe(201);
    expect(created.body.contributes.events).toEqual([{ name: 'orders.created', filter: 'payload.total > 10', direction: 'subscribe' }]);
    const pick = async (meta: unknown) => (await call(`${api}/deployments/sub-orders/select`, { method: 'POST', bearer: admin, ...json({ meta }) })).body;
    const first = await pick({ session_id: 's-42' });
    expect(first.sticky).toBe(true);
    for (let i = 0; i < 20; i++) expect((await pick({ session_id: 's-42' })).variant.label).toBe(first.variant.label);
    let stable = 0;
    for (let i = 0; i < 200; i++) if ((await pick({ session_id: `s-${i}` })).variant.label === 'stable') stable++;
    expect(stable).toBeGreaterThan(160);
    expect(stable).toBeLessThan(200);
    await call(`${api}/deployments/sub-orders`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'on-order', weight: 0 }] }) });
    const none = await call(`${api}/deployments/sub-orders/select`, { method: 'POST', bearer: admin, ...json({ meta: {} }) });
    // The deployment's own state, not an outage: a retry cannot help until an operator changes a weight.
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'NO_ELIGIBLE_VARIANT', deploymentId: 'sub-orders' });
    expect(none.body.message).toContain('no eligible variant');
  });

  it('appends a variant from a template, optionally pinned, and announces every change', async () => {
    const events: Array<{ deploymentId: string; action: string; changedFields?: string[] }> = [];
    const sub = await platform.bus.subscribe(['deployments.changed'], { groupId: 'test-deployments-changed' }, async (e) => {
      events.push(e.data as (typeof events)[number]);
    });
    try {
      const res = await call(`${api}/deployments/other-route/variants/from-template`, { method: 'POST', bearer: admin, ...json({ templateId: 'flow/echo', label: 'canary', weight: 5, pinVersion: true }) });
      expect(res.status).toBe(201);
      const canary = res.body.variants.find((v: { label: string }) => v.label === 'canary');
      expect(canary).toMatchObject({ weight: 5, versionId: expect.stringMatching(/@v1$/) });
      const flow = await call(`${api}/flows/${canary.flowId}`, { bearer: admin });
      expect(flow.body.published).toEqual({ versionId: canary.versionId });
      const unknown = await call(`${api}/deployments/other-route/variants/from-template`, { method: 'POST', bearer: admin, ...json({ templateId: 'no/such', label: 'x', weight: 1 }) });
      expect(unknown.status).toBe(400);
      const dupLabel = await call(`${api}/deployments/other-route/variants/from-template`, { method: 'POST', bearer: admin, ...json({ templateId: 'flow/echo', label: 'canary', weight: 1 }) });
      expect(dupLabel.status).toBe(409);
      for (let i = 0; i < 50 && !events.some((e) => e.deploymentId === 'other-route'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(events).toContainEqual(expect.objectContaining({ deploymentId: 'other-route', action: 'updated', changedFields: ['variants'] }));
    } finally {
      await sub.stop();
    }
  });

  it('enforces the permission matrix: admin:access for everything, admin for DELETE', async () => {
    const user = await token('bob', []);
    expect((await call(`${api}/deployments`)).status).toBe(401);
    expect((await call(`${api}/deployments`, { bearer: user })).status).toBe(403);
    expect((await call(`${api}/deployments`, { bearer: await token('eve', ['admin:access'], { active: false }) })).status).toBe(403);
    expect((await call(`${api}/deployments/other-route`, { method: 'DELETE', bearer: admin })).status).toBe(403);
    expect((await call(`${api}/deployments/other-route`, { method: 'DELETE', bearer: superAdmin })).status).toBe(204);
    expect((await call(`${api}/deployments/other-route`, { bearer: admin })).status).toBe(404);
    // The route claim was released with it.
    const reuse = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ name: 'Reuse', kind: 'route', labels: { 'x-route': 'GET /other' }, variants: [{ label: 'stable', flowId: 'plain', weight: 1 }] }) });
    expect(reuse.status).toBe(201);
  });
});

describe('subscriber deployments', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  const subs = async (flowId: string) => (await call(`${api}/flows/${flowId}/subscriptions`, { bearer: admin })).body as Array<{ deploymentId?: string; state: string; processed: number; filtered?: number; groupId: string; topic: string }>;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'on-payment', name: 'On payment' }) });
    const doc = { ...eventFlow, nodes: [{ ...eventFlow.nodes[0], config: { eventName: 'payments.created', groupID: 'on-payment' } }, eventFlow.nodes[1]], meta: { packets: { Payment: { type: 'object', properties: { total: { type: 'number' } } } } } };
    const v = await call(`${api}/flows/on-payment/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    await call(`${api}/flows/on-payment/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) });
  });
  afterAll(() => platform?.close());

  it('takes over the flow, consumes only events matching x-event-filter, and unsubscribes when disabled', async () => {
    // Published alone, the flow consumes through its own event source.
    expect((await until(() => subs('on-payment'), (s) => s[0]?.state === 'active'))[0]).toMatchObject({ groupId: 'on-payment' });
    const created = await call(`${api}/deployments`, {
      method: 'POST',
      bearer: admin,
      ...json({ id: 'payments', name: 'Payments', kind: 'subscriber', labels: { 'x-event-filter': 'payload.total > 10' }, variants: [{ label: 'stable', flowId: 'on-payment', weight: 1 }] }),
    });
    expect(created.status).toBe(201);
    const bound = await until(() => subs('on-payment'), (s) => s.length === 1 && s[0].deploymentId === 'payments' && s[0].state === 'active');
    // One binding, through the deployment, in the flow's own group (one variant).
    expect(bound).toEqual([expect.objectContaining({ deploymentId: 'payments', topic: 'payments.created', groupId: 'on-payment', state: 'active' })]);

    for (const total of [5, 20, 30]) await platform.bus.publish('payments.created', { total });
    const after = await until(() => subs('on-payment'), (s) => s[0]?.processed + (s[0]?.filtered ?? 0) >= 3);
    expect(after[0]).toMatchObject({ processed: 2, filtered: 1 });

    const asyncapi = async () => parseYaml((await call(`${platform.url}/api/v1/asyncapi.yaml`)).text) as { channels: Record<string, { 'x-deployments'?: Array<{ deploymentId: string; filter?: string }> }>; components: { schemas: Record<string, unknown> } };
    const described = await until(asyncapi, (d) => !!d.channels['payments.created'], 1000);
    expect(described.channels['payments.created']['x-deployments']).toEqual([{ deploymentId: 'payments', filter: 'payload.total > 10' }]);
    // A subscriber's packets belong to the event description, not the HTTP one.
    expect(described.components.schemas.Payment).toEqual({ type: 'object', properties: { total: { type: 'number' } } });
    expect((await call(`${platform.url}/api/v1/openapi.json`)).body.components.schemas.Payment).toBeUndefined();

    await call(`${api}/deployments/payments`, { method: 'PATCH', bearer: admin, ...json({ disabled: true }) });
    expect((await until(asyncapi, (d) => !d.channels['payments.created'], 1000)).channels['payments.created']).toBeUndefined();
    const off = await until(() => subs('on-payment'), (s) => s.length === 0);
    expect(off).toEqual([]);
    await platform.bus.publish('payments.created', { total: 99 });
    await new Promise((r) => setTimeout(r, 200));
    expect(await subs('on-payment')).toEqual([]);

    // Re-enabled, the group resumes where it stopped: the event published meanwhile runs once.
    await call(`${api}/deployments/payments`, { method: 'PATCH', bearer: admin, ...json({ disabled: false }) });
    const back = await until(() => subs('on-payment'), (s) => s[0]?.processed === 1);
    expect(back[0]).toMatchObject({ deploymentId: 'payments', processed: 1, state: 'active' });
 
    // Deleted, it drops from the list at once and the published flow is consumed through its own
    // auto-managed deployment again; created again under its id, it is back within a second.
    const superAdmin = await token('root', ['admin:access', 'admin']);
    expect((await call(`${api}/deployments/payments`, { method: 'DELETE', bearer: superAdmin })).status).toBe(204);
    const deletedAt = Date.now();
    expect(await until(() => subs('on-payment'), (s) => s.length === 1 && s[0].deploymentId === 'subscriber-on-payment', 1000)).toEqual([expect.objectContaining({ deploymentId: 'subscriber-on-payment', state: 'active' })]);
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    const again = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'payments', name: 'Payments', kind: 'subscriber', variants: [{ label: 'stable', flowId: 'on-payment', weight: 1 }] }) });
    expect(again.status).toBe(201);
    const rebound = await until(() => subs('on-payment'), (s) => s[0]?.deploymentId === 'payments' && s[0].state === 'active', 1000);
    expect(rebound).toEqual([expect.objectContaining({ deploymentId: 'payments', state: 'active' })]);
  });
});
