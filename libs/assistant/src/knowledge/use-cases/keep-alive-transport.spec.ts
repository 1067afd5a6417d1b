import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient, type ServiceCallError, type ServiceUnavailableError } from '@flowplane/contracts';
import { keepAliveTransport } from './keep-alive-transport';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** The same ServiceClient calls over fetch and over keepAliveTransport must end the same way. */
describe('keepAliveTransport behind a ServiceClient', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  let connections = 0;
  const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        handler(req, body, res);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const clients = (options: { timeoutMs?: number; retries?: number } = {}) => {
    const common = { service: 'search', baseUrl: base, retryBaseDelayMs: 1, tokenProvider: async () => 'tok', requestIdProvider: () => 'req-1', ...options };
    return { fetch: new ServiceClient(common), keepAlive: new ServiceClient({ ...common, transport: keepAliveTransport }) };
  };
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, _body, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  /** Both outcomes (value or error fields) of one call per transport, plus what the server saw. */
  const both = async (call: (c: ServiceClient) => Promise<unknown>, options?: { timeoutMs?: number; retries?: number }) => {
    const c = clients(options);
    const outcome = async (client: ServiceClient) => {
      const from = seen.length;
      try {
        return { value: await call(client), requests: seen.slice(from).map((s) => ({ method: s.method, url: s.url, body: s.body, auth: s.headers.authorization, rid: s.headers['x-request-id'], type: s.headers['content-type'] })) };
      } catch (e) {
        const err = e as ServiceCallError & { reason?: string };
        return { error: { name: err.name, message: err.message, status: err.status, body: err.body, attempts: err.attempts, reason: err.reason, remote: err.remoteMessage, requestId: err.requestId }, requests: seen.slice(from).length };
      }
    };
    return [await outcome(c.fetch), await outcome(c.keepAlive)];
  };

  it('answers a 200 with the same body, and sends the same method, path, body, token, request id and type', async () => {
    handler = json(200, { backendIndex: 'svc_docs', hits: [{ id: 'a#0', score: 0.5, payload: { text: 'zażółć' } }] });
    const [viaFetch, viaKeepAlive] = await both((c) => c.post('/internal/search/indexes/docs/query', { text: 'refund ü', limit: 4 }, { idempotent: true }));
    expect(viaKeepAlive).toEqual(viaFetch);
    expect(viaKeepAlive.requests).toEqual([{ method: 'POST', url: '/internal/search/indexes/docs/query', body: '{"text":"refund ü","limit":4}', auth: 'Bearer tok', rid: 'req-1', type: 'application/json' }]);
  });

  it.each([
    [400, { statusCode: 400, error: 'Bad Request', code: 'SEARCH_INVALID', message: 'text is required: the query text', requestId: 'req-1' }],
    [401, { statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED', message: 'invalid token', requestId: 'req-1' }],
    [403, { statusCode: 403, error: 'Forbidden', code: 'FORBIDDEN', message: 'internal route: service token lacks internal:search:query', requestId: 'req-1' }],
    [404, { statusCode: 404, error: 'Not Found', code: 'SEARCH_INDEX_NOT_FOUND', message: 'the index svc_docs does not exist', requestId: 'req-1' }],
  ])('raises the same ServiceCallError for a %i with the error body', async (status, body) => {
    handler = json(status, body);
    const [viaFetch, viaKeepAlive] = await both((c) => c.post('/internal/search/indexes/docs/query', { text: 'x' }, { idempotent: true }));
    expect(viaKeepAlive).toEqual(viaFetch);
    expect(viaKeepAlive.error).toMatchObject({ name: 'ServiceCallError', status, body, remote: body.message, attempts: 1 });
  });

  it('retries a 503 the same way and then succeeds', async () => {
    let n = 0;
    handler = (req, body, res) => (n++ % 2 === 0 ? json(503, { message: 'busy' }, { 'retry-after': '0' }) : json(200, { ok: true }))(req, body, res);
    const [viaFetch, viaKeepAlive] = await both((c) => c.post('/q', {}, { idempotent: true }), { retries: 1 });
    expect(viaKeepAlive).toEqual(viaFetch);
    expect(viaKeepAlive.value).toEqual({ ok: true });
    expect(viaKeepAlive.requests).toHaveLength(2);
  });

  it('times out the same way when the answer never comes, or stalls after the headers', async () => {
    handler = () => undefined;
    const [neverFetch, neverKeepAlive] = await both((c) => c.post('/q', {}), { timeoutMs: 100, retries: 0 });
    expect(neverKeepAlive).toEqual(neverFetch);
    expect(neverKeepAlive.error).toMatchObject({ name: 'ServiceUnavailableError', reason: 'timeout' });
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"hits":');
    };
    const [stallFetch, stallKeepAlive] = await both((c) => c.post('/q', {}), { timeoutMs: 100, retries: 0 });
    expect(stallKeepAlive).toEqual(stallFetch);
    expect(stallKeepAlive.error).toMatchObject({ name: 'ServiceUnavailableError', reason: 'timeout' });
  });

  it('stops the same way when the caller aborts while the answer is awaited, and frees the connection', async () => {
    handler = () => undefined;
    const started = Date.now();
    const [viaFetch, viaKeepAlive] = await both((c) => {
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 50);
      return c.post('/q', {}, { idempotent: true, signal: caller.signal });
    }, { timeoutMs: 5000, retries: 2 });
    expect(viaKeepAlive).toEqual(viaFetch);
    expect(viaKeepAlive.error).toMatchObject({ name: 'ServiceUnavailableError', reason: 'aborted', attempts: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('puts no listener on any AbortSignal while a call runs (the caller gave none)', async () => {
    handler = json(200, { ok: true });
    const { keepAlive } = clients();
    const added = jest.spyOn(AbortSignal.prototype, 'addEventListener');
    try {
      await expect(keepAlive.post('/q', {})).resolves.toEqual({ ok: true });
      expect(added).not.toHaveBeenCalled();
    } finally {
      added.mockRestore();
    }
  });

  it('reports an unreachable service the same way', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const common = { service: 'search', baseUrl: `http://127.0.0.1:${port}`, retries: 0 };
    const errorOf = async (c: ServiceClient) => c.post('/q', {}).then(() => undefined, (e: ServiceUnavailableError) => ({ name: e.name, reason: e.reason, message: e.message }));
    const viaKeepAlive = await errorOf(new ServiceClient({ ...common, transport: keepAliveTransport }));
    expect(viaKeepAlive).toEqual(await errorOf(new ServiceClient(common)));
    expect(viaKeepAlive).toMatchObject({ name: 'ServiceUnavailableError', reason: 'network' });
  });

  it('closes an idle connection before the server would, as the server\'s keep-alive hint asks', async () => {
    const short = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    short.keepAliveTimeout = 2500; // answers carry `Keep-Alive: timeout=2`
    let closedAfter = -1;
    let answeredAt = 0;
    short.on('connection', (socket) => socket.on('close', () => (closedAfter = Date.now() - answeredAt)));
    await new Promise<void>((r) => short.listen(0, '127.0.0.1', r));
    try {
      const client = new ServiceClient({ service: 'search', baseUrl: `http://127.0.0.1:${(short.address() as AddressInfo).port}`, transport: keepAliveTransport });
      await expect(client.post('/q', {})).resolves.toEqual({ ok: true });
      answeredAt = Date.now();
      await new Promise((r) => setTimeout(r, 2200));
      // The agent closes at the hint less a second (about 1 s); the server would have closed at 2.5 s.
      expect(closedAfter).toBeGreaterThanOrEqual(0);
      expect(closedAfter).toBeLessThan(2000);
    } finally {
      short.closeAllConnections();
      await new Promise((r) => short.close(r));
    }
  });

  it('reuses one connection for consecutive calls', async () => {
    handler = json(200, { ok: true });
    const { keepAlive } = clients();
    await keepAlive.post('/q', {});
    const before = connections;
    for (let i = 0; i < 5; i++) await keepAlive.post('/q', { i });
    expect(connections).toBe(before);
  });
});
