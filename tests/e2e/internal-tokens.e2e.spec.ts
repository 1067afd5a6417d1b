import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTERNAL_PERMS, internalPermsFor } from '@flowplane/contracts';
import { listRoutes } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, serviceToken, testEnv, token } from '../support/http';

/**
 * Internal tokens are scoped: a service token names the one service it is for and the permission
 * of the call, and a remote node gets a token of its own that names the run step. A remote node
 * that replays what it received gets nothing from any service.
 */

const API_KEY = 'sk-internal-tokens-e2e-0123456789';

const manifest = {
  id: 'crm/capture',
  name: 'Capture',
  kind: 'action',
  inputs: [{ port: 'in' }],
  outputs: [{ port: 'out' }],
};

const flow = {
  name: 'Through a remote node',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'capture', name: 'Capture', kind: 'action', action_ref: 'crm/capture' },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'capture' },
    { id: 'e2', from: 'capture', to: 'end', port: 'out' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, capture: { x: 200, y: 0 }, end: { x: 400, y: 0 } } },
};

describe('internal tokens: audience per service, least permission, step tokens for remote nodes', () => {
  let platform: Standalone;
  let remote: Server;
  let remoteUrl: string;
  let api: string;
  let admin: string;
  const url = (service: string) => platform.services.find((s) => s.name === service)!.url;
  const captured: string[] = [];

  beforeAll(async () => {
    // A remote node that keeps the bearer it is sent, as a compromised or hostile node would.
    remote = createServer((req, res) => {
      captured.push(String(req.headers.authorization ?? '').replace(/^Bearer /i, ''));
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ port: 'out', packet: { ok: true } }));
      });
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;

    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access', 'profiles:*']);
    const profile = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'vault', name: 'Vault', config: { providerID: 'openai', apiKey: API_KEY, model: 'gpt-4o-mini' } }),
    });
    expect(profile.status).toBe(201);
  });
  afterAll(async () => {
    await platform?.close();
    remote?.closeAllConnections();
    await new Promise((r) => remote?.close(r));
  });

  it('a bearer captured by a remote node opens no internal route of any service, nor any user route', async () => {
    const registrar = await serviceToken('crm', 'flow-runtime', [INTERNAL_PERMS.nodesRegister]);
    const registered = await call(`${url('flow-runtime')}/internal/nodes/crm/capture`, { method: 'PUT', bearer: registrar, ...json({ manifest, invokeUrl: `${remoteUrl}/capture` }) });
    expect(registered.status).toBe(200);
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'capture', name: 'Capture' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/capture/versions`, { method: 'POST', bearer: admin, ...json(flow) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/capture/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const run = await call(`${api}/flows/capture/runs`, { method: 'POST', bearer: admin, ...json({ input: {} }) });
    expect(run.body).toMatchObject({ status: 'completed' });

    const stolen = captured.at(-1)!;
    expect(stolen).toMatch(/^ey/);
    const attempts: Array<[string, string, string?]> = [
      ['GET', `${url('profiles')}/internal/profiles/llm/llm-chat/vault`],
      ['GET', `${url('profiles')}/internal/profiles/llm/llm-chat`],
      ['GET', `${url('profiles')}/internal/settings/llm`],
      ['GET', `${url('profiles')}/internal/public-settings`],
      ['GET', `${url('deployments')}/internal/deployments`],
      ['PUT', `${url('flow-runtime')}/internal/nodes/crm/evil`, JSON.stringify({ manifest: { ...manifest, id: 'crm/evil' }, invokeUrl: `${remoteUrl}/evil` })],
      ['GET', `${url('flow-runtime')}/internal/options/llm.providers`],
      ['POST', `${url('search')}/internal/nodes/search-query`, JSON.stringify({ config: { index: 'docs' }, packet: { text: 'x' } })],
      ...platform.services.map((s): [string, string] => ['GET', `${s.url}/internal/info`]),
      ['GET', `${api}/flows`],
      ['GET', `${api}/admin/profiles`],
    ];
    const answers = [];
    for (const [method, target, body] of attempts) {
      const res = await call(target, { method, bearer: stolen, ...(body ? { headers: { 'content-type': 'application/json' }, body } : {}) });
      answers.push([method, target.replace(/^http:\/\/[^/]+/, ''), res.status]);
      expect(res.text).not.toContain(API_KEY);
    }
    expect(answers.filter(([, , status]) => status !== 401 && status !== 403)).toEqual([]);
    // The profile really is there: a service token with the resolve permission for profiles gets it.
    const resolver = await serviceToken('flow-runtime', 'profiles', [INTERNAL_PERMS.profilesResolve]);
    const resolved = await call(`${url('profiles')}/internal/profiles/llm/llm-chat/vault`, { bearer: resolver });
    expect(resolved.status).toBe(200);
    expect(resolved.text).toContain(API_KEY);
  });

  it('refuses a service token for another service (401) and one without the route permission (403)', async () => {
    const resolve = `${url('profiles')}/internal/profiles/llm/llm-chat/vault`;
    const forDeployments = await serviceToken('flow-runtime', 'deployments', [INTERNAL_PERMS.profilesResolve, INTERNAL_PERMS.deploymentsRead]);
    expect((await call(resolve, { bearer: forDeployments })).status).toBe(401);
    expect((await call(`${url('deployments')}/internal/deployments`, { bearer: forDeployments })).status).toBe(200);
    const forFlowRuntime = await serviceToken('search', 'flow-runtime', [INTERNAL_PERMS.nodesRegister]);
    expect((await call(`${url('deployments')}/internal/deployments`, { bearer: forFlowRuntime })).status).toBe(401);

    const listOnly = await serviceToken('flow-runtime', 'profiles', [INTERNAL_PERMS.profilesList]);
    expect((await call(`${url('profiles')}/internal/profiles/llm/llm-chat`, { bearer: listOnly })).status).toBe(200);
    const denied = await call(resolve, { bearer: listOnly });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ statusCode: 403, message: expect.stringContaining(INTERNAL_PERMS.profilesResolve) });
    // The old all-powerful token shape opens nothing.
    expect((await call(resolve, { bearer: await token('svc:flow-runtime', ['internal']) })).status).toBe(403);
  });

  it('refuses a remote node whose plain-http URL is outside the allow list with 400; https and loopback are fine', async () => {
    const registrar = await serviceToken('crm', 'flow-runtime', [INTERNAL_PERMS.nodesRegister]);
    const register = (invokeUrl: string) => call(`${url('flow-runtime')}/internal/nodes/crm/far`, { method: 'PUT', bearer: registrar, ...json({ manifest: { ...manifest, id: 'crm/far' }, invokeUrl }) });
    const refused = await register('http://crm.example.com/nodes/far');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ statusCode: 400, code: 'REMOTE_NODE_INVALID', details: [{ field: 'invokeUrl', problems: [expect.stringContaining('invokeUrl must use https')] }] });
    expect((await register('https://crm.example.com/nodes/far')).status).toBe(200);
    expect((await register('http://localhost:9/nodes/far')).status).toBe(200);
    expect((await call(`${url('flow-runtime')}/internal/nodes/crm/far`, { method: 'DELETE', bearer: registrar })).status).toBe(204);
  });

  it('keeps the calls between services working: the gateway reads /internal/info of every service', async () => {
    const system = await call(`${api}/admin/system`, { bearer: admin });
    expect(system.status).toBe(200);
    expect((system.body.services as Array<{ status: string }>).every((s) => s.status === 'up')).toBe(true);
  });

  it('every internal route names the permission the service clients ask for', () => {
    const mismatched: string[] = [];
    let internal = 0;
    for (const svc of [platform.gateway, ...platform.services]) {
      for (const r of listRoutes(svc.app)) {
        if (!r.access?.internal) continue;
        internal++;
        const declared = r.access.internalPerms ?? [];
        const asked = internalPermsFor(svc.name, r.method, r.path);
        if (declared.length !== 1 || asked.join() !== declared.join()) mismatched.push(`${svc.name} ${r.method} ${r.path}: declares [${declared}], clients ask [${asked}]`);
      }
    }
    expect(internal).toBeGreaterThan(20);
    expect(mismatched).toEqual([]);
  });
});
