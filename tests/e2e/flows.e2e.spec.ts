import { stringify } from 'yaml';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, serviceToken, testEnv, token } from '../support/http';

const minimal = {
  name: 'Minimal',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [{ id: 'e1', from: 'start', to: 'end' }],
  meta: { positions: { start: { x: 0, y: 0 }, end: { x: 200, y: 0 } } },
};

describe('flows, versions, publish and templates through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('creates a flow, saves immutable versions and returns the same version for the same document', async () => {
    const created = await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'minimal', name: 'Minimal flow' }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'minimal', name: 'Minimal flow', createdBy: 'alice' });
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'minimal', name: 'again' }) })).status).toBe(409);

    const v1 = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, ...json(minimal) });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ versionId: 'minimal@v1', number: 1, createdBy: 'alice', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const again = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, ...json(JSON.parse(JSON.stringify(minimal))) });
    expect(again.status).toBe(200);
    expect(again.body.versionId).toBe('minimal@v1');

    const changed = { ...minimal, nodes: [minimal.nodes[0], { ...minimal.nodes[1], name: 'Done' }] };
    const v2 = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, headers: { 'content-type': 'application/yaml' }, body: stringify(changed) });
    expect(v2.status).toBe(201);
    expect(v2.body.versionId).toBe('minimal@v2');
    const list = await call(`${api}/flows/minimal/versions`, { bearer: admin });
    expect(list.body.map((v: { versionId: string }) => v.versionId)).toEqual(['minimal@v2', 'minimal@v1']);
  });

  it('returns a version as IR or in spec form', async () => {
    const ir = await call(`${api}/flows/minimal/versions/minimal@v1`, { bearer: admin });
    expect(ir.body.document.nodes.map((n: { id: string }) => n.id)).toEqual(['start', 'end']);
    const spec = await call(`${api}/flows/minimal/versions/minimal@v1?format=spec`, { bearer: admin });
    expect(spec.body.document.flowdef).toBe('1.0');
    expect((await call(`${api}/flows/minimal/versions/minimal@v9`, { bearer: admin })).status).toBe(404);
  });

  it('rejects an invalid document with every problem and its path', async () => {
    const bad = { nodes: [{ id: 'a', kind: 'bogus' }, { id: 'a', kind: 'end' }], edges: [{ id: 'e1', from: 'a', to: 'ghost' }] };
    const res = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, ...json(bad) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_DOCUMENT');
    expect(res.body.details.length).toBeGreaterThanOrEqual(3);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['/nodes/0/kind']));
  });

  it('rejects a YAML body that is not a mapping and an oversized document', async () => {
    const list = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, headers: { 'content-type': 'application/yaml' }, body: '- a\n- b\n' });
    expect(list.status).toBe(400);
    const huge = { ...minimal, description: 'x'.repeat(1_100_000) };
    const big = await call(`${api}/flows/minimal/versions`, { method: 'POST', bearer: admin, ...json(huge) });
    expect(big.status).toBe(413);
  });

  it('publishes, announces flows.published, rolls back and keeps the history', async () => {
    const events: Array<{ flowId: string; versionId: string; reason: string }> = [];
    const sub = await platform.bus.subscribe(['flows.published'], { groupId: 'test-flows-published' }, async (e) => {
      events.push(e.data as { flowId: string; versionId: string; reason: string });
    });
    const p1 = await call(`${api}/flows/minimal/publish`, { method: 'POST', bearer: admin, ...json({ versionID: 'minimal@v1' }) });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ seq: 1, reason: 'publish', target: { versionId: 'minimal@v1' } });
    const p2 = await call(`${api}/flows/minimal/publish`, { method: 'POST', bearer: admin, ...json({ variants: [{ label: 'stable', versionID: 'minimal@v1', weight: 90 }, { label: 'canary', versionID: 'minimal@v2', weight: 10 }] }) });
    expect(p2.status).toBe(200);
    const rb = await call(`${api}/flows/minimal/rollback`, { method: 'POST', bearer: admin, ...json({}) });
    expect(rb.status).toBe(200);
    expect(rb.body).toMatchObject({ seq: 3, reason: 'rollback', target: { versionId: 'minimal@v1' } });
    const history = await call(`${api}/flows/minimal/publishes`, { bearer: admin });
    expect(history.body.map((p: { seq: number }) => p.seq)).toEqual([3, 2, 1]);
    const flow = await call(`${api}/flows/minimal`, { bearer: admin });
    expect(flow.body.published).toEqual({ versionId: 'minimal@v1' });
    for (let i = 0; i < 50 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    await sub.stop();
    expect(events.map((e) => e.reason)).toEqual(['publish', 'publish', 'rollback']);
    expect(events[0]).toMatchObject({ flowId: 'minimal', versionId: 'minimal@v1' });
  });

  it('unpublishes (runs then need a version, delete is allowed) and rollback restores the last publish', async () => {
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'offair', name: 'Off air' }) });
    const v = await call(`${api}/flows/offair/versions`, { method: 'POST', bearer: admin, ...json(minimal) });
    expect((await call(`${api}/flows/offair/unpublish`, { method: 'POST', bearer: admin })).status).toBe(409);
    await call(`${api}/flows/offair/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) });
    const off = await call(`${api}/flows/offair/unpublish`, { method: 'POST', bearer: admin });
    expect(off.body).toMatchObject({ seq: 2, reason: 'unpublish', target: null });
    expect((await call(`${api}/flows/offair`, { bearer: admin })).body.published).toBeUndefined();
    const run = await call(`${api}/flows/offair/runs`, { method: 'POST', bearer: admin, ...json({ input: {} }) });
    expect(run.status).toBe(409);
    const rb = await call(`${api}/flows/offair/rollback`, { method: 'POST', bearer: admin, ...json({}) });
    expect(rb.body).toMatchObject({ seq: 3, reason: 'rollback', target: { versionId: 'offair@v1' } });
    await call(`${api}/flows/offair/unpublish`, { method: 'POST', bearer: admin });
    expect((await call(`${api}/flows/offair`, { method: 'DELETE', bearer: admin })).status).toBe(204);
  });

  it('lets a module seed its flow, auto-upgrades it to a higher schemaVersion, and never replaces a version someone else made', async () => {
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!.url;
    const i18n = await serviceToken('i18n', 'flow-runtime', ['internal:flows:seed']);
    const seed = async (id: string, schemaVersion: number, bearer = i18n) =>
      call(`${flowRuntime}/internal/flows/${id}`, { method: 'PUT', bearer, ...json({ name: 'Sweep', document: { ...minimal, name: `rev ${schemaVersion}`, meta: { ...minimal.meta, schemaVersion } } }) });

    expect((await seed('sweep', 1)).body).toEqual({ flowId: 'sweep', action: 'created', versionId: 'sweep@v1' });
    expect((await call(`${api}/flows/sweep`, { bearer: admin })).body.published).toEqual({ versionId: 'sweep@v1' });
    expect((await seed('sweep', 1)).body).toMatchObject({ action: 'unchanged', versionId: 'sweep@v1' });
    expect((await seed('sweep', 2, await serviceToken('assistant', 'flow-runtime', ['internal:flows:seed']))).body).toMatchObject({ action: 'unchanged', reason: expect.stringContaining('not by module assistant') });
    expect((await seed('sweep', 2, admin)).status).toBe(403);
    expect((await seed('sweep', 2)).body).toEqual({ flowId: 'sweep', action: 'upgraded', versionId: 'sweep@v2' });
    const history = (await call(`${api}/flows/sweep/publishes`, { bearer: admin })).body;
    expect(history[0]).toMatchObject({ reason: 'auto_upgrade', target: { versionId: 'sweep@v2' } });

    // An admin edits the flow: from then on the module leaves it alone.
    const edited = await call(`${api}/flows/sweep/versions`, { method: 'POST', bearer: admin, ...json({ ...minimal, name: 'edited', meta: { ...minimal.meta, schemaVersion: 2 } }) });
    await call(`${api}/flows/sweep/publish`, { method: 'POST', bearer: admin, ...json({ versionID: edited.body.versionId }) });
    expect((await seed('sweep', 5)).body).toMatchObject({ action: 'unchanged', reason: expect.stringContaining('created by alice') });
    expect((await call(`${api}/flows/sweep`, { bearer: admin })).body.published).toEqual({ versionId: edited.body.versionId });

    // A first seed refused after the flow was created (a node not registered yet) is finished by the next seed.
    const unknownNode = { ...minimal, nodes: [minimal.nodes[0], { id: 'x', name: 'X', kind: 'action', action_ref: 'svc/not-registered-yet' }, minimal.nodes[1]], edges: [{ id: 'e1', from: 'start', to: 'x' }, { id: 'e2', from: 'x', to: 'end' }] };
    const refused = await call(`${flowRuntime}/internal/flows/late`, { method: 'PUT', bearer: i18n, ...json({ name: 'Late', document: unknownNode }) });
    expect(refused.status).toBe(400);
    expect((await seed('late', 1)).body).toEqual({ flowId: 'late', action: 'created', versionId: 'late@v2' });
    expect((await call(`${api}/flows/late`, { bearer: admin })).body.published).toEqual({ versionId: 'late@v2' });
  });

  it('refuses to delete a published flow and to publish unknown nodes', async () => {
    expect((await call(`${api}/flows/minimal`, { method: 'DELETE', bearer: admin })).status).toBe(409);
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'broken', name: 'Broken' }) });
    const doc = { ...minimal, nodes: [minimal.nodes[0], { id: 'x', name: 'X', kind: 'action', action_ref: 'svc/does-not-exist' }, minimal.nodes[1]], edges: [{ id: 'e1', from: 'start', to: 'x' }, { id: 'e2', from: 'x', to: 'end' }], meta: { positions: { start: { x: 0, y: 0 }, x: { x: 1, y: 0 }, end: { x: 2, y: 0 } } } };
    const v = await call(`${api}/flows/broken/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(v.status).toBe(201);
    // Saved (the node may register later), with a warning saying publish will refuse it.
    expect(v.body.warnings).toEqual([expect.objectContaining({ path: '/nodes/1/action_ref', code: 'UNKNOWN_ACTION_REF', severity: 'warning', message: expect.stringContaining('"svc/does-not-exist" is not a registered node') })]);
    const res = await call(`${api}/flows/broken/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BROKEN_NODES');
    expect(res.body.message).toContain('x (svc/does-not-exist)');
    expect((await call(`${api}/flows/broken`, { method: 'DELETE', bearer: admin })).status).toBe(204);
    expect((await call(`${api}/flows/broken`, { bearer: admin })).status).toBe(404);
  });

  it('lists, searches and fetches templates, and saves a flow from one', async () => {
    const all = await call(`${api}/flows/templates`, { bearer: admin });
    expect(all.status).toBe(200);
    expect(all.body).toEqual(expect.arrayContaining([{ id: 'flow/echo', name: 'Echo', description: expect.any(String), source: 'flow', tags: ['starter', 'example'] }]));
    expect(all.body[0].document).toBeUndefined();
    expect((await call(`${api}/flows/templates?q=greeting`, { bearer: admin })).body.map((t: { id: string }) => t.id)).toEqual(['flow/echo']);
    expect((await call(`${api}/flows/templates?q=nothing-matches-this`, { bearer: admin })).body).toEqual([]);
    const spec = await call(`${api}/flows/templates/flow/echo`, { bearer: admin });
    expect(spec.body.flowdef).toBe('1.0');
    expect((await call(`${api}/flows/templates/flow/nope`, { bearer: admin })).status).toBe(404);

    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'hello', name: 'Hello' }) });
    const saved = await call(`${api}/flows/hello/versions?format=spec`, { method: 'POST', bearer: admin, ...json(spec.body) });
    expect(saved.status).toBe(201);
    const back = await call(`${api}/flows/hello/versions/${saved.body.versionId}`, { bearer: admin });
    expect(back.body.document.nodes.find((n: { id: string }) => n.id === 'render')).toMatchObject({ action_ref: 'svc/template-render', config: { template: 'Hello, {{input.name}}!' } });
  });

  const positions = (...ids: string[]) => Object.fromEntries(ids.map((id, i) => [id, { x: i * 200, y: 0 }]));
  const detail = (body: { details: Array<{ field: string; code: string }> }) => body.details.map((d) => [d.field, d.code]);

  it('refuses node configs their settings schemas refuse at save, listing every field with its JSON path; unknown keys are dropped with a warning', async () => {
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'settings', name: 'Settings' }) });
    const doc: { nodes: Array<{ id: string; kind: string; action_ref?: string; config?: Record<string, unknown> }>; edges: unknown[]; meta: unknown } = {
      nodes: [
        { id: 'src', kind: 'start', action_ref: 'svc/event-source', config: { groupID: 'g' } },
        { id: 'llm', kind: 'action', action_ref: 'svc/llm-chat', config: { baseURL: 'not a url', temperature: 5, maxTokens: 1.5, replyStyle: 'rambling' } },
        { id: 'guard', kind: 'gateway', action_ref: 'svc/guard', config: { role: 'sideways' } },
        { id: 'http', kind: 'action', action_ref: 'svc/http-request', config: { url: 'https://example.com', method: 'BREW', timeoutMs: '0' } },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'src', to: 'llm' },
        { id: 'e2', from: 'llm', to: 'guard' },
        { id: 'e3', from: 'guard', to: 'http' },
        { id: 'e4', from: 'http', to: 'end' },
      ],
      meta: { positions: positions('src', 'llm', 'guard', 'http', 'end') },
    };
    const res = await call(`${api}/flows/settings/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_NODE_CONFIG');
    expect(detail(res.body).sort()).toEqual(
      [
        ['/nodes/0/config/eventName', 'INVALID_NODE_CONFIG'],
        ['/nodes/1/config/baseURL', 'INVALID_NODE_CONFIG'],
        ['/nodes/1/config/temperature', 'INVALID_NODE_CONFIG'],
        ['/nodes/1/config/maxTokens', 'INVALID_NODE_CONFIG'],
        ['/nodes/1/config/replyStyle', 'INVALID_NODE_CONFIG'],
        ['/nodes/2/config/guardID', 'INVALID_NODE_CONFIG'],
        ['/nodes/2/config/role', 'INVALID_NODE_CONFIG'],
        ['/nodes/3/config/method', 'INVALID_NODE_CONFIG'],
        ['/nodes/3/config/timeoutMs', 'INVALID_NODE_CONFIG'],
      ].sort(),
    );
    const problems = Object.fromEntries(res.body.details.map((d: { field: string; problems: string[] }) => [d.field, d.problems[0]]));
    expect(problems['/nodes/0/config/eventName']).toBe('node "src" (svc/event-source): eventName missing required field "eventName"');
    expect(problems['/nodes/1/config/baseURL']).toBe('node "llm" (svc/llm-chat): baseURL must match format "uri"');
    expect(problems['/nodes/1/config/temperature']).toBe('node "llm" (svc/llm-chat): temperature must be <= 2');

    // Fixed, with one key the schema does not know: saved, the key reported as dropped.
    doc.nodes[0].config = { eventName: 'orders.placed', groupID: 'g' };
    doc.nodes[1].config = { baseURL: 'https://api.example.com/v1', temperature: 0.5, colour: 'red' };
    doc.nodes[2].config = { guardID: 'blocklist', role: 'input' };
    doc.nodes[3].config = { url: 'https://example.com', method: 'POST' };
    const saved = await call(`${api}/flows/settings/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(saved.status).toBe(201);
    expect(saved.body.warnings).toEqual([expect.objectContaining({ path: '/nodes/1/config/colour', code: 'UNKNOWN_CONFIG_KEY', severity: 'warning' })]);
    const stored = await call(`${api}/flows/settings/versions/${saved.body.versionId}`, { bearer: admin });
    expect(stored.body.warnings).toEqual(saved.body.warnings);
  });

  it('refuses an event source without eventName in spec form too, at the spec path', async () => {
    const spec = {
      flowdef: '1.0',
      info: { title: 'On order' },
      nodes: { 'On order': { kind: 'source', operationId: 'svc/event-source', 'x-config': { eventName: '  ', groupID: 'g' } }, Done: { kind: 'action', 'x-kind': 'end' } },
      edges: [{ from: 'On order', to: 'Done' }],
    };
    const res = await call(`${api}/flows/settings/versions?format=spec`, { method: 'POST', bearer: admin, ...json(spec) });
    expect(res.status).toBe(400);
    expect(detail(res.body)).toEqual([['/nodes/On order/x-config/eventName', 'INVALID_NODE_CONFIG']]);
  });

  it('saves with warnings for conditions that do not parse, cycles without a wait or a condition, and packets that do not match their ports', async () => {
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'warned', name: 'Warned' }) });
    const doc = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hi {{ input.name }}' } },
        { id: 'again', kind: 'action', action_ref: 'svc/template-render', config: { template: 'again' } },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'render' },
        { id: 'e2', from: 'render', to: 'end', condition: 'output.text ==' },
        { id: 'e3', from: 'render', to: 'again' },
        { id: 'e4', from: 'again', to: 'render', packet: 'Numbered' },
      ],
      meta: { positions: positions('start', 'render', 'again', 'end'), packets: { Numbered: { type: 'object', properties: { text: { type: 'number' } } } } },
    };
    const res = await call(`${api}/flows/warned/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(res.status).toBe(201);
    expect(res.body.warnings.map((w: { path: string; code: string; severity: string }) => [w.path, w.code, w.severity])).toEqual([
      ['/edges/1/condition', 'CONDITION_PARSE_ERROR', 'warning'],
      ['/edges/3/packet', 'PACKET_MISMATCH', 'warning'],
      ['/edges/2', 'UNBOUNDED_CYCLE', 'warning'],
    ]);
    expect(res.body.warnings[1].message).toBe('packet "Numbered" does not match output port "out" of "again" (svc/template-render): field "text" is number here but string on the port');
    expect(res.body.warnings[2].message).toContain('nodes "render", "again" form a cycle');
  });

  it('enforces admin access on every flow route', async () => {
    expect((await call(`${api}/flows`)).status).toBe(401);
    expect((await call(`${api}/flows`, { bearer: await token('bob', ['profiles:read']) })).status).toBe(403);
    expect((await call(`${api}/flows/templates`, { bearer: await token('carol', ['admin:access'], { active: false }) })).status).toBe(403);
  });
});
