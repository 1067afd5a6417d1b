import type { NodeRegistry } from '@flowplane/flow/engine';
import { NODE_REGISTRY } from '../../libs/flow/runtime/src/nodes/nodes.module';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token } from '../support/http';

interface ManifestView {
  id: string;
  kind: string;
  settingsSchema?: { properties?: Record<string, Record<string, unknown>> };
  inputs: Array<{ port: string }>;
  outputs: Array<{ port: string }>;
}

describe('node listing and built-in nodes through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const ports = (m: ManifestView | undefined) => ({ kind: m?.kind, inputs: m?.inputs.map((p) => p.port), outputs: m?.outputs.map((p) => p.port) });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access', 'profiles:*']);
    api = `${platform.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('lists the six built-in nodes with their kinds and ports', async () => {
    const res = await call(`${api}/flows/nodes`, { bearer: admin });
    expect(res.status).toBe(200);
    const byId = new Map<string, ManifestView>((res.body as ManifestView[]).map((m) => [m.id, m]));
    expect(ports(byId.get('svc/event-source'))).toEqual({ kind: 'start', inputs: [], outputs: ['out'] });
    expect(ports(byId.get('svc/template-render'))).toEqual({ kind: 'action', inputs: ['in'], outputs: ['out'] });
    expect(ports(byId.get('svc/router'))).toEqual({ kind: 'gateway', inputs: ['in'], outputs: ['out'] });
    expect(ports(byId.get('svc/email-send'))).toEqual({ kind: 'action', inputs: ['Email'], outputs: ['Sent', 'Error'] });
    expect(ports(byId.get('svc/emit-event'))).toEqual({ kind: 'action', inputs: ['in'], outputs: ['out', 'Error'] });
    expect(ports(byId.get('svc/http-request'))).toEqual({ kind: 'action', inputs: ['in'], outputs: ['out', 'Error'] });
    expect(byId.get('svc/event-source')?.settingsSchema?.properties?.['eventName']).toMatchObject({ type: 'string', title: 'Event name' });
  });

  it('fills profile selectors with live profile ids', async () => {
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime');
    const registry = flowRuntime?.app.get<NodeRegistry>(NODE_REGISTRY);
    registry?.define(
      {
        id: 'test/chat',
        name: 'Chat',
        kind: 'action',
        settingsSchema: { type: 'object', properties: { profile: { type: 'string', 'x-profile-kind': 'llm-chat' }, other: { type: 'string', 'x-profile-kind': 'nomodule/unknown-kind' } } },
        inputs: [{ port: 'in' }],
        outputs: [{ port: 'out' }],
      },
      (ctx) => ({ port: 'out', packet: ctx.input }),
    );
    const created = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'chat-e2e', name: 'Chat e2e', config: { providerID: 'local' } }),
    });
    expect(created.status).toBe(201);
    const res = await call(`${api}/flows/nodes`, { bearer: admin });
    const chat = (res.body as ManifestView[]).find((m) => m.id === 'test/chat');
    expect(chat?.settingsSchema?.properties?.['profile']).toMatchObject({ 'x-profile-kind': 'llm-chat', enum: expect.arrayContaining(['chat-e2e']) });
    expect(chat?.settingsSchema?.properties?.['other']).toMatchObject({ 'x-options-unavailable': true });
    expect(chat?.settingsSchema?.properties?.['other']?.['enum']).toBeUndefined();
    registry?.unregister('test/chat');
  });

  it('publishes and runs the flow/echo template, which uses svc/template-render', async () => {
    const spec = await call(`${api}/flows/templates/flow/echo`, { bearer: admin });
    expect(spec.status).toBe(200);
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'echo', name: 'Echo' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/echo/versions?format=spec`, { method: 'POST', bearer: admin, ...json(spec.body) });
    expect(saved.status).toBe(201);
    const published = await call(`${api}/flows/echo/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ target: { versionId: saved.body.versionId } });
    const run = await call(`${api}/flows/echo/runs`, { method: 'POST', bearer: admin, ...json({ input: { name: 'Ada' } }) });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', output: { name: 'Ada', text: 'Hello, Ada!' } });
  });

  it('gives svc/llm-chat and svc/guard a form order and types baseURL as a URI', async () => {
    const res = await call(`${api}/flows/nodes`, { bearer: admin });
    const byId = new Map<string, ManifestView & { settingsSchema: { 'x-ui'?: { order?: string[] } } }>((res.body as Array<ManifestView & { settingsSchema: { 'x-ui'?: { order?: string[] } } }>).map((m) => [m.id, m]));
    for (const id of ['svc/llm-chat', 'svc/guard']) {
      const schema = byId.get(id)!.settingsSchema;
      // Every property once, in the order of their x-order hints.
      const props = Object.entries(schema.properties ?? {}).sort(([, a], [, b]) => Number(a['x-order']) - Number(b['x-order']));
      expect(schema['x-ui']?.order).toEqual(props.map(([key]) => key));
    }
    expect(byId.get('svc/llm-chat')!.settingsSchema.properties?.['baseURL']).toMatchObject({ type: 'string', format: 'uri' });
  });

  const chatFlow = (config: Record<string, unknown>, actionRef = 'svc/llm-chat') => ({
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'chat', kind: 'action', action_ref: actionRef, config },
      { id: 'end', kind: 'end' },
      { id: 'failed', kind: 'end', config: { status: 'rejected' } },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'chat' },
      { id: 'e2', from: 'chat', to: 'end', port: 'Reply' },
      { id: 'e3', from: 'chat', to: 'failed', port: 'Error' },
    ],
    meta: { positions: { start: { x: 0, y: 0 }, chat: { x: 1, y: 0 }, end: { x: 2, y: 0 }, failed: { x: 2, y: 1 } } },
  });

  it('fails a run with INVALID_NODE_CONFIG naming node and field when a merged profile value breaks the settings schema', async () => {
    const profile = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'too-hot', name: 'Too hot', config: { providerID: 'local', model: 'echo', temperature: 5 } }),
    });
    expect(profile.status).toBe(201);
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'too-hot', name: 'Too hot' }) })).status).toBe(201);
    // The stored config is fine (the profile's temperature is only seen at run time).
    const saved = await call(`${api}/flows/too-hot/versions`, { method: 'POST', bearer: admin, ...json(chatFlow({ profile: 'too-hot' })) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/too-hot/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const run = await call(`${api}/flows/too-hot/runs`, { method: 'POST', bearer: admin, ...json({ input: { prompt: 'hi' } }) });
    expect(run.status).toBe(200);
    // Failed, not routed to the Error port: the flow cannot handle a configuration it was never given.
    expect(run.body).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_NODE_CONFIG', nodeId: 'chat', field: '/temperature', message: 'node "chat" (svc/llm-chat): config /temperature must be <= 2 (with profile llm/llm-chat/too-hot merged)' },
    });
    // A node value within range wins over the profile's, and the run goes through.
    const fixed = await call(`${api}/flows/too-hot/versions`, { method: 'POST', bearer: admin, ...json(chatFlow({ profile: 'too-hot', temperature: 0.7 })) });
    expect((await call(`${api}/flows/too-hot/publish`, { method: 'POST', bearer: admin, ...json({ versionID: fixed.body.versionId }) })).status).toBe(200);
    expect((await call(`${api}/flows/too-hot/runs`, { method: 'POST', bearer: admin, ...json({ input: { prompt: 'hi' } }) })).body).toMatchObject({ status: 'completed', output: { content: expect.any(String) } });
  });

  it('refuses at publish a version whose node config the node settings schema now refuses', async () => {
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime');
    const registry = flowRuntime!.app.get<NodeRegistry>(NODE_REGISTRY);
    const define = (level: Record<string, unknown>) =>
      registry.register(
        {
          manifest: { id: 'test/levels', name: 'Levels', kind: 'action', settingsSchema: { type: 'object', properties: { level: level } }, inputs: [{ port: 'in' }], outputs: [{ port: 'Reply' }] },
          handler: (ctx) => ({ port: 'Reply', packet: ctx.config }),
        },
        { replace: true },
      );
    define({ type: 'string' });
    try {
      expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'levels', name: 'Levels' }) })).status).toBe(201);
      const saved = await call(`${api}/flows/levels/versions`, { method: 'POST', bearer: admin, ...json(chatFlow({ level: 'high' }, 'test/levels')) });
      expect(saved.status).toBe(201);
      // The node registers again with a narrower schema before the version is published.
      define({ type: 'string', enum: ['low', 'medium'] });
      const res = await call(`${api}/flows/levels/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'INVALID_NODE_CONFIG',
        message: 'invalid node config: node "chat" (test/levels): level must be one of "low", "medium"',
        details: [{ field: `${saved.body.versionId}#/nodes/1/config/level`, code: 'INVALID_NODE_CONFIG' }],
      });
      expect((await call(`${api}/flows/levels`, { bearer: admin })).body.published).toBeFalsy();
    } finally {
      registry.unregister('test/levels');
    }
  });

  it('requires an active user with admin:access', async () => {
    expect((await call(`${api}/flows/nodes`)).status).toBe(401);
    expect((await call(`${api}/flows/nodes`, { bearer: await token('bob', ['profiles:read']) })).status).toBe(403);
    expect((await call(`${api}/flows/nodes`, { bearer: await token('carol', ['admin:access'], { active: false }) })).status).toBe(403);
  });
});
