import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, serviceToken, testEnv, token } from '../support/http';

interface Invocation {
  path?: string;
  headers: IncomingHttpHeaders;
  body: { runId: string; nodeId: string; stepKey: string; config: Record<string, unknown>; packet: Record<string, unknown>; meta: Record<string, unknown> };
}

const manifest = {
  id: 'crm/lookup',
  name: 'Look up customer',
  kind: 'action',
  description: 'Finds the customer of an email address in the CRM.',
  settingsSchema: { type: 'object', properties: { region: { type: 'string', title: 'Region', default: 'eu' } } },
  inputs: [{ port: 'in', schema: { type: 'object', properties: { email: { type: 'string' } } } }],
  outputs: [{ port: 'out' }, { port: 'Error' }],
};

const flow = {
  name: 'Remote lookup',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'lookup', name: 'Lookup', kind: 'action', action_ref: 'crm/lookup', config: { region: 'us' } },
    { id: 'found', name: 'Found', kind: 'end' },
    { id: 'failed', name: 'Failed', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'lookup' },
    { id: 'e2', from: 'lookup', to: 'found', port: 'out' },
    { id: 'e3', from: 'lookup', to: 'failed', port: 'Error' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, lookup: { x: 200, y: 0 }, found: { x: 400, y: 0 }, failed: { x: 400, y: 100 } } },
};

