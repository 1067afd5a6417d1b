import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceClients } from '@flowplane/platform/service';
import { UpstreamClients, UpstreamError } from './upstream.clients';

/** A stand-in flow-runtime: each test sets how it answers. */
async function server(handler: http.RequestListener): Promise<{ base: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const s = http.createServer(handler);
  s.on('connection', () => connections++);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      s.closeAllConnections();
      return new Promise((r) => s.close(() => r()));
    },
  };
}

function clientsFor(baseUrl: string): UpstreamClients {
  const clients = { for: () => ({ baseUrl }), token: async () => 'svc-token' } as unknown as ServiceClients;
  return new UpstreamClients(clients);
}

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) out += decoder.decode(chunk, { stream: true });
  return out;
}

const run = { flowId: 'f', input: { message: 'hi' }, meta: { source: 'assistant' }, startedBy: 'assistant:anonymous' };

describe('UpstreamClients run streams', () => {
  let up: UpstreamClients | undefined;
  afterEach(async () => {
    await up?.onApplicationShutdown();
    up = undefined;
  });

  it('posts the run with the service token and streams the body as it comes, on one kept-alive connection', async () => {
    const seen: Array<{ path?: string; auth?: string; type?: string; body: string }> = [];
    const srv = await server((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ path: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-run-id': 'r1', 'x-version-id': 'f@v1', 'x-version-hash': 'h1' });
        res.write('id: 1\nevent: run.started\ndata: {}\n\n');
        setTimeout(() => res.end('id: 2\nevent: run.completed\ndata: {}\n\n'), 20);
      });
    });
    try {
      up = clientsFor(srv.base + '/');
      for (let i = 0; i < 2; i++) {
        const opened = await up.startRun(run);
        expect(opened).toMatchObject({ runId: 'r1', versionId: 'f@v1', versionHash: 'h1' });
        expect(opened.response.headers.get('Content-Type')).toBe('text/event-stream');
        expect(await text(opened.response.body)).toBe('id: 1\nevent: run.started\ndata: {}\n\nid: 2\nevent: run.completed\ndata: {}\n\n');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toHaveLength(2);
      expect(seen[0]).toEqual({ path: '/internal/runs', auth: 'Bearer svc-token', type: 'application/json', body: JSON.stringify(run) });
      expect(srv.connections()).toBe(1);
    } finally {
      await srv.close();
    }
  });

  it('keeps the path of the base URL and sends Last-Event-ID when resuming', async () => {
    const seen: Array<{ path?: string; last?: string | string[] }> = [];
    const srv = await server((req, res) => {
      seen.push({ path: req.url, last: req.headers['last-event-id'] });
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
    });
    try {
      up = clientsFor(srv.base + '/flow-runtime');
      const res = await up.runEvents('run 1', 7, undefined, ['run.completed', 'token']);
      expect(await text(res.body)).toBe('');
      expect(seen).toEqual([{ path: '/flow-runtime/internal/runs/run%201/events?events=run.completed,token', last: '7' }]);
    } finally {
      await srv.close();
    }
  });

  it('turns a refusal into an UpstreamError with the status and the JSON body', async () => {
    const srv = await server((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 404, code: 'FLOW_NOT_FOUND', message: 'no flow f' }));
    });
    try {
      up = clientsFor(srv.base);
      const err = (await up.startRun(run).catch((e: unknown) => e)) as UpstreamError;
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ service: 'flow-runtime', status: 404, body: { code: 'FLOW_NOT_FOUND' }, message: 'no flow f' });
    } finally {
      await srv.close();
    }
  });

  it('answers 503 when flow-runtime cannot be reached', async () => {
    const srv = await server(() => undefined);
    const base = srv.base;
    await srv.close();
    up = clientsFor(base);
    const err = (await up.startRun(run).catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ service: 'flow-runtime', status: 503 });
  });

  it('ends the body with an AbortError when the signal fires mid-stream, and drops the connection', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((r) => (closed = r));
    const srv = await server((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-run-id': 'r1' });
      res.write('id: 1\nevent: run.started\ndata: {}\n\n');
      res.once('close', () => closed());
    });
    try {
      up = clientsFor(srv.base);
      const abort = new AbortController();
      const opened = await up.startRun(run, abort.signal);
      const chunks: string[] = [];
      const read = (async () => {
        for await (const c of opened.response.body) {
          chunks.push(Buffer.from(c).toString());
          abort.abort(new Error('timeout'));
        }
      })();
      await expect(read).rejects.toMatchObject({ name: 'AbortError' });
      expect(chunks).toEqual(['id: 1\nevent: run.started\ndata: {}\n\n']);
      await gone;
    } finally {
      await srv.close();
    }
  });

  it('aborts through the response (the chat path, no AbortSignal): the reader gets an AbortError with the reason', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((r) => (closed = r));
    const srv = await server((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-run-id': 'r1' });
      res.write('id: 1\nevent: run.started\ndata: {}\n\n');
      res.once('close', () => closed());
    });
    try {
      up = clientsFor(srv.base);
      const opened = await up.startRun(run);
      const reason = new Error('drained');
      const read = (async () => {
        for await (const _ of opened.response.body) opened.response.abort(reason);
      })();
      await expect(read).rejects.toMatchObject({ name: 'AbortError', cause: reason });
      await gone;
    } finally {
      await srv.close();
    }
  });
});
