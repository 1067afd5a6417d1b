import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FlowplaneApiError, NetworkError } from '../errors';
import { createFlowplaneClient, gatewayOrigin, randomRequestId, unwrap } from './client';

describe('createFlowplaneClient against a real HTTP server', () => {
  let server: Server;
  let base: string;
  const seen: IncomingMessage[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      if (req.url === '/api/v1/flows') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify([{ id: 'hello', name: 'Hello' }]));
      }
      if (req.url === '/api/v1/flows/hello') return; // never answers
      if (req.url === '/api/v1/flows/proxy') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<h1>Bad gateway</h1>');
      }
      const id = String(req.headers['x-request-id'] ?? 'none');
      res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': id });
      res.end(JSON.stringify({ statusCode: 404, error: 'Not Found', code: 'FLOW_NOT_FOUND', message: 'flow nope not found', requestId: id }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => (seen.length = 0));

  it('calls typed paths under the gateway origin with bearer, request id and default headers', async () => {
    let calls = 0;
    const api = createFlowplaneClient({ baseUrl: `${base}/api/v1/`, token: () => `tok-${++calls}`, requestId: () => `req-${calls}`, headers: { 'accept-language': 'pl' } });
    expect(api.baseUrl).toBe(base);
    const flows = unwrap(await api.flows.GET('/api/v1/flows'));
    expect(flows.map((f) => f.id)).toEqual(['hello']);
    await api.flows.GET('/api/v1/flows');
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(seen.map((r) => r.headers['x-request-id'])).toEqual(['req-0', 'req-1']);
    expect(seen[0].headers['accept-language']).toBe('pl');
  });

  it("a request's own Authorization wins; no token sends none", async () => {
    const api = createFlowplaneClient({ baseUrl: base, token: 'default' });
    await api.flows.GET('/api/v1/flows', { headers: { authorization: 'Bearer mine' } });
    await createFlowplaneClient({ baseUrl: base }).flows.GET('/api/v1/flows');
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer mine', undefined]);
    expect(seen[1].headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('error bodies come back typed in {error} and thrown by unwrap as FlowplaneApiError', async () => {
    const api = createFlowplaneClient({ baseUrl: base, requestId: () => 'req-404' });
    const res = await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'nope' } } });
    expect(res.data).toBeUndefined();
    expect(res.error).toMatchObject({ statusCode: 404, code: 'FLOW_NOT_FOUND', requestId: 'req-404' });
    let thrown: unknown;
    try {
      unwrap(res);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FlowplaneApiError);
    expect(thrown).toMatchObject({ name: 'FlowplaneApiError', status: 404, statusCode: 404, error: 'Not Found', code: 'FLOW_NOT_FOUND', message: 'flow nope not found', requestId: 'req-404' });
  });

  it('a body that is not the platform error (a proxy page) still gives a FlowplaneApiError', async () => {
    const api = createFlowplaneClient({ baseUrl: base });
    const res = await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'proxy' } } });
    expect(() => unwrap(res)).toThrow(expect.objectContaining({ status: 502, code: 'HTTP_502', body: '<h1>Bad gateway</h1>' }) as unknown as Error);
  });

  it('no answer is a NetworkError: TIMEOUT after timeoutMs, NETWORK_ERROR when nothing listens', async () => {
    const slow = createFlowplaneClient({ baseUrl: base, timeoutMs: 150 });
    const timedOut = await slow.flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'hello' } } }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(NetworkError);
    expect(timedOut).toMatchObject({ code: 'TIMEOUT', url: `${base}/api/v1/flows/hello` });

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const nobody = await createFlowplaneClient({ baseUrl: `http://127.0.0.1:${port}` }).gateway.GET('/api/v1/health').catch((e: unknown) => e);
    expect(nobody).toBeInstanceOf(NetworkError);
    expect(nobody).toMatchObject({ code: 'NETWORK_ERROR' });
  });

  it('a caller abort stays an AbortError', async () => {
    const abort = new AbortController();
    const pending = createFlowplaneClient({ baseUrl: base }).flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'hello' } }, signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('client helpers', () => {
  it('normalises the base URL to the gateway origin and refuses none', () => {
    expect(gatewayOrigin('http://localhost:8080/')).toBe('http://localhost:8080');
    expect(gatewayOrigin('https://example.com/platform/api/v1')).toBe('https://example.com/platform');
    expect(() => gatewayOrigin('')).toThrow(/baseUrl is required/);
  });

  it('makes v4 request ids even without crypto.randomUUID (non-secure browser contexts)', () => {
    const saved = globalThis.crypto.randomUUID;
    try {
      (globalThis.crypto as { randomUUID?: unknown }).randomUUID = undefined;
      expect(randomRequestId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      globalThis.crypto.randomUUID = saved;
    }
  });
});
