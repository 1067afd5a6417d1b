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

  it('requires an active user with admin:access', async () => {
    expect((await call(`${api}/flows/nodes`)).status).toBe(401);
    expect((await call(`${api}/flows/nodes`, { bearer: await token('bob', ['profiles:read']) })).status).toBe(403);
    expect((await call(`${api}/flows/nodes`, { bearer: await token('carol', ['admin:access'], { active: false }) })).status).toBe(403);
  });
});
