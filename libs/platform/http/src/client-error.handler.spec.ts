import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { installClientErrorHandler } from './client-error.handler';

/** Sends raw bytes and resolves everything the server wrote before closing. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let got = '';
    socket.on('data', (c) => (got += c.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

const parse = (response: string) => {
  const [head, body] = response.split('\r\n\r\n');
  return { statusLine: head.split('\r\n')[0], head, body: JSON.parse(body) as Record<string, unknown> };
};

describe('installClientErrorHandler', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    installClientErrorHandler(server);
    installClientErrorHandler(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('answers oversized headers with a JSON 431 in the standard error body', async () => {
    const res = parse(await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.head).toMatch(/connection: close/i);
    expect(res.body).toEqual({ statusCode: 431, error: 'Request Header Fields Too Large', code: 'HEADERS_TOO_LARGE', message: expect.any(String), requestId: expect.any(String) });
    expect(res.head).toContain(`X-Request-Id: ${res.body.requestId as string}`);
  });

  it('answers a malformed request with a JSON 400', async () => {
    const res = parse(await raw(port, 'NOT A REQUEST\r\n\r\n'));
    expect(res.statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: expect.stringMatching(/^[A-Z_]+$/) });
  });

  it('closes quietly when the client reset the connection, and keeps serving', async () => {
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`GET / HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}`);
          socket.resetAndDestroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
      });
    }
    process.off('uncaughtException', onError);
    expect(errors).toEqual([]);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  });
});
