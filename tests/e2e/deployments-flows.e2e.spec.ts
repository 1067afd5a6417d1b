import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';

/**
 * One deployment per published flow (assistant-deployments-profiles.md rules 5 and 11): publish
 * ensures a route, subscriber or invoke deployment; a flow belongs to one deployment; an operator's
 * deployment absorbs a flow's auto-managed one.
 */

const routed = (method: string, path: string) => ({
  ...passThroughFlow,
  name: `Routed ${method} ${path}`,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: `${path} for {{ input.params.id }}`, target: 'text' } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'render' },
    { id: 'e2', from: 'render', to: 'end' },
  ],
  meta: { route: { method, path } },
});

const listening = (eventName: string, groupID: string) => ({
  name: `On ${eventName}`,
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName, groupID } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'end' }],
});

interface DeploymentBody {
  id: string;
  kind: string;
  labels: Record<string, string>;
  variants: Array<{ label: string; flowId: string; weight: number; versionId?: string }>;
  managedFor?: string;
  route?: { method: string; path: string };
}

describe('one deployment per published flow', () => {
  let platform: Standalone;
  let admin: string;
  let superAdmin: string;
  let api: string;

  const publish = (id: string, doc: unknown) => publishFlow(api, admin, id, doc);
  const republish = async (id: string, doc: unknown) => {
    const v = await call(`${api}/flows/${id}/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(v.status).toBeLessThan(300);
    expect((await call(`${api}/flows/${id}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
  };
  const deployments = async (): Promise<DeploymentBody[]> => (await call(`${api}/deployments`, { bearer: admin })).body;
  const naming = async (flowId: string) => (await deployments()).filter((d) => d.variants.some((v) => v.flowId === flowId));
  const create = (body: unknown) => call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json(body) });
  const remove = (id: string) => call(`${api}/deployments/${id}`, { method: 'DELETE', bearer: superAdmin });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    superAdmin = await token('root', ['admin:access', 'admin']);
    api = `${platform.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('gives a flow with no route and no event source an invoke deployment, selectable, and keeps it one on re-publish', async () => {
    await publish('plain-flow', passThroughFlow);
    const [d] = await naming('plain-flow');
    expect(d).toMatchObject({ id: 'flow-plain-flow', kind: 'invoke', managedFor: 'plain-flow', labels: { 'x-kind': 'invoke' }, variants: [{ label: 'stable', flowId: 'plain-flow', weight: 100 }] });
    expect(d.route).toBeUndefined();
    const pick = await call(`${api}/deployments/flow-plain-flow/select`, { method: 'POST', bearer: admin, ...json({ meta: {} }) });
    expect(pick.status).toBe(200);
    expect(pick.body.variant).toMatchObject({ label: 'stable', flowId: 'plain-flow' });
    await republish('plain-flow', { ...passThroughFlow, name: 'Pass-through again' });
    expect((await naming('plain-flow')).map((x) => x.id)).toEqual(['flow-plain-flow']);
    // It binds nothing: no route in the OpenAPI description, no channel in AsyncAPI.
    expect(JSON.stringify((await call(`${platform.url}/api/v1/openapi.json`)).body)).not.toContain('flow-plain-flow');
  });

  it('gives a flow with meta.route a route deployment that answers, and an event-source flow a subscriber deployment that consumes', async () => {
    await publish('quotes', routed('GET', '/quotes/{id}'));
    const [route] = await naming('quotes');
    expect(route).toMatchObject({ id: 'route-get-quotes-id', kind: 'route', managedFor: 'quotes', labels: { 'x-route': 'GET /quotes/{id}' }, route: { method: 'GET', path: '/quotes/{id}' } });
    const answer = await until(() => call(`${api}/quotes/7`, { bearer: admin }), (r) => r.status === 200, 1000);
    expect(answer.body).toMatchObject({ text: '/quotes/{id} for 7' });

    await publish('on-invoice', listening('invoices.created', 'on-invoice'));
    const [sub] = await naming('on-invoice');
    expect(sub).toMatchObject({ id: 'subscriber-on-invoice', kind: 'subscriber', managedFor: 'on-invoice', labels: { 'x-event': 'invoices.created', 'x-kind': 'subscriber' } });
    const subs = async () => (await call(`${api}/flows/on-invoice/subscriptions`, { bearer: admin })).body as Array<{ deploymentId?: string; state: string; processed: number }>;
    // Consumed through its deployment only, from the first event on.
    expect(await subs()).toEqual([expect.objectContaining({ deploymentId: 'subscriber-on-invoice', state: 'active' })]);
    await platform.bus.publish('invoices.created', { total: 3 });
    expect((await until(subs, (s) => s[0]?.processed === 1, 2000))[0]).toMatchObject({ deploymentId: 'subscriber-on-invoice', processed: 1 });
  });

  it('gives a flow whose route another deployment holds an invoke deployment instead of failing the publish', async () => {
    await publish('quotes-copy', routed('GET', '/quotes/{quoteId}'));
    expect(await naming('quotes-copy')).toEqual([expect.objectContaining({ id: 'flow-quotes-copy', kind: 'invoke', managedFor: 'quotes-copy' })]);
    // The route still answers with the first flow.
    expect((await call(`${api}/quotes/8`, { bearer: admin })).body).toMatchObject({ text: '/quotes/{id} for 8' });
  });

  it('refuses a second deployment of a flow with 409 naming the deployment that has it, on create and on PATCH', async () => {
    await publish('owned-flow', passThroughFlow);
    expect((await create({ id: 'ops-owned', name: 'Ops owned', kind: 'invoke', variants: [{ label: 'stable', flowId: 'owned-flow', weight: 1 }] })).status).toBe(201);
    const second = await create({ id: 'ops-second', name: 'Second', kind: 'invoke', variants: [{ label: 'stable', flowId: 'owned-flow', weight: 1 }] });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ statusCode: 409, code: 'FLOW_CONFLICT', conflicting_deployment_id: 'ops-owned', conflicting_deployment_name: 'Ops owned', flowId: 'owned-flow', detail: expect.stringContaining('ops-owned') });
    expect((await call(`${api}/deployments/ops-second`, { bearer: admin })).status).toBe(404);

    await publish('other-flow', passThroughFlow);
    expect((await create({ id: 'ops-other', name: 'Other', kind: 'invoke', variants: [{ label: 'stable', flowId: 'other-flow', weight: 1 }] })).status).toBe(201);
    const moved = await call(`${api}/deployments/ops-other`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'other-flow', weight: 1 }, { label: 'canary', flowId: 'owned-flow', weight: 1 }] }) });
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ code: 'FLOW_CONFLICT', conflicting_deployment_id: 'ops-owned' });
    // Re-publishing a flow an operator's deployment has leaves it there: no second deployment.
    await republish('owned-flow', { ...passThroughFlow, name: 'Owned again' });
    expect((await naming('owned-flow')).map((d) => d.id)).toEqual(['ops-owned']);
  });

  it("absorbs a flow's auto-managed deployment into an operator's deployment, releasing its route claim", async () => {
    await publish('tickets', routed('POST', '/tickets'));
    expect((await naming('tickets')).map((d) => d.id)).toEqual(['route-post-tickets']);
    // The operator's deployment takes the flow and the very route the auto-managed one held.
    const ops = await create({ id: 'ticket-desk', name: 'Ticket desk', kind: 'route', labels: { 'x-route': 'POST /tickets' }, variants: [{ label: 'stable', flowId: 'tickets', weight: 1 }] });
    expect(ops.status).toBe(201);
    expect(ops.body.managedFor).toBeUndefined();
    expect((await call(`${api}/deployments/route-post-tickets`, { bearer: admin })).status).toBe(404);
    expect((await naming('tickets')).map((d) => d.id)).toEqual(['ticket-desk']);
    const answer = await until(() => call(`${api}/tickets`, { method: 'POST', bearer: admin, ...json({}) }), (r) => r.headers.get('x-variant') === 'stable' && r.status === 200, 1000);
    expect(answer.status).toBe(200);

    // PATCH absorbs too: a canary naming a flow with an invoke deployment takes it over.
    await publish('tickets-next', passThroughFlow);
    expect((await naming('tickets-next')).map((d) => d.id)).toEqual(['flow-tickets-next']);
    const patched = await call(`${api}/deployments/ticket-desk`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'tickets', weight: 9 }, { label: 'canary', flowId: 'tickets-next', weight: 1 }] }) });
    expect(patched.status).toBe(200);
    expect((await call(`${api}/deployments/flow-tickets-next`, { bearer: admin })).status).toBe(404);
    expect((await naming('tickets-next')).map((d) => d.id)).toEqual(['ticket-desk']);
  });

  it('recreates a deleted invoke or subscriber deployment at once, and keeps operators canary variants', async () => {
    const ids = async (flowId: string) => (await naming(flowId)).map((d) => d.id);
    // A published flow is never left without a deployment: deleting its deployment brings it back.
    expect((await remove('flow-plain-flow')).status).toBe(204);
    expect(await until(() => ids('plain-flow'), (x) => x.length > 0, 2000)).toEqual(['flow-plain-flow']);
    await republish('plain-flow', passThroughFlow);
    expect(await ids('plain-flow')).toEqual(['flow-plain-flow']);

    expect((await remove('subscriber-on-invoice')).status).toBe(204);
    expect(await until(() => ids('on-invoice'), (x) => x.length > 0, 2000)).toEqual(['subscriber-on-invoice']);
    // ...and it consumes again, with no publish in between.
    const subs = async () => (await call(`${api}/flows/on-invoice/subscriptions`, { bearer: admin })).body as Array<{ deploymentId?: string; state: string }>;
    expect((await until(subs, (s) => s[0]?.state === 'active' && s[0]?.deploymentId === 'subscriber-on-invoice', 2000))[0]).toMatchObject({ deploymentId: 'subscriber-on-invoice', state: 'active' });

    // A flow taken out of an operator's deployment gets its own again.
    await publish('desk-canary', passThroughFlow);
    expect((await create({ id: 'desk', name: 'Desk', kind: 'invoke', variants: [{ label: 'stable', flowId: 'owned-flow', weight: 1 }, { label: 'canary', flowId: 'desk-canary', weight: 1 }] })).status).toBe(409);
    expect((await create({ id: 'desk', name: 'Desk', kind: 'invoke', variants: [{ label: 'stable', flowId: 'plain-flow', weight: 1 }, { label: 'canary', flowId: 'desk-canary', weight: 1 }] })).status).toBe(201);
    expect(await ids('desk-canary')).toEqual(['desk']);
    const narrowed = await call(`${api}/deployments/desk`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'plain-flow', weight: 1 }] }) });
    expect(narrowed.status).toBe(200);
    expect(await until(() => ids('desk-canary'), (x) => x.length > 0, 2000)).toEqual(['flow-desk-canary']);
    // Deleting the operator's deployment gives its remaining flow its auto-managed one back.
    expect((await remove('desk')).status).toBe(204);
    expect(await until(() => ids('plain-flow'), (x) => x.length > 0, 2000)).toEqual(['flow-plain-flow']);

    await publish('quotes-canary', passThroughFlow);
    const canary = await call(`${api}/deployments/route-get-quotes-id`, {
      method: 'PATCH',
      bearer: admin,
      ...json({ variants: [{ label: 'stable', flowId: 'quotes', weight: 90 }, { label: 'canary', flowId: 'quotes-canary', weight: 10 }] }),
    });
    expect(canary.status).toBe(200);
    await republish('quotes', { ...routed('GET', '/quotes/{id}'), name: 'Quotes v2' });
    const after = (await call(`${api}/deployments/route-get-quotes-id`, { bearer: admin })).body as DeploymentBody;
    expect(after.variants).toEqual([
      { label: 'stable', flowId: 'quotes', weight: 90 },
      { label: 'canary', flowId: 'quotes-canary', weight: 10 },
    ]);
    expect(after.managedFor).toBe('quotes');
  });

  it("keeps an operator's filter, labels and name on a subscriber deployment across re-publishes, and still refreshes what the flow declares", async () => {
    await publish('on-handoff', listening('handoffs.requested', 'on-handoff'));
    const patched = await call(`${api}/deployments/subscriber-on-handoff`, {
      method: 'PATCH',
      bearer: admin,
      ...json({ name: 'High-priority handoffs', labels: { 'x-event': 'handoffs.requested', 'x-kind': 'subscriber', 'x-event-filter': "payload.priority == 'high'", 'tag:ops': '' } }),
    });
    expect(patched.status).toBe(200);
    await republish('on-handoff', { ...listening('handoffs.requested', 'on-handoff'), name: 'On handoff v2' });
    const after = (await call(`${api}/deployments/subscriber-on-handoff`, { bearer: admin })).body as DeploymentBody & { name: string; tags: string[] };
    expect(after.labels).toEqual({ 'x-event': 'handoffs.requested', 'x-kind': 'subscriber', 'x-event-filter': "payload.priority == 'high'", 'tag:ops': '' });
    expect(after.name).toBe('High-priority handoffs');
    expect(after.tags).toContain('ops');

    // The filter still decides: a low handoff is skipped, a high one runs the flow.
    const subs = async () => (await call(`${api}/flows/on-handoff/subscriptions`, { bearer: admin })).body as Array<{ processed: number; filtered?: number }>;
    await until(subs, (s) => s.length === 1, 2000);
    await platform.bus.publish('handoffs.requested', { priority: 'low' });
    await platform.bus.publish('handoffs.requested', { priority: 'high' });
    const [s] = await until(subs, (x) => (x[0]?.processed ?? 0) + (x[0]?.filtered ?? 0) >= 2, 2000);
    expect(s).toMatchObject({ processed: 1, filtered: 1 });

    // What the document declares is refreshed: a filter the flow itself adds replaces none the operator set...
    await publish('on-refund', listening('refunds.created', 'on-refund'));
    const withFilter = (filter: string) => ({
      ...listening('refunds.created', 'on-refund'),
      nodes: [{ id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'refunds.created', groupID: 'on-refund', eventFilter: filter } }, { id: 'end', name: 'End', kind: 'end' }],
    });
    await republish('on-refund', withFilter('payload.total > 5'));
    expect(((await call(`${api}/deployments/subscriber-on-refund`, { bearer: admin })).body as DeploymentBody).labels['x-event-filter']).toBe('payload.total > 5');
    // ...and is dropped again when the document stops declaring it.
    await republish('on-refund', listening('refunds.created', 'on-refund'));
    expect(((await call(`${api}/deployments/subscriber-on-refund`, { bearer: admin })).body as DeploymentBody).labels['x-event-filter']).toBeUndefined();
  });

  it('replaces the auto-managed deployment when a re-published version asks for another route, releasing the old one', async () => {
    await publish('moving', routed('GET', '/moving/a'));
    expect((await naming('moving')).map((d) => d.id)).toEqual(['route-get-moving-a']);
    await republish('moving', routed('GET', '/moving/b'));
    expect((await naming('moving')).map((d) => d.id)).toEqual(['route-get-moving-b']);
    expect((await call(`${api}/deployments/route-get-moving-a`, { bearer: admin })).status).toBe(404);
    // The old route is free again.
    expect((await create({ id: 'moving-a', name: 'A', kind: 'route', labels: { 'x-route': 'GET /moving/a' }, variants: [{ label: 'stable', flowId: 'moving', weight: 1 }] })).status).toBe(201);
  });

  it('keeps flow- ids for the invoke deployments publishing manages', async () => {
    await publish('free-flow', passThroughFlow);
    const taken = await create({ id: 'flow-mine', name: 'Mine', kind: 'invoke', variants: [{ label: 'stable', flowId: 'free-flow', weight: 1 }] });
    expect(taken.status).toBe(400);
    expect(taken.body.details[0].field).toBe('id');
    // A generated id never starts with it.
    const named = await create({ name: 'Flow mine', kind: 'invoke', variants: [{ label: 'stable', flowId: 'free-flow', weight: 1 }] });
    expect(named.status).toBe(201);
    expect(named.body.id).not.toMatch(/^flow-/);
  });
});
