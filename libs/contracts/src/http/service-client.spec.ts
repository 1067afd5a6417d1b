import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from './service-client';
import { ServiceCallError, ServiceUnavailableError } from './service-client.errors';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

// A real HTTP server on a loopback port; each test installs its own handler and reads what arrived.
let server: Server;
let baseUrl: string;
let handler: Handler;
let received: Recorded[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  handler = (_req, res) => json(res, 200, { ok: true });
});

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function client(extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}): ServiceClient {
  return new ServiceClient({
    service: 'profiles',
    baseUrl,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    ...extra,
  });
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

describe('ServiceClient headers and bodies', () => {
  it('sends the bearer service token, the request id and a JSON body, and parses the JSON answer', async () => {
    handler = (_req, res, body) => json(res, 201, { echoed: JSON.parse(body) });
    const c = client({
      tokenProvider: async () => 'svc-token',
      requestIdProvider: () => 'req-123',
      headers: { 'X-Caller': 'flow-runtime' },
    });

    const res = await c.send<{ echoed: unknown }>('POST', '/internal/profiles', {
      body: { id: 'p1', n: 2 },
      query: { dryRun: true, tag: ['a', 'b'] },
    });

    expect(res.status).toBe(201);
    expect(res.data).toEqual({ echoed: { id: 'p1', n: 2 } });
    const [r] = received;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/internal/profiles?dryRun=true&tag=a&tag=b');
    expect(r.headers.authorization).toBe('Bearer svc-token');
    expect(r.headers['x-request-id']).toBe('req-123');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.accept).toBe('application/json');
    expect(r.headers['x-caller']).toBe('flow-runtime');
  });

  it('omits the token, request id and content type when there is none', async () => {
    await client().get('/internal/ping');
    const [r] = received;
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers['x-request-id']).toBeUndefined();
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.body).toBe('');
  });

  it('lets a per-call request id win over the provider', async () => {
    await client({ requestIdProvider: () => 'from-provider' }).get('/x', { requestId: 'explicit' });
    expect(received[0].headers['x-request-id']).toBe('explicit');
  });

  it('resolves undefined for 204 and returns text for non-JSON answers', async () => {
    handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    await expect(client().delete('/internal/profiles/p1')).resolves.toBeUndefined();
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('pong');
    };
    await expect(client().get('/ping')).resolves.toBe('pong');
  });

  it('keeps a base URL path prefix', async () => {
    await new ServiceClient({ service: 'custom', baseUrl: `${baseUrl}/api/` }).get('/internal/x');
    expect(received[0].url).toBe('/api/internal/x');
  });

  it("asks for a token for the called service with the permission of the call's internal route", async () => {
    const asked: Array<[string, readonly string[]]> = [];
    const tokenProvider = async (target: string, perms: readonly string[]) => {
      asked.push([target, perms]);
      return 'svc-token';
    };
    const profiles = new ServiceClient({ service: 'profiles', baseUrl, tokenProvider, retries: 0 });
    await profiles.get('/internal/profiles/llm/llm-chat/openai-prod');
    await profiles.get('/internal/profiles/llm/llm-chat?x=1');
    await profiles.get('/internal/unknown');
    await profiles.get('/internal/info', { perms: ['internal:custom'] });
    await new ServiceClient({ service: 'profiles', baseUrl, tokenProvider, perms: ['internal:fixed'] }).get('/internal/info');
    expect(asked).toEqual([
      ['profiles', ['internal:profiles:resolve']],
      ['profiles', ['internal:profiles:list']],
      ['profiles', []],
      ['profiles', ['internal:custom']],
      ['profiles', ['internal:fixed']],
    ]);
  });

  it('asks the token provider on every attempt', async () => {
    let n = 0;
    let calls = 0;
    handler = (_req, res) => (++calls === 1 ? json(res, 503, {}) : json(res, 200, {}));
    await client({ tokenProvider: async () => `t${++n}` }).get('/x');
    expect(received.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
  });
});

