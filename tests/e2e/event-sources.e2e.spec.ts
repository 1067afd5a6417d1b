import { NODE_REGISTRY } from '@flowplane/flow-runtime';
import type { NodeRegistry } from '@flowplane/flow/engine';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';
import { publishFlow } from '../support/flows';

const eventFlow = (eventName: string, groupID: string, middle?: Record<string, unknown>) => ({
  name: 'Event flow',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName, groupID } },
    ...(middle ? [{ id: 'mid', name: 'Mid', kind: 'action', ...middle }] : []),
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: middle
    ? [
        { id: 'e1', from: 'start', to: 'mid' },
        { id: 'e2', from: 'mid', to: 'end' },
      ]
    : [{ id: 'e1', from: 'start', to: 'end' }],
  meta: { positions: { start: { x: 0, y: 0 }, mid: { x: 1, y: 0 }, end: { x: 2, y: 0 } } },
});

describe('event-source flows', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  const publish = (id: string, doc: unknown) => publishFlow(api, admin, id, doc);

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ BUS_MAX_ATTEMPTS: '2' }) });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('subscribes on publish, with no restart, and runs once per published event', async () => {
    await publish('on-order', eventFlow('orders.created', 'orders-flow'));
    const subs = await until(
      async () => (await call(`${api}/flows/on-order/subscriptions`, { bearer: admin })).body,
      (b: Array<{ state: string }>) => b[0]?.state === 'active',
    );
    expect(subs[0]).toMatchObject({ topic: 'orders.created', groupId: 'orders-flow', state: 'active' });
    for (let i = 1; i <= 3; i++) await platform.bus.publish('orders.created', { orderId: i }, { key: String(i) });
    const after = await until(
      async () => (await call(`${api}/flows/on-order/subscriptions`, { bearer: admin })).body[0],
      (s: { processed: number }) => s.processed >= 3,
    );
    await new Promise((r) => setTimeout(r, 200));
    const final = (await call(`${api}/flows/on-order/subscriptions`, { bearer: admin })).body[0];
    expect(after.processed).toBe(3);
    expect(final).toMatchObject({ processed: 3, failedRuns: 0, lag: 0 });
  });

  it('unsubscribes on unpublish and subscribes again on rollback', async () => {
    await publish('on-refund', eventFlow('refunds.created', 'refunds-flow'));
    await until(
      async () => (await call(`${api}/flows/on-refund/subscriptions`, { bearer: admin })).body,
      (b: Array<{ state: string }>) => b[0]?.state === 'active',
    );
    const off = await call(`${api}/flows/on-refund/unpublish`, { method: 'POST', bearer: admin });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ reason: 'unpublish', target: null });
    const gone = await until(
      async () => (await call(`${api}/flows/on-refund/subscriptions`, { bearer: admin })).body,
      (b: unknown[]) => b.length === 0,
    );
    expect(gone).toEqual([]);
    await platform.bus.publish('refunds.created', { refundId: 1 });
    await new Promise((r) => setTimeout(r, 200));
    // Off the air, nothing ran it.
    const runsWhileOff = await call(`${api}/flows/on-refund/subscriptions`, { bearer: admin });
    expect(runsWhileOff.body).toEqual([]);
    const back = await call(`${api}/flows/on-refund/rollback`, { method: 'POST', bearer: admin, ...json({}) });
    expect(back.status).toBe(200);
    // The group resumes from its committed offset: the event published while off the air is not
    // lost, it runs once the flow is back.
    const again = await until(
      async () => (await call(`${api}/flows/on-refund/subscriptions`, { bearer: admin })).body,
      (b: Array<{ state: string; processed: number }>) => b[0]?.processed === 1,
    );
    expect(again[0]).toMatchObject({ topic: 'refunds.created', groupId: 'refunds-flow', state: 'active', processed: 1, failedRuns: 0 });
  });

  it('retries a failing run and parks the event on <topic>.dlq with the error', async () => {
    const parked: unknown[] = [];
    const dlq = await platform.bus.subscribe(['jobs.bad.dlq'], { groupId: 'test-dlq-reader' }, async (e) => {
      parked.push(e.data);
    });
    // A custom node whose handler throws (custom handlers register by id, as modules do at startup).
    const registry = platform.services.find((s) => s.name === 'flow-runtime')!.app.get<NodeRegistry>(NODE_REGISTRY);
    registry.define({ id: 'test/always-fails', name: 'Always fails', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, async () => {
      throw new Error('downstream system refused the job');
    });
    await publish('bad-job', eventFlow('jobs.bad', 'bad-job-flow', { action_ref: 'test/always-fails' }));
    await until(
      async () => (await call(`${api}/flows/bad-job/subscriptions`, { bearer: admin })).body,
      (b: Array<{ state: string }>) => b[0]?.state === 'active',
    );
    await platform.bus.publish('jobs.bad', { job: 7 }, { key: 'j7' });
    await until(async () => parked.length, (n) => n >= 1, 10000);
    const state = (await call(`${api}/flows/bad-job/subscriptions`, { bearer: admin })).body[0];
    expect(parked).toEqual([{ job: 7 }]);
    expect(state.failedRuns).toBe(2);
    expect(state.processed).toBe(0);
    expect(state.lastError).toContain('downstream system refused the job');
    await dlq.stop();
  });

  it('shows the runs a subscription waits for, and since when, so a run that does not end is visible', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const registry = platform.services.find((s) => s.name === 'flow-runtime')!.app.get<NodeRegistry>(NODE_REGISTRY);
    registry.define({ id: 'test/waits', name: 'Waits', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, async () => {
      await gate;
      return { port: 'out', packet: {} };
    });
    await publish('slow-job', eventFlow('jobs.slow', 'slow-job-flow', { action_ref: 'test/waits' }));
    type View = { state: string; processed: number; running?: number; runningSince?: string };
    const subs = async (): Promise<View> => (await call(`${api}/flows/slow-job/subscriptions`, { bearer: admin })).body[0];
    await until(subs, (s) => s?.state === 'active');
    const before = Date.now();
    await platform.bus.publish('jobs.slow', { job: 1 }, { key: 'j1' });
    const waiting = await until(subs, (s) => s.running === 1, 5000);
    expect(Date.parse(waiting.runningSince ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(waiting.processed).toBe(0);
    release();
    const done = await until(subs, (s) => s.processed === 1, 5000);
    expect(done.running).toBe(0);
    expect(done.runningSince).toBeUndefined();
  });
});
