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

  it('ends a reconnect whose Last-Event-ID is at or past the final event at once, with 204 so an EventSource stops', async () => {
    const res = await fetch(`${api}/flows/echo-run/runs`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ input: { y: 2 } }) });
    const events = parseSse(await res.text());
    const finalId = events[events.length - 1].id;
    const runId = res.headers.get('x-run-id')!;
    for (const lastEventId of [String(finalId), String(finalId + 100)]) {
      const started = Date.now();
      // Today's bug held such a stream open for 30 s: the signal turns a hang into a failure quickly.
      const again = await fetch(`${api}/runs/${runId}/events`, { headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'last-event-id': lastEventId }, signal: AbortSignal.timeout(5000) });
      expect(again.status).toBe(204);
      expect(await again.text()).toBe('');
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // One before the end still gets the final event, and the stream closes after it.
    const last = await fetch(`${api}/runs/${runId}/events`, { headers: { authorization: `Bearer ${admin}`, 'last-event-id': String(finalId - 1) }, signal: AbortSignal.timeout(5000) });
    expect(last.status).toBe(200);
    expect(parseSse(await last.text()).map((e) => e.event)).toEqual(['run.completed']);
  });

  it('lists runs newest first, filtered by flow, status and start time, in pages with a cursor', async () => {
    await publishFlow(api, admin, 'listed-a', passThroughFlow);
    await publishFlow(api, admin, 'listed-b', passThroughFlow);
    const started: string[] = [];
    for (const flowId of ['listed-a', 'listed-b', 'listed-a', 'listed-a', 'listed-b']) {
      const r = await call(`${api}/flows/${flowId}/runs`, { method: 'POST', bearer: admin, ...json({ input: { flowId } }) });
      expect(r.status).toBe(200);
      if (flowId === 'listed-a') started.push(r.body.runId);
      await new Promise((r) => setTimeout(r, 5)); // distinct start times, so newest-first is one order
    }
    const newestFirst = [...started].reverse();

    const first = await call(`${api}/runs?flowId=listed-a&limit=2`, { bearer: admin });
    expect(first.status).toBe(200);
    expect(first.body.items.map((r: { runId: string }) => r.runId)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.items[0]).toEqual({
      runId: newestFirst[0],
      flowId: 'listed-a',
      versionId: 'listed-a@v1',
      status: 'completed',
      startedBy: 'alice',
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await call(`${api}/runs?flowId=listed-a&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { bearer: admin });
    expect(second.body.items.map((r: { runId: string }) => r.runId)).toEqual(newestFirst.slice(2));
    expect(second.body.nextCursor).toBeUndefined();

    const all = await call(`${api}/runs?limit=200`, { bearer: admin });
    const times = all.body.items.map((r: { startedAt: string }) => Date.parse(r.startedAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(all.body.items.filter((r: { flowId: string }) => r.flowId.startsWith('listed-')).map((r: { flowId: string }) => r.flowId)).toEqual(['listed-b', 'listed-a', 'listed-a', 'listed-b', 'listed-a']);

    expect((await call(`${api}/runs?flowId=listed-a&status=completed`, { bearer: admin })).body.items).toHaveLength(3);
    expect((await call(`${api}/runs?flowId=listed-a&status=failed`, { bearer: admin })).body).toEqual({ items: [] });
    const oldest = second.body.items[0];
    const from = await call(`${api}/runs?flowId=listed-a&from=${encodeURIComponent(oldest.startedAt)}`, { bearer: admin });
    expect(from.body.items.map((r: { runId: string }) => r.runId)).toEqual(newestFirst);
    const to = await call(`${api}/runs?flowId=listed-a&to=${encodeURIComponent(oldest.startedAt)}`, { bearer: admin });
    expect(to.body.items).toEqual([]);
  });

  it('refuses an unknown query parameter, a bad filter, limit or cursor, and an empty range with 400', async () => {
    const unknown = await call(`${api}/runs?flow=listed-a`, { bearer: admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'flow' })] });
    for (const [query, field] of [['status=done', 'status'], ['limit=0', 'limit'], ['limit=201', 'limit'], ['limit=ten', 'limit'], ['from=yesterday', 'from'], ['flowId=Not%20A%20Flow', 'flowId']]) {
      const res = await call(`${api}/runs?${query}`, { bearer: admin });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([expect.objectContaining({ field })]);
    }
    const cursor = await call(`${api}/runs?cursor=not-a-cursor`, { bearer: admin });
    expect(cursor.status).toBe(400);
    expect(cursor.body.code).toBe('INVALID_CURSOR');
    const range = await call(`${api}/runs?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`, { bearer: admin });
    expect(range.status).toBe(400);
    expect(range.body.code).toBe('INVALID_RANGE');
    expect((await call(`${api}/runs`)).status).toBe(401);
    expect((await call(`${api}/runs`, { bearer: await token('bob', []) })).status).toBe(403);
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
