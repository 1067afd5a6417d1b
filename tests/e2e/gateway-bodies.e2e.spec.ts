import type { Server } from 'node:http';
import { gatewayDefinition } from '@flowplane/gateway';
import { type RunningService, startService } from '@flowplane/platform/service';
import { TEST_SECRET } from '../support/http';
import { echoUpstream, type EchoRecord, type Framing, frameRequest, nestedJson, rawExchange, sha256, stalledClient } from './gateway-raw-http';

/** A path under each upstream's prefix, as the route table maps it. */
const SERVICE_PATHS: Record<string, string> = {
  'flow-runtime': '/api/v1/flows/f1/versions',
  deployments: '/api/v1/deployments/d1',
  profiles: '/api/v1/admin/profiles/llm/p1',
  assistant: '/api/v1/assistant/chat',
  i18n: '/api/v1/i18n/texts',
  search: '/api/v1/search/indexes/i1/query',
  hub: '/ws/rooms/r1/messages',
};
const ENV_OF: Record<string, string> = {
  'flow-runtime': 'FLOW_RUNTIME_URL',
  deployments: 'DEPLOYMENTS_URL',
  profiles: 'PROFILES_URL',
  assistant: 'ASSISTANT_URL',
  i18n: 'I18N_URL',
  search: 'SEARCH_URL',
  hub: 'HUB_URL',
};

const LIMIT = 256 * 1024;

/** JSON text of about `size` bytes. */
function jsonBody(size: number): Buffer {
  const filler = 'é-x'.repeat(Math.ceil(size / 4));
  return Buffer.from(JSON.stringify({ disabled: true, nested: { list: [1, 2, { deep: 'yes' }] }, filler: filler.slice(0, Math.max(0, size - 80)) }));
}

function binaryBody(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}

