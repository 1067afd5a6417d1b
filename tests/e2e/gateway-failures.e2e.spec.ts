import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayDefinition } from '@flowplane/gateway';
import { type RunningService, startService } from '@flowplane/platform/service';
import { call, TEST_SECRET } from '../support/http';

/** A gateway alone in front of a slow upstream and upstreams that are down. */
describe('gateway failure handling', () => {
  let slow: Server;
  let gateway: RunningService;
  let url: string;

  beforeAll(async () => {
    slow = createServer((req, res) => {
      const delay = req.url?.includes('slow') ? 2000 : 0;
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () =>
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, rid: req.headers['x-request-id'], bytes, xff: req.headers['x-forwarded-for'] })), delay),
      );
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    gateway = await startService(gatewayDefinition, {
      env: {
        PORT: '0',
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'silent',
        GATEWAY_RATE_LIMIT: '40',
        GATEWAY_UPSTREAM_TIMEOUT_MS: '500',
        GATEWAY_CORS_ORIGINS: 'https://app.example.com',
        FLOW_RUNTIME_URL: slowUrl,
        PROFILES_URL: 'http://127.0.0.1:1',
        SEARCH_URL: 'http://127.0.0.1:1',
      },
    });
    url = gateway.url;
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise((r) => slow.close(r));
  });

  it('forwards the path and the request id to the owning service', async () => {
    const res = await call(`${url}/api/v1/flows/abc?x=1`, { headers: { 'x-request-id': 'trace-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ path: '/api/v1/flows/abc?x=1', rid: 'trace-1', bytes: 0, xff: '127.0.0.1' });
  });

  it('streams request bodies to the service', async () => {
    const res = await call(`${url}/api/v1/flows/abc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: 'y'.repeat(100_000) }) });
    expect(res.status).toBe(200);
    expect(res.body.bytes).toBe(100_011);
  });

  it('cuts a chunked body at the limit with 413', async () => {
    const chunk = new Uint8Array(256 * 1024);
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 8) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${url}/api/v1/flows/abc`, { method: 'POST', body, duplex: 'half' } as RequestInit).catch((e: Error) => e);
    if (res instanceof Error) throw res;
    expect(res.status).toBe(413);
  });

  it('answers 503 naming a service that is down', async () => {
    const res = await call(`${url}/api/v1/admin/profiles/llm/llm-chat`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', service: 'profiles' });
  });

  it('answers 504 when a service is too slow', async () => {
    const res = await call(`${url}/api/v1/flows/slow`);
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ statusCode: 504, service: 'flow-runtime' });
  });

  it('reports health 503 listing the services that are not ready', async () => {
    const res = await call(`${url}/api/v1/health`);
    expect(res.status).toBe(503);
    expect(res.body.failing).toEqual(expect.arrayContaining(['profiles', 'search']));
    expect(res.body.services.profiles.status).toBe('down');
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const ok = await fetch(`${url}/api/v1/flows`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const no = await fetch(`${url}/api/v1/flows`, { method: 'OPTIONS', headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a chat widget on an allowed origin send the assistant session id and Last-Event-ID, and read the session id back', async () => {
    const pre = await fetch(`${url}/api/v1/assistant/messages`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-assistant-session-id,last-event-id,authorization' },
    });
    expect(pre.status).toBe(204);
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).toEqual(expect.arrayContaining(['x-assistant-session-id', 'last-event-id', 'content-type', 'authorization']));
    const odd = await fetch(`${url}/api/v1/assistant/messages`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-not-a-platform-header' },
    });
    expect((odd.headers.get('access-control-allow-headers') ?? '').toLowerCase()).not.toContain('x-not-a-platform-header');
    const res = await fetch(`${url}/api/v1/flows/abc`, { headers: { origin: 'https://app.example.com' } });
    await res.arrayBuffer();
    expect((res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',')).toContain('x-assistant-session-id');
  });

  it('rate limits a client with 429 and Retry-After', async () => {
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await call(`${url}/api/v1/flows/x`);
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
  });
});