/** The claims of a JWT, unverified (the test only checks who flow-runtime says it is). */
function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('remote nodes registered by another service', () => {
  let platform: Standalone;
  let remote: Server;
  let remoteUrl: string;
  let runtimeUrl: string;
  let api: string;
  let admin: string;
  let svc: string;
  const invocations: Invocation[] = [];
  const register = (id: string, body: unknown, bearer?: string) => call(`${runtimeUrl}/internal/nodes/${id}`, { method: 'PUT', bearer, ...json(body) });

  beforeAll(async () => {
    // The "CRM service": answers each step with the customer found for the packet's email.
    remote = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(text) as Invocation['body'];
        invocations.push({ path: req.url, headers: req.headers, body });
        if (body.packet.email === 'boom@example.com') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ statusCode: 500, message: 'crm exploded' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ outputs: [{ port: 'out', packet: { customerId: `c-${body.config.region}-1`, email: body.packet.email } }] }));
      });
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;

    platform = await startStandalone({ env: testEnv() });
    runtimeUrl = platform.services.find((s) => s.name === 'flow-runtime')!.url;
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    svc = await serviceToken('crm', 'flow-runtime', ['internal:nodes:register']);
  });
  afterAll(async () => {
    await platform?.close();
    remote?.closeAllConnections();
    await new Promise((r) => remote?.close(r));
  });

  it('accepts registrations only with a service token for flow-runtime that may register nodes', async () => {
    const body = { manifest, invokeUrl: `${remoteUrl}/nodes/lookup` };
    expect((await register('crm/lookup', body)).status).toBe(401);
    expect((await register('crm/lookup', body, admin)).status).toBe(403);
    expect((await register('crm/lookup', body, await token('root', [], { superuser: true }))).status).toBe(403);
    expect((await register('crm/lookup', body, await token('svc:crm', ['internal']))).status).toBe(403);
    expect((await register('crm/lookup', body, await serviceToken('crm', 'flow-runtime', ['internal:flows:seed']))).status).toBe(403);
    expect((await register('crm/lookup', body, await serviceToken('crm', 'profiles', ['internal:nodes:register']))).status).toBe(401);
  });

  it('rejects an invalid registration with 400 and a built-in id with 409', async () => {
    const mismatch = await register('crm/other', { manifest, invokeUrl: `${remoteUrl}/x` }, svc);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details).toEqual([{ field: 'manifest.id', problems: [expect.stringContaining('must equal the id in the path')] }]);
    const badKind = await register('crm/lookup', { manifest: { ...manifest, kind: 'widget' }, invokeUrl: `${remoteUrl}/x` }, svc);
    expect(badKind.status).toBe(400);
    expect(badKind.body.details).toEqual([expect.objectContaining({ field: 'manifest.kind' })]);
    const badUrl = await register('crm/lookup', { manifest, invokeUrl: 'file:///etc/passwd' }, svc);
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.details).toEqual([{ field: 'invokeUrl', problems: ['invokeUrl must use http or https, not file'] }]);
    const builtin = await register('svc/http-request', { manifest: { ...manifest, id: 'svc/http-request' }, invokeUrl: `${remoteUrl}/x` }, svc);
    expect(builtin.status).toBe(409);
    expect(builtin.body).toMatchObject({ statusCode: 409, message: expect.stringContaining('built into flow-runtime') });
  });

  it('registers a remote node, lists it beside the built-ins, publishes and runs a flow with it', async () => {
    const registered = await register('crm/lookup', { manifest, invokeUrl: `${remoteUrl}/nodes/lookup`, timeoutMs: 5000 }, svc);
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({ id: 'crm/lookup', source: 'crm', timeoutMs: 5000, created: true });

    const listed = await call(`${api}/flows/nodes`, { bearer: admin });
    expect(listed.status).toBe(200);
    const byId = new Map<string, Record<string, unknown>>((listed.body as Array<Record<string, unknown>>).map((m) => [m['id'] as string, m]));
    expect(byId.get('crm/lookup')).toMatchObject({ name: 'Look up customer', kind: 'action', remote: true, source: 'crm', timeoutMs: 5000, outputs: [{ port: 'out' }, { port: 'Error' }] });
    expect(byId.get('crm/lookup')).not.toHaveProperty('invokeUrl');
    expect(byId.get('svc/http-request')).toMatchObject({ remote: false });

    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'remote-lookup', name: 'Remote lookup' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/remote-lookup/versions`, { method: 'POST', bearer: admin, ...json(flow) });
    expect(saved.status).toBe(201);
    const published = await call(`${api}/flows/remote-lookup/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) });
    expect(published.status).toBe(200);

    const run = await call(`${api}/flows/remote-lookup/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'ada@example.com' }, meta: { channel: 'e2e' } }) });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', output: { customerId: 'c-us-1', email: 'ada@example.com' } });

    const seen = invocations.at(-1)!;
    expect(seen.path).toBe('/nodes/lookup');
    expect(seen.body).toMatchObject({ runId: run.body.runId, nodeId: 'lookup', config: { region: 'us' }, packet: { email: 'ada@example.com' }, meta: expect.objectContaining({ channel: 'e2e' }) });
    const bearer = String(seen.headers.authorization ?? '').replace(/^Bearer /, '');
    // A token of its own that names the run step and opens nothing else, never flow-runtime's service token.
    const c = claims(bearer);
    expect(c).toMatchObject({ sub: `run:${run.body.runId}/lookup`, aud: 'node:crm/lookup', perms: [], step: seen.body.stepKey });
    expect(Number(c.exp) - Number(c.iat)).toBeLessThanOrEqual(5 + 60);
  });

  it("routes a remote failure to the node's Error port", async () => {
    const run = await call(`${api}/flows/remote-lookup/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'boom@example.com' } }) });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', output: { error: expect.stringContaining('answered 500: crm exploded') } });
  });

  it('fails the run when the remote node answers 5xx and no edge takes its Error port', async () => {
    // One edge per port, selected by condition (spec rule 6), and none drawn for Error.
    const noErrorEdge = {
      ...flow,
      nodes: flow.nodes.filter((n) => n.id !== 'failed'),
      edges: [
        { id: 'e1', from: 'start', to: 'lookup' },
        { id: 'e2', from: 'lookup', to: 'found', condition: 'port == "out"' },
      ],
    };
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'remote-no-error-edge', name: 'No error edge' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/remote-no-error-edge/versions`, { method: 'POST', bearer: admin, ...json(noErrorEdge) });
    expect((await call(`${api}/flows/remote-no-error-edge/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);

    const ok = await call(`${api}/flows/remote-no-error-edge/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'ada@example.com' } }) });
    expect(ok.body).toMatchObject({ status: 'completed', output: { customerId: 'c-us-1' } });
    const run = await call(`${api}/flows/remote-no-error-edge/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'boom@example.com' } }) });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'failed', error: { code: 'REMOTE_NODE_ERROR', nodeId: 'lookup', message: expect.stringContaining('answered 500: crm exploded') } });
    expect(run.body.output).toBeUndefined();
    const stored = await call(`${api}/runs/${run.body.runId}`, { bearer: admin });
    expect(stored.body).toMatchObject({ status: 'failed', error: { code: 'REMOTE_NODE_ERROR' } });
    expect(stored.body.timeline.map((e: { type: string }) => e.type)).toContain('run.failed');
  });

  it('applies a manifest registered again to the already published version at once', async () => {
    const runOnce = async () => {
      const run = await call(`${api}/flows/remote-lookup/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'ada@example.com' } }) });
      expect(run.body).toMatchObject({ status: 'completed' });
      return invocations.at(-1)!;
    };
    // The config a step gets holds the manifest's settings: unknown keys dropped, defaults filled.
    expect((await runOnce()).body.config).toEqual({ region: 'us' });
    const v2 = { ...manifest, settingsSchema: { type: 'object', properties: { ...manifest.settingsSchema.properties, tier: { type: 'string', default: 'gold' } } } };
    const again = await register('crm/lookup', { manifest: v2, invokeUrl: `${remoteUrl}/nodes/lookup` }, svc);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false });
    const seen = await runOnce();
    expect(seen.body.config).toEqual({ region: 'us', tier: 'gold' });
    // Every step has its own idempotency key, also sent as a header.
    expect(seen.headers['idempotency-key']).toBe((seen.body as unknown as { stepKey: string }).stepKey);
    expect((seen.body as unknown as { stepKey: string }).stepKey).toMatch(new RegExp(`^${seen.body.runId}:`));
  });

  it('unregisters the node: gone from the listing, publishing it is refused, runs of the cached version fail clearly', async () => {
    expect((await call(`${runtimeUrl}/internal/nodes/crm/lookup`, { method: 'DELETE', bearer: admin })).status).toBe(403);
    expect((await call(`${runtimeUrl}/internal/nodes/crm/lookup`, { method: 'DELETE', bearer: svc })).status).toBe(204);
    expect((await call(`${runtimeUrl}/internal/nodes/crm%2Flookup`, { method: 'DELETE', bearer: svc })).status).toBe(404);
    expect((await call(`${runtimeUrl}/internal/nodes/svc/http-request`, { method: 'DELETE', bearer: svc })).status).toBe(409);

    const listed = await call(`${api}/flows/nodes`, { bearer: admin });
    expect((listed.body as Array<{ id: string }>).map((m) => m.id)).not.toContain('crm/lookup');

    const saved = await call(`${api}/flows/remote-lookup/versions`, { method: 'POST', bearer: admin, ...json({ ...flow, description: 'v2' }) });
    const published = await call(`${api}/flows/remote-lookup/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) });
    expect(published.status).toBe(400);

    const run = await call(`${api}/flows/remote-lookup/runs`, { method: 'POST', bearer: admin, ...json({ input: { email: 'ada@example.com' } }) });
    expect(run.body).toMatchObject({ output: { error: expect.stringContaining('is not registered any more') } });
  });

  it('accepts the id as one encoded path segment too', async () => {
    const res = await register('crm%2Flookup', { manifest, invokeUrl: `${remoteUrl}/nodes/lookup` }, svc);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'crm/lookup', created: true });
    expect((await call(`${runtimeUrl}/internal/nodes/crm%2Flookup`, { method: 'DELETE', bearer: svc })).status).toBe(204);
  });
});