/** A gateway alone in front of echo upstreams, one per service: what each upstream receives, byte for byte. */
describe('gateway request bodies', () => {
  const echoes: Record<string, Awaited<ReturnType<typeof echoUpstream>>> = {};
  let gateway: RunningService;
  let port: number;

  beforeAll(async () => {
    for (const service of Object.keys(SERVICE_PATHS)) echoes[service] = await echoUpstream(service);
    gateway = await startService(gatewayDefinition, {
      env: {
        PORT: '0',
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'silent',
        GATEWAY_RATE_LIMIT: '0',
        HTTP_BODY_LIMIT: String(LIMIT),
        GATEWAY_HEADERS_TIMEOUT_MS: '600',
        GATEWAY_BODY_IDLE_TIMEOUT_MS: '400',
        GATEWAY_REQUEST_TIMEOUT_MS: '1500',
        ...Object.fromEntries(Object.entries(ENV_OF).map(([service, env]) => [env, echoes[service].url])),
      },
    });
    port = gateway.port;
  });
  afterAll(async () => {
    await gateway?.close();
    for (const e of Object.values(echoes)) {
      e.server.closeAllConnections();
      await new Promise((r) => (e.server as Server).close(r));
    }
  });

  const framings: Framing[] = ['content-length', 'chunked', 'http/1.0'];
  const cases = Object.keys(SERVICE_PATHS).flatMap((service) =>
    framings.flatMap((framing) =>
      (['json', 'binary'] as const).flatMap((type) => [
        [service, framing, type, 'small', type === 'json' ? jsonBody(60) : binaryBody(37)] as const,
        [service, framing, type, 'large', type === 'json' ? jsonBody(200_000) : binaryBody(LIMIT)] as const,
      ]),
    ),
  );

  it.each(cases)('%s receives a %s %s body (%s) whole', async (service, framing, type, _size, body) => {
    const contentType = type === 'json' ? 'application/json; charset=utf-8' : 'application/octet-stream';
    const method = service === 'deployments' ? 'PATCH' : 'POST';
    const res = await rawExchange(port, [frameRequest(method, SERVICE_PATHS[service], body, framing, { 'Content-Type': contentType }, 4093)]);
    expect(res.status).toBe(200);
    const rec = res.body as EchoRecord;
    expect(rec).toMatchObject({ service, method, url: SERVICE_PATHS[service], bytes: body.length, sha256: sha256(body) });
    if (body.length <= 4096) expect(rec.text).toBe(body.toString('utf8'));
  });

  it('refuses a chunked body past the limit with 413 and the standard error body, and the service sees none of it', async () => {
    const before = echoes['flow-runtime'].seen.length;
    const res = await rawExchange(port, [frameRequest('POST', SERVICE_PATHS['flow-runtime'], jsonBody(LIMIT + 10_000), 'chunked', { 'Content-Type': 'application/json' }, 16_384)]);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large', code: 'BODY_TOO_LARGE', requestId: expect.any(String) });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(echoes['flow-runtime'].seen.length).toBe(before);
  });

  it('refuses a non-JSON chunked body past the limit with 413', async () => {
    const res = await rawExchange(port, [frameRequest('POST', SERVICE_PATHS.search, binaryBody(LIMIT + 1), 'chunked', { 'Content-Type': 'application/octet-stream' }, 65_536)]);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ statusCode: 413, code: 'BODY_TOO_LARGE' });
  });

  it.each(framings)('refuses JSON nested 2,500 levels deep (%s) with 400 JSON_TOO_DEEP before the service sees it', async (framing) => {
    const before = echoes.deployments.seen.length;
    const res = await rawExchange(port, [frameRequest('PATCH', SERVICE_PATHS.deployments, Buffer.from(`{"disabled":${nestedJson(2500)}}`), framing, { 'Content-Type': 'application/json' }, 100)]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'JSON_TOO_DEEP', requestId: expect.any(String) });
    expect(echoes.deployments.seen.length).toBe(before);
  });

  it('lets JSON nested 64 levels through, and +json media types are checked too', async () => {
    const ok = await rawExchange(port, [frameRequest('POST', SERVICE_PATHS.i18n, Buffer.from(`{"a":${nestedJson(63)}}`), 'chunked', { 'Content-Type': 'application/json' })]);
    expect(ok.status).toBe(200);
    const deep = await rawExchange(port, [frameRequest('PATCH', SERVICE_PATHS.profiles, Buffer.from(`{"a":${nestedJson(64)}}`), 'content-length', { 'Content-Type': 'application/merge-patch+json' })]);
    expect(deep.status).toBe(400);
    expect(deep.body.code).toBe('JSON_TOO_DEEP');
    // Brackets inside strings are text, not nesting.
    const text = await rawExchange(port, [frameRequest('POST', SERVICE_PATHS.i18n, Buffer.from(JSON.stringify({ s: '['.repeat(5000) })), 'content-length', { 'Content-Type': 'application/json' })]);
    expect(text.status).toBe(200);
  });

  it('answers 408 with the standard error body when a body stalls, and closes the connection', async () => {
    for (const type of ['application/json', 'application/octet-stream']) {
      const head = `POST ${SERVICE_PATHS['flow-runtime']} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\n\r\nx`;
      const client = await stalledClient(port, head);
      const res = await client.answer;
      expect(res).toBeDefined();
      expect(res!.status).toBe(408);
      expect(res!.body).toMatchObject({ statusCode: 408, error: 'Request Timeout', code: 'REQUEST_TIMEOUT', requestId: expect.any(String) });
      expect(res!.ms).toBeGreaterThanOrEqual(350);
      expect(res!.ms).toBeLessThan(1400);
    }
  });

  it('answers 408 when a body trickles in past the request deadline', async () => {
    const body = Buffer.alloc(100, 'a');
    const parts: Buffer[] = [Buffer.from(`POST ${SERVICE_PATHS.search} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`)];
    for (const byte of body) parts.push(Buffer.from([byte]));
    const res = await rawExchange(port, parts, { gapMs: 100, timeoutMs: 5000 });
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT' });
    expect(res.ms).toBeGreaterThanOrEqual(1400);
    expect(res.ms).toBeLessThan(3000);
  });

  it('answers 408 when the headers do not arrive in time', async () => {
    const client = await stalledClient(port, `GET ${SERVICE_PATHS.i18n} HTTP/1.1\r\nHost: x\r\n`);
    const res = await client.answer;
    expect(res?.status).toBe(408);
    expect(res!.ms).toBeLessThan(1500);
  });
});
