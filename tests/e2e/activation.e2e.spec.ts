import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, serviceToken, testEnv, token } from '../support/http';

/** Template activation with auto-managed deployments and publish_with (issue 6 items 10 and 11). */

const intake = {
  name: 'Order intake',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'accepted {{ input.body.sku }}', target: 'text' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
  meta: { route: { method: 'POST', path: '/orders', success_status: 202, summary: 'Take an order' }, publish_with: ['shop/order-notify', 'shop/order-audit'] },
};

const listener = (eventName: string, groupID: string) => ({
  name: `On ${eventName}`,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName, groupID } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'end' }],
});

const reports = { ...intake, name: 'Reports', meta: { route: { method: 'GET', path: '/reports/{day}' } } };

describe('template activation', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!.url;
    const templates = [
      { id: 'shop/order-intake', name: 'Order intake', description: 'Takes orders over HTTP', tags: ['shop'], document: intake },
      { id: 'shop/order-notify', name: 'Order notify', description: 'Notifies on accepted orders', tags: ['shop'], document: listener('orders.accepted', 'order-notify') },
      { id: 'shop/order-audit', name: 'Order audit', description: 'Audits accepted orders', tags: ['shop'], document: listener('orders.accepted', 'order-audit') },
      { id: 'shop/reports', name: 'Reports', description: 'Daily reports', tags: ['shop'], document: reports },
      // Activated after another deployment took /reports/{day}: its publish_with must be refused up front.
      { id: 'shop/bundle', name: 'Bundle', description: 'Listens and brings the reports along', tags: ['shop'], document: { ...listener('bundle.ready', 'bundle'), meta: { publish_with: ['shop/reports'] } } },
      { id: 'shop/broken-bundle', name: 'Broken bundle', description: 'Names a template nobody provides', tags: ['shop'], document: { ...listener('bundle.broken', 'broken'), meta: { publish_with: ['shop/missing'] } } },
    ];
    const reg = await call(`${flowRuntime}/internal/templates/providers/shop`, { method: 'PUT', bearer: await serviceToken('shop', 'flow-runtime', ['internal:templates:register']), ...json({ templates }) });
    expect(reg.status).toBe(200);
  });
  afterAll(() => platform?.close());

  const activate = (templateId: string) => call(`${api}/flows/templates/activate`, { method: 'POST', bearer: admin, ...json({ templateId }) });

  it('publishes the template, creates its route deployment and publishes publish_with once', async () => {
    const first = await activate('shop/order-intake');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ flow_id: 'tpl-shop-order-intake', template_id: 'shop/order-intake', method: 'POST', path: '/orders', published_with: ['shop/order-notify', 'shop/order-audit'] });

    const route = await call(`${api}/deployments/route-post-orders`, { bearer: admin });
    expect(route.body).toMatchObject({
      kind: 'route',
      labels: { 'x-route': 'POST /orders', 'x-source': 'shop', 'x-template-id': 'shop/order-intake' },
      variants: [{ label: 'stable', flowId: 'tpl-shop-order-intake', weight: 100 }],
      tags: ['shop', 'shop/order-intake'],
    });
    const notify = await call(`${api}/deployments/subscriber-shop-order-notify`, { bearer: admin });
    expect(notify.body).toMatchObject({ kind: 'subscriber', labels: { 'x-event': 'orders.accepted', 'x-kind': 'subscriber', 'x-template-id': 'shop/order-notify' } });
    expect((await call(`${api}/flows/tpl-shop-order-notify`, { bearer: admin })).body.published).toBeDefined();

    // The route answers at once through the dispatcher, with the template's success_status.
    let res = await call(`${api}/orders`, { method: 'POST', bearer: admin, ...json({ sku: 'A-1' }) });
    for (let i = 0; i < 40 && res.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await call(`${api}/orders`, { method: 'POST', bearer: admin, ...json({ sku: 'A-1' }) });
    }
    expect(res.status).toBe(202);
    expect(res.body.text).toBe('accepted A-1');

    const second = await activate('shop/order-intake');
    expect(second.body.published_with).toEqual([]);
    expect((await call(`${api}/flows/tpl-shop-order-intake/versions`, { bearer: admin })).body).toHaveLength(1);
  });

  it('keeps operators canary variants when the template is activated again', async () => {
    const other = await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'intake-canary', name: 'Canary' }) });
    expect(other.status).toBe(201);
    const v = await call(`${api}/flows/intake-canary/versions`, { method: 'POST', bearer: admin, ...json(intake) });
    await call(`${api}/flows/intake-canary/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) });
    const patched = await call(`${api}/deployments/route-post-orders`, {
      method: 'PATCH',
      bearer: admin,
      ...json({ variants: [{ label: 'stable', flowId: 'tpl-shop-order-intake', weight: 90 }, { label: 'canary', flowId: 'intake-canary', weight: 10 }] }),
    });
    expect(patched.status).toBe(200);
    expect((await activate('shop/order-intake')).status).toBe(200);
    const after = await call(`${api}/deployments/route-post-orders`, { bearer: admin });
    expect(after.body.variants).toEqual([
      { label: 'stable', flowId: 'tpl-shop-order-intake', weight: 90 },
      { label: 'canary', flowId: 'intake-canary', weight: 10 },
    ]);
  });

  it('refuses with the 409 body when another deployment owns the route, and 404 for an unknown template', async () => {
    // intake-canary belongs to route-post-orders now: a flow is in one deployment only.
    const busy = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'manual-reports', name: 'Manual reports', kind: 'route', labels: { 'x-route': 'GET /reports/{date}' }, variants: [{ label: 'stable', flowId: 'intake-canary', weight: 1 }] }) });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'FLOW_CONFLICT', conflicting_deployment_id: 'route-post-orders', flowId: 'intake-canary' });
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'manual-reports-flow', name: 'Manual reports' }) })).status).toBe(201);
    const v = await call(`${api}/flows/manual-reports-flow/versions`, { method: 'POST', bearer: admin, ...json({ ...reports, meta: {} }) });
    expect((await call(`${api}/flows/manual-reports-flow/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
    const owner = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'manual-reports', name: 'Manual reports', kind: 'route', labels: { 'x-route': 'GET /reports/{date}' }, variants: [{ label: 'stable', flowId: 'manual-reports-flow', weight: 1 }] }) });
    expect(owner.status).toBe(201);
    const res = await activate('shop/reports');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ conflicting_deployment_id: 'manual-reports', conflicting_deployment_name: 'Manual reports', method: 'GET', path: '/reports/{date}', detail: expect.any(String) });
    // The pre-flight runs before anything is created.
    expect((await call(`${api}/flows/tpl-shop-reports`, { bearer: admin })).status).toBe(404);
    expect((await activate('shop/none')).status).toBe(404);
    expect((await call(`${api}/flows/templates/activate`, { method: 'POST', bearer: await token('bob', []), ...json({ templateId: 'shop/reports' }) })).status).toBe(403);
  });

  it('checks every template of publish_with before publishing anything (taken route: 409, unknown template: 404)', async () => {
    const taken = await activate('shop/bundle');
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ conflicting_deployment_id: 'manual-reports', method: 'GET', path: '/reports/{date}' });
    const missing = await activate('shop/broken-bundle');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('shop/missing');
    // Neither activation left a flow, a published version or a deployment behind.
    for (const id of ['tpl-shop-bundle', 'tpl-shop-broken-bundle', 'tpl-shop-reports']) expect((await call(`${api}/flows/${id}`, { bearer: admin })).status).toBe(404);
    for (const id of ['subscriber-shop-bundle', 'subscriber-shop-broken-bundle']) expect((await call(`${api}/deployments/${id}`, { bearer: admin })).status).toBe(404);
  });
});
