import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FlowplaneApiError, StreamError } from '../errors';
import { streamChat } from './chat';
import type { ChatFrame, RunFrame } from './frames';
import { streamRun } from './run';

/**
 * A real HTTP server that speaks the assistant's and the runs' SSE routes, with faults on demand:
 * it can drop the connection after some frames, refuse resumes, or hang.
 */
type WireFrame = { id: number; event: string; data: unknown };

const FRAMES: WireFrame[] = [
  { id: 1, event: 'session', data: { sessionId: 'sess-12345678', runId: 'run-1', flowId: 'assistant', versionId: 'assistant@v1', variant: 'stable' } },
  ...['Hel', 'lo', ', ', 'Ada'].map((chunk, i) => ({ id: i + 2, event: 'token', data: { chunk, index: i, nodeId: 'chat' } })),
  { id: 6, event: 'message', data: { content: 'Hello, Ada', sources: [{ title: 'Docs', url: 'https://example.com' }], actions: [], status: 'completed' } },
];

interface Plan {
  /** Frames the first answer sends before it drops (undefined: all). */
  dropAfter?: number;
  /** Per resume attempt: 'drop1' (one frame, then drop), 'fail' (503), 'hang' (no frames), 'ok'. */
  resumes: Array<'drop1' | 'fail' | 'hang' | 'ok' | 'gone'>;
  /** The first answer holds the connection open after its frames. */
  hold?: boolean;
}