describe('ServiceClient retries', () => {
  it('retries a GET on 503 and succeeds once the service recovers', async () => {
    let calls = 0;
    handler = (_req, res) => (++calls < 3 ? json(res, 503, { statusCode: 503 }) : json(res, 200, { calls }));
    await expect(client({ retries: 2 }).get('/internal/flows/f1')).resolves.toEqual({ calls: 3 });
    expect(received).toHaveLength(3);
  });

  it.each([502, 504])('retries a GET on %i', async (status) => {
    let calls = 0;
    handler = (_req, res) => (++calls === 1 ? json(res, status, {}) : json(res, 200, { ok: 1 }));
    await expect(client().get('/x')).resolves.toEqual({ ok: 1 });
    expect(received).toHaveLength(2);
  });

  it.each(['PUT', 'DELETE', 'HEAD'] as const)('retries idempotent %s on 503', async (method) => {
    let calls = 0;
    handler = (_req, res) => (++calls === 1 ? json(res, 503, {}) : json(res, 200, {}));
    await client().request(method, '/x', method === 'PUT' ? { body: { a: 1 } } : {});
    expect(received.map((r) => r.method)).toEqual([method, method]);
  });

  it('does not retry a POST on 503 and reports the status', async () => {
    handler = (_req, res) =>
      json(res, 503, { statusCode: 503, error: 'Service Unavailable', message: 'store down' });
    const err = await caught(client({ retries: 3 }).post('/internal/handoffs', { email: 'a@example.com' }));
    expect(received).toHaveLength(1);
    expect(err).toBeInstanceOf(ServiceCallError);
    expect(err).not.toBeInstanceOf(ServiceUnavailableError);
    expect((err as ServiceCallError).status).toBe(503);
    expect((err as ServiceCallError).attempts).toBe(1);
  });

  it('does not retry a PATCH', async () => {
    handler = (_req, res) => json(res, 502, {});
    await caught(client().patch('/x', { a: 1 }));
    expect(received).toHaveLength(1);
  });

  it('retries a POST that the caller marks idempotent', async () => {
    let calls = 0;
    handler = (_req, res) => (++calls === 1 ? json(res, 503, {}) : json(res, 200, { ok: true }));
    await expect(client().post('/internal/ensure', {}, { idempotent: true })).resolves.toEqual({ ok: true });
    expect(received).toHaveLength(2);
  });

  it('gives up after the configured retries with the last status', async () => {
    handler = (_req, res) => json(res, 503, { message: 'still down' });
    const err = (await caught(client({ retries: 2 }).get('/x'))) as ServiceCallError;
    expect(received).toHaveLength(3);
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(3);
    expect(err.remoteMessage).toBe('still down');
  });

  it('does not retry client errors', async () => {
    handler = (_req, res) => json(res, 409, { message: 'conflict' });
    await caught(client().get('/x'));
    expect(received).toHaveLength(1);
  });

  it('retries a GET whose connection was dropped before an answer', async () => {
    let calls = 0;
    handler = (req, res) => (++calls === 1 ? req.socket.destroy() : json(res, 200, { ok: true }));
    await expect(client().get('/x')).resolves.toEqual({ ok: true });
    expect(received).toHaveLength(2);
  });

  it('waits at least Retry-After (capped by the maximum delay) before retrying', async () => {
    let calls = 0;
    handler = (_req, res) =>
      ++calls === 1 ? json(res, 503, {}, { 'retry-after': '0.2' }) : json(res, 200, {});
    const started = Date.now();
    await client({ retryMaxDelayMs: 1000 }).get('/x');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe('ServiceClient timeouts and unavailability', () => {
  it('times out a service that never answers', async () => {
    handler = () => undefined;
    const started = Date.now();
    const err = (await caught(
      client({ timeoutMs: 150, retries: 0 }).get('/slow'),
    )) as ServiceUnavailableError;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.reason).toBe('timeout');
    expect(err.status).toBeUndefined();
    expect(err.service).toBe('profiles');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('retries a timed-out GET but not a timed-out POST', async () => {
    handler = () => undefined;
    const get = (await caught(
      client({ timeoutMs: 100, retries: 1 }).get('/slow'),
    )) as ServiceUnavailableError;
    expect(get.attempts).toBe(2);
    expect(received).toHaveLength(2);
    received = [];
    const post = (await caught(
      client({ timeoutMs: 100, retries: 1 }).post('/slow', {}),
    )) as ServiceUnavailableError;
    expect(post.attempts).toBe(1);
    expect(received).toHaveLength(1);
  });

  it('times out a service that sends headers and then stalls the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    };
    const err = (await caught(
      client({ timeoutMs: 150, retries: 0 }).get('/stall'),
    )) as ServiceUnavailableError;
    expect(err.reason).toBe('timeout');
  });

  it('reports a refused connection as a network failure after retrying', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));

    const err = (await caught(
      new ServiceClient({
        service: 'hub',
        baseUrl: `http://127.0.0.1:${port}`,
        retries: 1,
        retryBaseDelayMs: 1,
      }).get('/x'),
    )) as ServiceUnavailableError;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.reason).toBe('network');
    expect(err.attempts).toBe(2);
    expect(err.service).toBe('hub');
    expect(err.message).toMatch(/hub unreachable/);
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    handler = () => undefined;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = (await caught(
      client({ timeoutMs: 5000, retries: 3 }).get('/slow', { signal: ac.signal }),
    )) as ServiceUnavailableError;
    expect(err.reason).toBe('aborted');
    expect(received).toHaveLength(1);
  });
});

