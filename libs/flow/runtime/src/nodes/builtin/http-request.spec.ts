import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalReason } from './address-policy';
import { httpRequestHandler, OutboundRequestRefusedError, type ResolveAll } from './http-request.node';
import { nodeContext, single } from './test-context';

describe('outbound address policy', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
    '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'fec0::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', 'ff02::1',
  ])('refuses %s', (address) => {
    expect(refusalReason(address)).toEqual(expect.any(String));
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(refusalReason(address)).toBeUndefined();
  });
});

describe('svc/http-request', () => {
  let server: http.Server;
  let port: number;
  const seen: Array<{ method?: string; url?: string; host?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, host: req.headers.host, headers: req.headers, body });
        if (req.url?.startsWith('/big')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('x'.repeat(4096));
        } else if (req.url?.startsWith('/stream-big')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 8; i++) res.write('y'.repeat(1024));
          res.end();
        } else if (req.url?.startsWith('/slow')) {
          setTimeout(() => res.end('late'), 1000);
        } else if (req.url?.startsWith('/text')) {
          res.writeHead(404, { 'content-type': 'text/plain', 'x-test': 'yes' });
          res.end('not here');
        } else {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ ok: true, method: req.method, url: req.url, body: body || null }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const refuse = httpRequestHandler({ allowPrivate: () => false });
  const allow = httpRequestHandler({ allowPrivate: () => true });

  it.each([
    'http://127.0.0.1:PORT/',
    'http://10.1.2.3/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:PORT/',
    'http://[fc00::1]/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://localhost:PORT/',
    'http://2130706433:PORT/',
    'http://0x7f.1:PORT/',
  ])('refuses %s without FLOW_HTTP_ALLOW_PRIVATE', async (url) => {
    const before = seen.length;
    await expect(single(refuse(nodeContext({}, { url: url.replace('PORT', String(port)) })))).rejects.toBeInstanceOf(OutboundRequestRefusedError);
    expect(seen.length).toBe(before);
  });

  it('refuses a host when any of its addresses is internal, resolving it once', async () => {
    const resolve = jest.fn<ReturnType<ResolveAll>, Parameters<ResolveAll>>(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]);
    const handler = httpRequestHandler({ allowPrivate: () => false, resolve });
    await expect(single(handler(nodeContext({}, { url: 'https://mixed.example/' })))).rejects.toThrow(/refused mixed\.example: 10\.0\.0\.7 is a private address/);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'gopher://x/', 'not a url'])('refuses %s', async (url) => {
    await expect(single(allow(nodeContext({}, { url })))).rejects.toThrow(/only http and https|invalid url/);
  });

  it('calls a local server when FLOW_HTTP_ALLOW_PRIVATE=true and parses JSON', async () => {
    const out = await single(allow(nodeContext({ q: 'a b&c' }, { url: `http://127.0.0.1:${port}/search?q={{input.q}}`, headers: { 'X-User': '{{meta.user}}', Host: 'evil.example' } }, { meta: { user: 'u1' } })));
    expect(out.port).toBe('out');
    expect(out.packet).toMatchObject({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { ok: true, method: 'GET', url: '/search?q=a%20b%26c' } });
    const req = seen[seen.length - 1];
    expect(req.headers['x-user']).toBe('u1');
    expect(req.host).toBe(`127.0.0.1:${port}`);
  });

  it("puts the step's idempotency key where a header asks for {{ step.key }}", async () => {
    const headers = { 'Idempotency-Key': '{{step.key}}', 'X-Run': '{{ step.runId }}/{{ step.nodeId }}' };
    await single(allow(nodeContext({}, { method: 'POST', url: `http://127.0.0.1:${port}/pay`, headers }, { stepKey: 'run-9:root:pay:1', runId: 'run-9', nodeId: 'pay' })));
    expect(seen[seen.length - 1].headers).toMatchObject({ 'idempotency-key': 'run-9:root:pay:1', 'x-run': 'run-9/pay' });
  });

  it('sends the body from the packet as JSON or text', async () => {
    const json = await single(allow(nodeContext({ body: { a: 1 } }, { method: 'POST', url: `http://127.0.0.1:${port}/x` })));
    expect((json.packet as { body: { body: string } }).body.body).toBe('{"a":1}');
    expect(seen[seen.length - 1].headers['content-type']).toBe('application/json');
    const text = await single(allow(nodeContext({ payload: { s: 'hello' } }, { method: 'PUT', url: `http://127.0.0.1:${port}/x`, bodyFrom: 'payload.s' })));
    expect((text.packet as { body: { body: string } }).body.body).toBe('hello');
    await single(allow(nodeContext({ body: 'ignored' }, { method: 'GET', url: `http://127.0.0.1:${port}/x` })));
    expect(seen[seen.length - 1].body).toBe('');
  });

  it('emits non-2xx responses on out with a text body', async () => {
    const out = await single(allow(nodeContext({}, { url: `http://127.0.0.1:${port}/text` })));
    expect(out.packet).toMatchObject({ status: 404, body: 'not here', headers: { 'x-test': 'yes' } });
  });

  it('connects to the resolved address while sending the original Host header', async () => {
    const resolve = jest.fn<ReturnType<ResolveAll>, Parameters<ResolveAll>>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const handler = httpRequestHandler({ allowPrivate: () => true, resolve });
    const out = await single(handler(nodeContext({}, { url: `http://api.service.test:${port}/pinned` })));
    expect(out.packet).toMatchObject({ status: 200 });
    expect(seen[seen.length - 1].host).toBe(`api.service.test:${port}`);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('caps the response size (declared and streamed) and times out', async () => {
    await expect(single(allow(nodeContext({}, { url: `http://127.0.0.1:${port}/big`, maxResponseBytes: 1000 })))).rejects.toThrow(/exceeds the 1000 byte limit/);
    await expect(single(allow(nodeContext({}, { url: `http://127.0.0.1:${port}/stream-big`, maxResponseBytes: 2048 })))).rejects.toThrow(/exceeds the 2048 byte limit/);
    await expect(single(allow(nodeContext({}, { url: `http://127.0.0.1:${port}/slow`, timeoutMs: 100 })))).rejects.toThrow(/timed out after 100 ms/);
  });
});
