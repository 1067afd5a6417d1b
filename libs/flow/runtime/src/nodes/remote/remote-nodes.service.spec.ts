import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BadRequestException, Logger } from '@nestjs/common';
import { NodeRegistry } from '@flowplane/flow/engine';
import { createValidationPipe, DomainException } from '@flowplane/platform/http';
import type { ServiceContext } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { nodeContext } from '../builtin/test-context';
import { RegisterRemoteNodeDto } from './remote-node.dto';
import { REMOTE_NODES_COLLECTION, RemoteNodesService } from './remote-nodes.service';

const ctx = { name: 'flow-runtime', config: { FLOW_NODE_TIMEOUT_MS: 2000 }, env: {}, serviceUrls: {} } as unknown as ServiceContext;

function body(id: string, invokeUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifest: {
      id,
      name: 'Lookup',
      kind: 'action',
      settingsSchema: { type: 'object', properties: { region: { type: 'string', default: 'eu', 'x-order': 1 } } },
      inputs: [{ port: 'in' }],
      outputs: [{ port: 'out', schema: { type: 'object' } }, { port: 'Error' }],
    },
    invokeUrl,
    ...extra,
  };
}

/** Runs a body through the platform's global validation pipe, as the route does. */
async function validated(raw: unknown): Promise<RegisterRemoteNodeDto> {
  return (await createValidationPipe().transform(raw, { type: 'body', metatype: RegisterRemoteNodeDto })) as RegisterRemoteNodeDto;
}

async function rejection(p: Promise<unknown>): Promise<{ status: number; details: unknown; message: string }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof DomainException) return { status: e.status, details: e.body?.['details'], message: e.message };
  const res = (e as BadRequestException).getResponse() as { details: unknown; message: string };
  return { status: (e as BadRequestException).getStatus(), details: res.details, message: res.message };
}