describe('ServiceClient deadlines', () => {
  it('stops at once when the caller aborts while the token is being fetched', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const err = (await caught(
      client({
        timeoutMs: 5000,
        retries: 3,
        tokenProvider: async () => {
          ac.abort();
          return 't';
        },
      }).get('/x', { signal: ac.signal }),
    )) as ServiceUnavailableError;
    expect(err.reason).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('tells a transport once when the attempt times out, and not after it has its answer', async () => {
    const cancelled: unknown[] = [];
    const hanging = client({
      timeoutMs: 50,
      retries: 0,
      transport: (_url, _init, cancellation) =>
        new Promise<Response>((_resolve, reject) =>
          cancellation.onCancel((reason) => {
            cancelled.push(reason);
            reject(reason);
          }),
        ),
    });
    const err = (await caught(hanging.get('/slow'))) as ServiceUnavailableError;
    expect(err.reason).toBe('timeout');
    expect(cancelled).toHaveLength(1);
    expect((cancelled[0] as DOMException).name).toBe('TimeoutError');

    let late: ((reason: unknown) => void) | undefined;
    const quick = client({
      timeoutMs: 50,
      transport: async (_url, _init, cancellation) => {
        cancellation.onCancel((reason) => (late = () => reason));
        return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await expect(quick.get('/x')).resolves.toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(late).toBeUndefined();
    expect(() => client({ fetch: globalThis.fetch, transport: async () => new Response('') })).toThrow(/fetch or transport/);
  });

  it('leaves no timer running once a call has its answer, nor listeners on the caller signal', async () => {
    jest.useFakeTimers();
    try {
      const ac = new AbortController();
      const added = jest.spyOn(ac.signal, 'addEventListener');
      const removed = jest.spyOn(ac.signal, 'removeEventListener');
      // A fetch that answers at once: whatever the call scheduled is left for the test to see.
      const answered = client({
        timeoutMs: 30_000,
        fetch: (async () => new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } })) as typeof fetch,
      });
      await expect(answered.get('/x', { signal: ac.signal })).resolves.toEqual({ ok: true });
      expect(jest.getTimerCount()).toBe(0);
      expect(added).toHaveBeenCalledTimes(1);
      expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, fn]) => [type, fn]));
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('ServiceClient error mapping', () => {
  it('maps a JSON error answer to ServiceCallError with status, parsed body and service name', async () => {
    handler = (_req, res) =>
      json(res, 404, { statusCode: 404, error: 'Not Found', message: 'profile p9 not found' });
    const err = (await caught(
      client({ requestIdProvider: () => 'rid-9' }).get('/internal/profiles/p9'),
    )) as ServiceCallError;
    expect(err).toBeInstanceOf(ServiceCallError);
    expect(err.name).toBe('ServiceCallError');
    expect(err.status).toBe(404);
    expect(err.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'profile p9 not found' });
    expect(err.service).toBe('profiles');
    expect(err.method).toBe('GET');
    expect(err.url).toBe(`${baseUrl}/internal/profiles/p9`);
    expect(err.requestId).toBe('rid-9');
    expect(err.remoteMessage).toBe('profile p9 not found');
    expect(err.message).toContain('profiles answered 404');
  });

  it('keeps a non-JSON error body as text', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>oops</h1>');
    };
    const err = (await caught(client().post('/x', {}))) as ServiceCallError;
    expect(err.status).toBe(500);
    expect(err.body).toBe('<h1>oops</h1>');
  });

  it('rejects paths without a leading slash and bad options', async () => {
    await expect(client().get('internal/x')).rejects.toThrow(/must start with/);
    expect(() => client({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => client({ retries: -1 })).toThrow(/retries/);
    expect(() => new ServiceClient({ service: 'nobody' })).toThrow(/not a known service/);
  });
});

describe('ServiceClient base URL', () => {
  it('reads <SERVICE>_URL from the environment', async () => {
    const c = new ServiceClient({ service: 'flow-runtime', env: { FLOW_RUNTIME_URL: `${baseUrl}/` } });
    expect(c.baseUrl).toBe(baseUrl);
    await c.get('/internal/ping');
    expect(received).toHaveLength(1);
  });

  it('falls back to localhost and the service port', () => {
    expect(new ServiceClient({ service: 'i18n', env: {} }).baseUrl).toBe('http://localhost:8085');
  });
});
