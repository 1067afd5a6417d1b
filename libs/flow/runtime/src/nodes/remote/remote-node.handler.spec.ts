import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeManifest } from '@flowplane/flow/engine';
import { nodeContext } from '../builtin/test-context';
import { invokeRemoteNode, parseOutputs, type RemoteInvokeOptions, RemoteNodeError, type RemoteNodeRegistration } from './remote-node.handler';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

const manifest: NodeManifest = {
  id: 'crm/lookup',
  name: 'Lookup',
  kind: 'action',
  inputs: [{ port: 'in' }],
  outputs: [{ port: 'out' }, { port: 'Missing' }, { port: 'Error' }],
};

describe('remote node handler over HTTP', () => {
  let server: Server;
  let base: string;
  let reply: (req: IncomingMessage, res: ServerResponse, body: unknown) => void;
  let seen: Seen[];
  let minted: Array<{ step: unknown; ttlSeconds: number }>;
  const options: RemoteInvokeOptions = {
    defaultTimeoutMs: 2000,
    stepToken: async (step, ttlSeconds) => {
      minted.push({ step, ttlSeconds });
      return 'step-token-123';
    },
    requestId: () => 'req-42',
  };
  const reg = (over: Partial<RemoteNodeRegistration> = {}): RemoteNodeRegistration => ({ manifest, invokeUrl: `${base}/invoke?key=secret`, source: 'crm', ...over });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? JSON.parse(text) : undefined;
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        reply(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen = [];
    minted = [];
  });

  it('POSTs {runId, nodeId, stepKey, config, packet, meta} with the step token, request id and idempotency key, and returns the outputs', async () => {
    reply = (_req, res, body) => json(res, 200, { outputs: [{ port: 'out', packet: { echoed: (body as { packet: unknown }).packet } }, { port: 'Missing', packet: null }] });
    const ctx = nodeContext({ email: 'ada@example.com' }, { region: 'eu' }, { meta: { user: 'alice' } });
    const outputs = await invokeRemoteNode(reg(), ctx, options);
    expect(outputs).toEqual([
      { port: 'out', packet: { echoed: { email: 'ada@example.com' } } },
      { port: 'Missing', packet: null },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/invoke?key=secret' });
    expect(seen[0].headers.authorization).toBe('Bearer step-token-123');
    // The token names this step of this node type and lives a little longer than the step may take.
    expect(minted).toEqual([{ step: { runId: 'run-1', nodeId: 'n1', stepKey: 'run-1:run:n1:1', nodeType: manifest.id }, ttlSeconds: 62 }]);
    expect(seen[0].headers['x-request-id']).toBe('req-42');
    expect(seen[0].headers['idempotency-key']).toBe('run-1:run:n1:1');
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(seen[0].body).toEqual({ runId: 'run-1', nodeId: 'n1', stepKey: 'run-1:run:n1:1', config: { region: 'eu' }, packet: { email: 'ada@example.com' }, meta: { user: 'alice' } });
  });

  it('accepts a single {port, packet} answer, and 204 or an empty outputs list as no outputs', async () => {
    reply = (_req, res) => json(res, 200, { port: 'out', packet: 7 });
    expect(await invokeRemoteNode(reg(), nodeContext({}), options)).toEqual([{ port: 'out', packet: 7 }]);
    reply = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    expect(await invokeRemoteNode(reg(), nodeContext({}), options)).toEqual([]);
    reply = (_req, res) => json(res, 200, { outputs: [] });
    expect(await invokeRemoteNode(reg(), nodeContext({}), options)).toEqual([]);
  });

  it("writes the answer's logs lines into the run log (level defaulting to info, malformed lines skipped)", async () => {
    reply = (_req, res) => json(res, 200, { outputs: [], logs: [{ level: 'warn', message: '3 filled, 1 failed', data: { failed: 1 } }, { message: 'done' }, { level: 'loud', message: 'odd level' }, { data: {} }, 'text'] });
    const lines: unknown[] = [];
    const ctx = nodeContext({}, {}, { log: (message, data, level) => void lines.push({ message, data, level }) });
    expect(await invokeRemoteNode(reg(), ctx, options)).toEqual([]);
    expect(lines).toEqual([
      { message: '3 filled, 1 failed', data: { failed: 1 }, level: 'warn' },
      { message: 'done', data: undefined, level: 'info' },
      { message: 'odd level', data: undefined, level: 'info' },
    ]);
  });

  it('throws a clear error on a non-2xx answer, with the remote message and without the query string', async () => {
    reply = (_req, res) => json(res, 503, { statusCode: 503, error: 'Service Unavailable', message: 'crm database is down' });
    const err = await invokeRemoteNode(reg(), nodeContext({}), options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteNodeError);
    expect(err).toMatchObject({ reason: 'status', status: 503 });
    expect((err as Error).message).toBe(`remote node "crm/lookup" (crm, POST ${base}/invoke): answered 503: crm database is down`);
    expect((err as Error).message).not.toContain('secret');
  });

  it('times out with the registration timeout, else the default', async () => {
    reply = () => undefined; // never answers
    const started = Date.now();
    const err = await invokeRemoteNode(reg({ timeoutMs: 150 }), nodeContext({}), options).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'timeout', message: expect.stringContaining('no answer within 150 ms') });
    expect(Date.now() - started).toBeLessThan(1500);
    const viaDefault = await invokeRemoteNode(reg(), nodeContext({}), { ...options, defaultTimeoutMs: 100 }).catch((e: unknown) => e);
    expect(viaDefault).toMatchObject({ reason: 'timeout', message: expect.stringContaining('no answer within 100 ms') });
  });

  it('times out a response whose body stalls after the headers', async () => {
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"outputs": [');
    };
    const err = await invokeRemoteNode(reg({ timeoutMs: 150 }), nodeContext({}), options).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'timeout' });
  });

  it("stops at once when the step's signal aborts", async () => {
    reply = () => undefined;
    const controller = new AbortController();
    const started = Date.now();
    const pending = invokeRemoteNode(reg(), nodeContext({}, {}, { signal: controller.signal }), options).catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('run cancelled')), 50);
    const err = await pending;
    expect(err).toMatchObject({ reason: 'aborted', message: expect.stringContaining('call aborted (run cancelled)') });
    expect(Date.now() - started).toBeLessThan(1000);
    // Already aborted: no request at all.
    seen = [];
    const again = await invokeRemoteNode(reg(), nodeContext({}, {}, { signal: controller.signal }), options).catch((e: unknown) => e);
    expect(again).toMatchObject({ reason: 'aborted' });
    expect(seen).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    }, 'not JSON'],
    ['an empty 200', (res: ServerResponse) => {
      res.writeHead(200);
      res.end();
    }, 'empty body'],
    ['an array', (res: ServerResponse) => json(res, 200, [{ port: 'out', packet: 1 }]), 'expected an object'],
    ['outputs that is not an array', (res: ServerResponse) => json(res, 200, { outputs: { port: 'out' } }), 'outputs must be an array'],
    ['an undeclared port', (res: ServerResponse) => json(res, 200, { outputs: [{ port: 'nope', packet: 1 }] }), 'outputs[0].port "nope" is not an output of the manifest (out, Missing, Error)'],
    ['an output without packet', (res: ServerResponse) => json(res, 200, { port: 'out' }), 'the output has no packet'],
  ])('rejects %s as malformed', async (_what, answer, message) => {
    reply = (_req, res) => answer(res);
    const err = await invokeRemoteNode(reg(), nodeContext({}), options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteNodeError);
    expect(err).toMatchObject({ reason: 'malformed', message: expect.stringContaining(message) });
  });

  it('reports an unreachable invoke URL as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await invokeRemoteNode(reg({ invokeUrl: `http://127.0.0.1:${port}/x` }), nodeContext({}), options).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'network', message: expect.stringContaining('unreachable') });
  });

  it('refuses to call an invoke URL the URL policy forbids, before any request', async () => {
    const err = await invokeRemoteNode(reg(), nodeContext({}), { ...options, urlProblem: () => 'invokeUrl must use https' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'refused', message: expect.stringContaining('invokeUrl must use https') });
    expect(seen).toHaveLength(0);
  });

  it('sends no authorization header without a token provider', async () => {
    reply = (_req, res) => json(res, 200, { port: 'out', packet: 1 });
    await invokeRemoteNode(reg(), nodeContext({}), { defaultTimeoutMs: 1000 });
    expect(seen[0].headers.authorization).toBeUndefined();
  });
});

describe('parseOutputs', () => {
  it('accepts any port when the manifest declares no outputs', () => {
    expect(parseOutputs({ port: 'anything', packet: 1 }, { ...manifest, outputs: [] })).toEqual([{ port: 'anything', packet: 1 }]);
  });
  it('names the bad output', () => {
    expect(parseOutputs({ outputs: [{ port: 'out', packet: 1 }, { port: '' }] }, manifest)).toBe('outputs[1].port must be a non-empty string');
    expect(parseOutputs(null, manifest)).toContain('expected an object');
  });
});