describe('RemoteNodesService', () => {
  let store: Store;
  let server: Server;
  let url: string;
  const services: RemoteNodesService[] = [];
  const builtin = () =>
    new NodeRegistry([{ manifest: { id: 'svc/echo', name: 'Echo', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, handler: (c) => ({ port: 'out', packet: c.input }) }]);
  const replica = async (registry = builtin()) => {
    const s = new RemoteNodesService(registry, store, ctx, null, 0);
    await s.onModuleInit();
    services.push(s);
    return { s, registry };
  };

  beforeAll(async () => {
    Logger.overrideLogger(false);
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const { packet, config } = JSON.parse(text) as { packet: unknown; config: unknown };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ port: 'out', packet: { path: req.url, packet, config } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of services) await s.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    store = createMemoryStore();
  });

  it('registers into the registry and the store, and a second replica loads it at startup', async () => {
    const a = await replica();
    const view = await a.s.register('crm/lookup', await validated(body('crm/lookup', `${url}/v1`, { timeoutMs: 1500 })), 'crm');
    expect(view).toMatchObject({ id: 'crm/lookup', source: 'crm', invokeUrl: `${url}/v1`, timeoutMs: 1500, created: true });
    expect(a.registry.get('crm/lookup')?.manifest).toMatchObject({ id: 'crm/lookup', kind: 'action', timeoutMs: 1500, outputs: [{ port: 'out' }, { port: 'Error' }] });
    expect(a.s.isRemote('crm/lookup')).toBe(true);
    expect(a.s.sourceOf('crm/lookup')).toBe('crm');
    expect(a.s.isRemote('svc/echo')).toBe(false);
    expect(await store.collection(REMOTE_NODES_COLLECTION).countDocuments({})).toBe(1);

    const b = await replica();
    expect(b.registry.has('crm/lookup')).toBe(true);
    const out = await b.registry.get('crm/lookup')!.handler(nodeContext({ q: 1 }, { region: 'us' }));
    expect(out).toEqual([{ port: 'out', packet: { path: '/v1', packet: { q: 1 }, config: { region: 'us' } } }]);
  });

  it('keeps one handler per id that follows re-registrations, and fails clearly once unregistered', async () => {
    const a = await replica();
    await a.s.register('crm/lookup', await validated(body('crm/lookup', `${url}/v1`)), 'crm');
    const bound = a.registry.get('crm/lookup')!.handler; // as a compiled, cached version holds it
    const again = await a.s.register('crm/lookup', await validated(body('crm/lookup', `${url}/v2`)), 'crm');
    expect(again.created).toBe(false);
    expect(a.registry.get('crm/lookup')!.handler).toBe(bound);
    expect(await bound(nodeContext({}))).toEqual([{ port: 'out', packet: expect.objectContaining({ path: '/v2' }) }]);

    await a.s.unregister('crm/lookup');
    expect(a.registry.has('crm/lookup')).toBe(false);
    expect(() => bound(nodeContext({}))).toThrow('remote node "crm/lookup" is not registered any more');
    expect(await rejection(a.s.unregister('crm/lookup'))).toMatchObject({ status: 404 });
  });

  it("sees another replica's registration and removal on the next refresh", async () => {
    const a = await replica();
    const b = await replica();
    await a.s.register('crm.lookup', await validated(body('crm.lookup', url)), 'crm');
    expect(b.registry.has('crm.lookup')).toBe(false);
    await b.s.sync();
    expect(b.registry.has('crm.lookup')).toBe(true);
    await a.s.unregister('crm.lookup');
    await b.s.sync();
    expect(b.registry.has('crm.lookup')).toBe(false);
  });

  it('refuses to replace or remove a built-in (409), and ignores a stored registration that collides with one', async () => {
    const a = await replica();
    expect(await rejection(a.s.register('svc/echo', await validated(body('svc/echo', url)), 'crm'))).toMatchObject({ status: 409 });
    expect(await rejection(a.s.unregister('svc/echo'))).toMatchObject({ status: 409 });
    await store.collection(REMOTE_NODES_COLLECTION).insertOne({ _id: 'svc/echo', manifestJson: JSON.stringify(body('svc/echo', url)['manifest']), invokeUrl: url, timeoutMs: null, source: 'x', revision: 'r1', registeredAt: new Date() });
    await a.s.sync();
    expect(a.registry.get('svc/echo')!.manifest.name).toBe('Echo');
    expect(a.s.isRemote('svc/echo')).toBe(false);
  });

  it('answers 400 naming what is wrong', async () => {
    const a = await replica();
    const bad = async (raw: Record<string, unknown>, id = 'crm/lookup') => rejection(validated(raw).then((dto) => a.s.register(id, dto, 'crm')));

    expect(await bad(body('crm/other', url))).toMatchObject({ status: 400, details: [{ field: 'manifest.id', problems: [expect.stringContaining('must equal the id in the path')] }] });
    expect(await bad(body('crm/lookup', 'ftp://crm/x'))).toMatchObject({ status: 400, details: [{ field: 'invokeUrl', problems: ['invokeUrl must use http or https, not ftp'] }] });
    expect(await bad(body('crm/lookup', 'http://user:pw@crm/x'))).toMatchObject({ status: 400, details: [{ field: 'invokeUrl' }] });
    expect(await bad(body('crm/lookup', 'not a url'))).toMatchObject({ status: 400, details: [{ field: 'invokeUrl', problems: ['invokeUrl must be an absolute URL'] }] });

    const m = (over: Record<string, unknown>) => ({ ...body('crm/lookup', url), manifest: { ...(body('crm/lookup', url)['manifest'] as object), ...over } });
    expect(await bad(m({ kind: 'widget' }))).toMatchObject({ status: 400, details: [{ field: 'manifest.kind' }] });
    expect(await bad(m({ name: undefined }))).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'manifest.name' })] });
    expect(await bad(m({ settingsSchema: 'nope' }))).toMatchObject({ status: 400, details: [{ field: 'manifest.settingsSchema' }] });
    expect(await bad(m({ settingsSchema: { type: 'array' } }))).toMatchObject({ status: 400, details: [{ field: 'manifest.settingsSchema', problems: ['settingsSchema.type must be "object"'] }] });
    expect(await bad(m({ settingsSchema: { type: 'object', properties: { a: { type: 'strang' } } } }))).toMatchObject({
      status: 400,
      details: [{ field: 'manifest.settingsSchema', problems: expect.arrayContaining([expect.stringContaining('not a valid JSON Schema')]) }],
    });
    expect(await bad(m({ outputs: [{ port: 'out' }, { port: 'out' }] }))).toMatchObject({ status: 400, details: [{ field: 'manifest.outputs.1.port' }] });
    expect(await bad(m({ inputs: [{ port: 'in', extra: 1 }] }))).toMatchObject({ status: 400, details: [{ field: 'manifest.inputs.0.extra', problems: ['property extra should not exist'] }] });
    expect(await bad(m({ outputs: 'out' }))).toMatchObject({ status: 400 });
    expect(await bad({ ...body('crm/lookup', url), owner: 'me' })).toMatchObject({ status: 400 });
    expect(await bad({ invokeUrl: url })).toMatchObject({ status: 400, details: [{ field: 'manifest', problems: ['manifest must be an object'] }] });
    expect(await bad({ manifest: [], invokeUrl: url })).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'manifest' })] });
    expect(await bad(body('crm/lookup', url, { timeoutMs: 0 }))).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'timeoutMs' })] });
    expect(a.registry.has('crm/lookup')).toBe(false);
  });
});