describe('streamChat and streamRun over a real SSE server', () => {
  let server: Server;
  let base: string;
  let plan: Plan;
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const closed: string[] = [];

  const write = (res: ServerResponse, f: WireFrame) => {
    const text = `id: ${f.id}\nevent: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`;
    // Each frame in two writes: the client must join the halves.
    res.write(text.slice(0, 9));
    res.write(text.slice(9));
  };
  const sse = (res: ServerResponse, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    res.write(': keepalive\n\n');
  };
  const refuse = (res: ServerResponse, status: number, code: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-from-server', ...extra });
    res.end(JSON.stringify({ statusCode: status, error: 'Refused', code, message: `refused: ${code}`, requestId: 'req-from-server', ...(status === 400 ? { details: [{ field: 'message', problems: ['too long'] }] } : {}) }));
  };
  /** Sends frames with a few ms between them, then drops, holds or ends. */
  const stream = async (res: ServerResponse, frames: WireFrame[], end: 'drop' | 'end' | 'hold') => {
    for (const f of frames) {
      write(res, f);
      await new Promise((r) => setTimeout(r, 5));
    }
    // The head and keep-alive reach the client before the drop.
    if (end === 'drop') setTimeout(() => res.socket?.destroy(), 20);
    else if (end === 'end') res.end();
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.on('close', () => closed.push(req.url!));
        const after = Number(req.headers['last-event-id'] ?? 0);
        if (req.method === 'POST' && req.url === '/api/v1/assistant/messages') {
          const msg = JSON.parse(body).message as string;
          if (msg === 'too long') return refuse(res, 400, 'VALIDATION_FAILED');
          if (msg === 'spam') return refuse(res, 429, 'RATE_LIMITED', { 'retry-after': '7' });
          sse(res, { 'x-assistant-session-id': 'sess-12345678' });
          const n = plan.dropAfter ?? FRAMES.length;
          return void stream(res, FRAMES.slice(0, n), plan.hold ? 'hold' : n < FRAMES.length ? 'drop' : 'end');
        }
        if (req.method === 'GET' && (req.url === '/api/v1/assistant/messages/run-1/events' || req.url === '/api/v1/runs/run-1/events')) {
          const mode = plan.resumes.shift() ?? 'ok';
          if (mode === 'fail') return refuse(res, 503, 'SERVICE_UNAVAILABLE');
          if (mode === 'gone') return refuse(res, 404, 'RUN_NOT_FOUND');
          const frames = req.url.startsWith('/api/v1/runs') ? RUN_FRAMES : FRAMES;
          const rest = frames.filter((f) => f.id > after);
          if (req.url.startsWith('/api/v1/runs') && rest.length === 0) return void res.writeHead(204).end();
          sse(res);
          if (mode === 'hang') return;
          return void stream(res, mode === 'drop1' ? rest.slice(0, 1) : rest, mode === 'drop1' ? 'drop' : 'end');
        }
        if (req.method === 'POST' && req.url === '/api/v1/flows/hello/runs') {
          sse(res, { 'x-run-id': 'run-1' });
          return void stream(res, RUN_FRAMES.slice(0, 2), 'drop');
        }
        refuse(res, 404, 'ROUTE_NOT_FOUND');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    seen.length = 0;
    closed.length = 0;
    plan = { resumes: [] };
  });

  const RUN_FRAMES: WireFrame[] = [
    { id: 1, event: 'run.started', data: { versionId: 'hello@v1', input: {}, meta: {} } },
    { id: 2, event: 'node.started', data: { nodeId: 'start', kind: 'start', step: 1 } },
    { id: 3, event: 'node.completed', data: { nodeId: 'start', ports: ['out'], durationMs: 1 } },
    { id: 4, event: 'run.completed', data: { output: { greeting: 'Hello, Ada' }, durationMs: 3 } },
  ];

  const collect = async <F>(it: AsyncIterable<F>) => {
    const out: F[] = [];
    for await (const f of it) out.push(f);
    return out;
  };

  it('streams typed frames with the session id, sending the message, bearer and request id', async () => {
    const shared = new AbortController();
    const chat = await streamChat({ baseUrl: `${base}/api/v1/`, message: 'Hi', meta: { intent: 'chat' }, token: async () => 'tok-1', requestId: () => 'req-abc', signal: shared.signal });
    expect(chat.sessionId).toBe('sess-12345678');
    const frames = await collect(chat);
    expect(frames.map((f) => f.event)).toEqual(['session', 'token', 'token', 'token', 'token', 'message']);
    expect(frames[0]).toEqual({ event: 'session', id: 1, data: FRAMES[0].data });
    const text = frames.map((f: ChatFrame) => (f.event === 'token' ? f.data.chunk : '')).join('');
    expect(text).toBe('Hello, Ada');
    expect(chat.runId).toBe('run-1');
    expect(chat.lastEventId).toBe('6');
    // The ended stream left no listener on the caller's (long-lived) signal.
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0].body)).toEqual({ message: 'Hi', meta: { intent: 'chat' } });
    expect(seen[0].headers).toMatchObject({ authorization: 'Bearer tok-1', 'x-request-id': 'req-abc', accept: 'text/event-stream' });
  });

  it('resumes after a dropped connection with Last-Event-ID and delivers each frame once', async () => {
    plan = { dropAfter: 3, resumes: ['drop1', 'ok'] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi', sessionId: 'sess-12345678', retryDelayMs: 10 });
    const frames = await collect(chat);
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6]);
    const resumes = seen.filter((s) => s.method === 'GET');
    expect(resumes.map((s) => s.headers['last-event-id'])).toEqual(['3', '4']);
    expect(resumes[0].headers['x-assistant-session-id']).toBe('sess-12345678');
    expect(JSON.parse(seen[0].body)).toEqual({ message: 'Hi', sessionId: 'sess-12345678' });
  });

  it('retries a failing resume with backoff, then gives up with StreamError RESUME_FAILED', async () => {
    plan = { dropAfter: 2, resumes: ['fail', 'fail', 'fail'] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi', maxRetries: 3, retryDelayMs: 20 });
    const got: ChatFrame[] = [];
    const started = Date.now();
    const err = await (async () => {
      for await (const f of chat) got.push(f);
    })().catch((e: unknown) => e);
    expect(got.map((f) => f.id)).toEqual([1, 2]);
    expect(err).toBeInstanceOf(StreamError);
    expect(err).toMatchObject({ code: 'RESUME_FAILED', attempts: 3, lastEventId: '2' });
    expect((err as StreamError).cause).toBeInstanceOf(FlowplaneApiError);
    expect(seen.filter((s) => s.method === 'GET')).toHaveLength(3);
    // 20 + 40 + 80 ms of backoff at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(130);
  });

  it('recovers from a failed resume attempt and from a silent connection (idle timeout)', async () => {
    plan = { dropAfter: 2, resumes: ['fail', 'hang', 'ok'] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi', retryDelayMs: 10, idleTimeoutMs: 300 });
    expect((await collect(chat)).map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.filter((s) => s.method === 'GET').map((s) => s.headers['last-event-id'])).toEqual(['2', '2', '2']);
  });

  it('a resume the server refuses for good (404) surfaces as FlowplaneApiError at once', async () => {
    plan = { dropAfter: 1, resumes: ['gone'] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi', retryDelayMs: 10 });
    const err = await collect(chat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlowplaneApiError);
    expect(err).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
  });

  it('a drop before the session frame cannot be resumed: StreamError STREAM_DROPPED', async () => {
    plan = { dropAfter: 0, resumes: [] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi', retryDelayMs: 10 });
    await expect(collect(chat)).rejects.toMatchObject({ name: 'StreamError', code: 'STREAM_DROPPED' });
  });

  it('abort through the AbortSignal ends the iteration quietly and closes the connection', async () => {
    plan = { dropAfter: 2, hold: true, resumes: [] };
    const abort = new AbortController();
    const chat = await streamChat({ baseUrl: base, message: 'Hi', signal: abort.signal });
    const got: ChatFrame[] = [];
    for await (const f of chat) {
      got.push(f);
      if (f.event === 'token') abort.abort();
    }
    expect(got.map((f) => f.event)).toEqual(['session', 'token']);
    await until(() => closed.includes('/api/v1/assistant/messages'));
    expect(seen.filter((s) => s.method === 'GET')).toHaveLength(0);
  });

  it('close() and break end the stream and its connection too', async () => {
    plan = { dropAfter: 2, hold: true, resumes: [] };
    const chat = await streamChat({ baseUrl: base, message: 'Hi' });
    for await (const f of chat) if (f.event === 'session') break;
    await until(() => closed.length === 1);
    const again = await streamChat({ baseUrl: base, message: 'Hi' });
    setTimeout(() => again.close(), 50);
    expect((await collect(again)).map((f) => f.event)).toEqual(['session', 'token']);
    await until(() => closed.length === 2);
  });

  it('refusals before the stream opens are FlowplaneApiError with code, requestId, details and retryAfter', async () => {
    const bad = await streamChat({ baseUrl: base, message: 'too long' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(FlowplaneApiError);
    expect(bad).toMatchObject({ status: 400, statusCode: 400, code: 'VALIDATION_FAILED', requestId: 'req-from-server', details: [{ field: 'message', problems: ['too long'] }] });
    const limited = await streamChat({ baseUrl: base, message: 'spam' }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 7 });
  });

  it('streamRun starts a run, resumes it from /runs/{runId}/events, and follows an ended run as nothing (204)', async () => {
    plan = { resumes: ['ok'] };
    const run = await streamRun({ baseUrl: base, token: 'admin', flowId: 'hello', input: { name: 'Ada' }, retryDelayMs: 10 });
    expect(run.runId).toBe('run-1');
    const frames: RunFrame[] = await collect(run);
    expect(frames.map((f) => f.event)).toEqual(['run.started', 'node.started', 'node.completed', 'run.completed']);
    const last = frames.at(-1)!;
    expect(last.event === 'run.completed' && last.data.output).toEqual({ greeting: 'Hello, Ada' });
    expect(seen.find((s) => s.method === 'GET')!.headers).toMatchObject({ 'last-event-id': '2', authorization: 'Bearer admin' });
    expect(JSON.parse(seen[0].body)).toEqual({ input: { name: 'Ada' } });

    const ended = await streamRun({ baseUrl: base, runId: 'run-1', lastEventId: 4 });
    expect(await collect(ended)).toEqual([]);
    const tail = await streamRun({ baseUrl: base, runId: 'run-1', lastEventId: 3 });
    expect((await collect(tail)).map((f) => f.id)).toEqual([4]);
  });
});

async function until(ok: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
