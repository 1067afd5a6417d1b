import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, parseSse, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';




describe('runs through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
    await publishFlow(api, admin, 'echo-run', passThroughFlow, { name: 'Echo run' });
  });
  afterAll(() => platform?.close());

  it('runs the published version and waits for the output', async () => {
    const res = await call(`${api}/flows/echo-run/runs`, { method: 'POST', bearer: admin, ...json({ input: { name: 'Ada' } }) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', output: { name: 'Ada' }, versionId: 'echo-run@v1', runId: expect.any(String) });
    const run = await call(`${api}/runs/${res.body.runId}`, { bearer: admin });
    expect(run.body).toMatchObject({ status: 'completed', flowId: 'echo-run', startedBy: 'alice', output: { name: 'Ada' } });
    expect(run.body.timeline.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['run.started', 'node.started', 'node.completed', 'run.completed']));
  });

  it('answers 202 at once with wait=false, and the run completes in the background', async () => {
    const res = await call(`${api}/flows/echo-run/runs?wait=false`, { method: 'POST', bearer: admin, ...json({ input: { n: 1 } }) });
    expect(res.status).toBe(202);
    let status = '';
    for (let i = 0; i < 50 && status !== 'completed'; i++) {
      status = (await call(`${api}/runs/${res.body.runId}`, { bearer: admin })).body.status;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe('completed');
  });

  it('streams the run as Server-Sent Events and resumes exactly after Last-Event-ID', async () => {
    const res = await fetch(`${api}/flows/echo-run/runs`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ input: { x: 1 } }) });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await res.text());
    expect(events[0].event).toBe('run.started');
    expect(events[events.length - 1]).toMatchObject({ event: 'run.completed', data: { output: { x: 1 } } });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));

    const runId = res.headers.get('x-run-id')!;
    const resumed = await fetch(`${api}/runs/${runId}/events`, { headers: { authorization: `Bearer ${admin}`, 'last-event-id': '2' } });
    const rest = parseSse(await resumed.text());
    expect(rest.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));
    expect(rest.map((e) => e.event)).toEqual(events.slice(2).map((e) => e.event));
  });

  it('answers 404 for unknown runs, 409 for cancelling an ended run and for an unpublished flow', async () => {
    expect((await call(`${api}/runs/nope`, { bearer: admin })).status).toBe(404);
    expect((await call(`${api}/runs/nope/events`, { bearer: admin })).status).toBe(404);
    const done = await call(`${api}/flows/echo-run/runs`, { method: 'POST', bearer: admin, ...json({}) });
    expect((await call(`${api}/runs/${done.body.runId}/cancel`, { method: 'POST', bearer: admin })).status).toBe(409);
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'draft', name: 'Draft' }) });
    expect((await call(`${api}/flows/draft/runs`, { method: 'POST', bearer: admin, ...json({}) })).status).toBe(409);
    expect((await call(`${api}/flows/ghost/runs`, { method: 'POST', bearer: admin, ...json({}) })).status).toBe(404);
  });

  it('requires admin access to start and read runs', async () => {
    expect((await call(`${api}/flows/echo-run/runs`, { method: 'POST', ...json({}) })).status).toBe(401);
    expect((await call(`${api}/flows/echo-run/runs`, { method: 'POST', bearer: await token('bob', []), ...json({}) })).status).toBe(403);
  });

  it('sends a durable edge across the bus and still completes the run', async () => {
    const seen: unknown[] = [];
    const sub = await platform.bus.subscribe(['flows.engine.step'], { groupId: 'test-durable-observer', fromBeginning: false }, async (e) => {
      seen.push(e.data);
    });
    try {
      const doc = {
        name: 'Durable hop',
        nodes: [
          { id: 'start', name: 'Start', kind: 'start' },
          { id: 'greet', name: 'Greet', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hello {{ packet.name }}', target: 'text' } },
          { id: 'end', name: 'End', kind: 'end' },
        ],
        edges: [
          { id: 'e1', from: 'start', to: 'greet', delivery_mode: 'durable' },
          { id: 'e2', from: 'greet', to: 'end' },
        ],
      };
      await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'durable-hop', name: 'Durable hop' }) });
      const v = await call(`${api}/flows/durable-hop/versions`, { method: 'POST', bearer: admin, ...json(doc) });
      const res = await call(`${api}/flows/durable-hop/runs`, { method: 'POST', bearer: admin, ...json({ input: { name: 'Ada' }, versionId: v.body.versionId }) });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('completed');
      expect(JSON.stringify(res.body.output)).toContain('Hello Ada');
      expect(seen).toEqual([expect.objectContaining({ runId: res.body.runId, nodeId: 'greet', edgeId: 'e1' })]);
    } finally {
      await sub.stop();
    }
  });
});
