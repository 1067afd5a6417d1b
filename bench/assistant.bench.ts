import autocannon from 'autocannon';
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { templateDocument } from '../libs/assistant/src/templates/domain/assistant-templates';
import { mintToken } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../apps/standalone/src/standalone';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';

/**
 * Issue 16, Performance. The assistant's chat (`POST /assistant/messages`) beside the same echo
 * flow run directly through the gateway's runs route (`POST /flows/{id}/runs`, Accept:
 * text/event-stream), in one run on an in-process standalone platform:
 * - time to first frame (first SSE body bytes), p50 and p99, sequential requests on a keep-alive
 *   connection, the two sides interleaved (goal: p50 within 5 ms of the direct run);
 * - echo chats per second vs direct runs per second (autocannon, 50 connections; goal >= 0.6x);
 * - memory per open chat stream at 1,000 concurrent streams (a flow held open by svc/http-request
 *   to a local server that answers only when released), measured in a child process with
 *   --expose-gc from memoryUsage() deltas, beside as many raw node:http SSE streams.
 */

const SECRET = 'bench-secret-0123456789abcdef';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SAMPLES = Number(process.env.ASSISTANT_BENCH_SAMPLES ?? 400);
const STREAMS = Number(process.env.ASSISTANT_BENCH_STREAMS ?? 1000);
const STORE = process.env.ASSISTANT_BENCH_STORE ?? 'memory';
const progress = (what: string) => process.stderr.write(`assistant bench: ${what}\n`);

/** The platform's environment: every limit that would throttle the bench is off. */
function platformEnv(dataDir: string): Record<string, string | undefined> {
  return {
    ...process.env,
    PORT: '0',
    STORE,
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    GATEWAY_RATE_LIMIT: '0',
    ASSISTANT_RATE_LIMIT: '0',
    ASSISTANT_RATE_LIMIT_PER_ADDRESS: '0',
    GATEWAY_MAX_STREAMS_PER_CALLER: '0',
    GATEWAY_MAX_STREAMS_PER_CLIENT: '0',
    GATEWAY_MAX_PENDING_PER_CLIENT: '0',
    GATEWAY_STREAM_CONNECTIONS: String(STREAMS * 2 + 100),
    FLOW_HTTP_ALLOW_PRIVATE: 'true',
    ASSISTANT_SWEEP_INTERVAL_MS: '0',
  };
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

class Api {
  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.base + '/api/v1' + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Saves `document` as a new version of `flowId` (creating the flow when missing) and publishes it. */
  async publish(flowId: string, document: unknown): Promise<string> {
    await this.call('POST', '/flows', { id: flowId, name: flowId }).catch(() => undefined);
    const v = await this.call<{ versionId: string }>('POST', `/flows/${flowId}/versions`, document);
    await this.call('POST', `/flows/${flowId}/publish`, { versionID: v.versionId });
    return v.versionId;
  }
}

interface SseRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** One SSE request: ms to the first body bytes, and the whole body once it ends. */
function sseOnce(port: number, agent: http.Agent, r: SseRequest): Promise<{ firstMs: number; text: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstMs = -1;
    let text = '';
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: r.path, agent, headers: { ...r.headers, 'content-length': Buffer.byteLength(r.body) } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${r.path}: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (firstMs < 0) firstMs = Number(process.hrtime.bigint() - started) / 1e6;
        text += d;
      });
      res.on('end', () => resolve({ firstMs, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

function cannon(port: number, r: SseRequest, seconds: number): Promise<{ rps: number; non2xx: number; errors: number }> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `http://127.0.0.1:${port}${r.path}`, method: 'POST', headers: r.headers, body: r.body, connections: 50, pipelining: 1, duration: seconds },
      (err, res) => (err ? reject(err) : resolve({ rps: res.requests.average, non2xx: res.non2xx, errors: res.errors + res.timeouts })),
    );
  });
}

async function latencyAndRate(): Promise<BenchResult[]> {
  const platform: Standalone = await startStandalone({ env: platformEnv(`/tmp/flowplane-bench-assistant-${process.pid}`) });
  try {
    const port = platform.gateway.port;
    const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
    const api = new Api(`http://127.0.0.1:${port}`, token);
    await api.call('POST', '/admin/assistant/reset?template=echo');
    await api.publish('bench-echo', templateDocument('echo')!);

    const chat: SseRequest = { path: '/api/v1/assistant/messages', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ message: 'Hello!' }) };
    const direct: SseRequest = {
      path: '/api/v1/flows/bench-echo/runs',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ input: { messages: [{ role: 'user', content: 'Hello!' }], message: 'Hello!', meta: {} } }),
    };
    progress('platform up, echo flows published');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const check = await sseOnce(port, agent, chat);
    if (!check.text.includes('event: message') || !check.text.includes('"content":"Hello!"')) throw new Error(`unexpected chat stream: ${check.text}`);
    const checkDirect = await sseOnce(port, agent, direct);
    if (!checkDirect.text.includes('Hello!')) throw new Error(`unexpected run stream: ${checkDirect.text}`);

    // Warm-up (JIT) of both paths, then interleaved samples so drift hits both alike.
    for (let i = 0; i < 100; i++) {
      await sseOnce(port, agent, chat);
      await sseOnce(port, agent, direct);
    }
    const chatMs: number[] = [];
    const directMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      chatMs.push((await sseOnce(port, agent, chat)).firstMs);
      directMs.push((await sseOnce(port, agent, direct)).firstMs);
    }
    agent.destroy();
    progress('time to first frame sampled');

    await cannon(port, chat, 3);
    await cannon(port, direct, 3);
    const chats = await cannon(port, chat, SECONDS);
    const runs = await cannon(port, direct, SECONDS);
    if (chats.non2xx || runs.non2xx || chats.errors || runs.errors) throw new Error(`failed requests: chat ${JSON.stringify(chats)}, direct ${JSON.stringify(runs)}`);

    const p = (xs: number[], q: number) => percentile(xs, q);
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const gap50 = p(chatMs, 50) - p(directMs, 50);
    return [
      {
        name: 'assistant: POST /assistant/messages time to first frame p50 vs direct POST /flows/{id}/runs (SSE, echo)',
        ours: r2(p(chatMs, 50)),
        baseline: r2(p(directMs, 50)),
        unit: 'ms',
        ratio: p(chatMs, 50) / p(directMs, 50),
        notes: `gap ${r2(gap50)} ms, goal <= 5 ms: ${gap50 <= 5 ? 'met' : 'MISSED'}; ${SAMPLES} sequential samples each, interleaved; store ${STORE}`,
      },
      {
        name: 'assistant: POST /assistant/messages time to first frame p99 vs direct POST /flows/{id}/runs (SSE, echo)',
        ours: r2(p(chatMs, 99)),
        baseline: r2(p(directMs, 99)),
        unit: 'ms',
        ratio: p(chatMs, 99) / p(directMs, 99),
        notes: `gap ${r2(p(chatMs, 99) - p(directMs, 99))} ms; store ${STORE}`,
      },
      {
        name: 'assistant: echo chats/s (POST /assistant/messages, new chat each) vs direct echo runs/s (SSE)',
        ours: chats.rps,
        baseline: runs.rps,
        unit: 'req/s',
        ratio: chats.rps / runs.rps,
        notes: `goal >= 0.6x: ${chats.rps / runs.rps >= 0.6 ? 'met' : 'MISSED'}; autocannon 50 connections, ${SECONDS} s each; store ${STORE}`,
      },
    ];
  } finally {
    await platform.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Memory per open stream: the server side runs in a child process (--expose-gc) so the bench's own
// 1,000 client sockets and the delay server are not counted.

type ChildMsg = { ready: string } | { mem: { rss: number; heapUsed: number; external: number } };

/** Child process: `platform` (standalone, in process) or `raw` (a bare node:http SSE server). */
async function memoryChild(kind: string): Promise<void> {
  const send = (m: ChildMsg) => process.send!(m);
  let url: string;
  let close: () => Promise<void>;
  if (kind === 'platform') {
    const platform = await startStandalone({ env: platformEnv(`/tmp/flowplane-bench-assistant-mem-${process.pid}`) });
    url = `http://127.0.0.1:${platform.gateway.port}`;
    close = () => platform.close();
  } else {
    let seq = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-assistant-session-id': `s${++seq}` });
      res.write(`id: 1\nevent: session\ndata: ${JSON.stringify({ sessionId: `s${seq}`, runId: `r${seq}`, flowId: 'raw', versionId: 'raw@v1', variant: 'stable' })}\n\n`);
      req.socket.setTimeout(0);
    });
    server.keepAliveTimeout = 0;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((r) => server.close(() => r())).then(() => undefined);
  }
  process.on('message', (m: string) => {
    if (m === 'mem') {
      for (let i = 0; i < 3; i++) global.gc?.();
      const u = process.memoryUsage();
      send({ mem: { rss: u.rss, heapUsed: u.heapUsed, external: u.external } });
    } else if (m === 'close') {
      void close().finally(() => process.exit(0));
    }
  });
  send({ ready: url });
}

class MemChild {
  private waiters: Array<(m: ChildMsg) => void> = [];
  private constructor(private readonly proc: ChildProcess) {
    proc.on('message', (m: ChildMsg) => this.waiters.shift()?.(m));
  }

  static async start(kind: string): Promise<{ child: MemChild; url: string }> {
    const proc = fork(__filename, ['--memory-child', kind], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const child = new MemChild(proc);
    const m = await child.next();
    if (!('ready' in m)) throw new Error('memory child did not start');
    return { child, url: m.ready };
  }

  private next(): Promise<ChildMsg> {
    return new Promise((resolve, reject) => {
      this.waiters.push(resolve);
      this.proc.once('exit', (code) => reject(new Error(`memory child exited with ${code}`)));
    });
  }

  async mem(): Promise<{ rss: number; heapUsed: number; external: number }> {
    const m = this.next();
    this.proc.send('mem');
    const r = await m;
    if (!('mem' in r)) throw new Error('unexpected message');
    return r.mem;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.send('close');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    this.proc.kill('SIGKILL');
  }
}

/** A server that holds every request until released: the flow's svc/http-request waits on it. */
async function holdServer(): Promise<{ url: string; held: () => number; rearm: () => void; release: () => void; close: () => Promise<void> }> {
  const waiting: http.ServerResponse[] = [];
  let hold = true;
  const server = http.createServer((req, res) => {
    req.resume();
    if (hold) waiting.push(res);
    else res.end('{"content":"released"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    held: () => waiting.length,
    rearm: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      for (const res of waiting.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"content":"released"}');
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Opens `n` SSE streams at once; resolves when each has its first frame. */
async function openStreams(url: string, n: number, body: string): Promise<{ done: Promise<void>; abort: () => void }> {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const reqs: http.ClientRequest[] = [];
  const ended: Promise<void>[] = [];
  const firsts = Array.from({ length: n }, () => {
    return new Promise<void>((gotFirst, fail) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) } }, (res) => {
        if (res.statusCode !== 200) fail(new Error(`stream answered ${res.statusCode}`));
        ended.push(new Promise((r) => res.once('close', () => r())));
        res.once('data', () => gotFirst());
        res.resume();
      });
      req.on('error', fail);
      req.end(body);
      reqs.push(req);
    });
  });
  for (let i = 0; i < firsts.length; i += 100) await Promise.all(firsts.slice(i, i + 100));
  return { done: Promise.all(ended).then(() => undefined), abort: () => reqs.forEach((r) => r.destroy()) };
}

/** Lets held chat runs end (their streams close after the reply); raw streams never end by themselves. */
async function finish(kind: string, streams: { done: Promise<void>; abort: () => void }, hold: { release: () => void }): Promise<void> {
  hold.release();
  if (kind === 'platform') await Promise.race([streams.done, new Promise((r) => setTimeout(r, 30_000))]);
  streams.abort();
}

const settle = () => new Promise((r) => setTimeout(r, 500));

async function memoryPerStream(): Promise<BenchResult[]> {
  const hold = await holdServer();
  const body = JSON.stringify({ message: 'Hold on' });
  const measure = async (kind: 'platform' | 'raw'): Promise<{ rss: number; heap: number }> => {
    const { child, url } = await MemChild.start(kind);
    try {
      let path = '/';
      if (kind === 'platform') {
        const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
        const api = new Api(url, token);
        await api.call('POST', '/admin/assistant/reset?template=echo');
        await api.publish('assistant', {
          name: 'Assistant (held)',
          nodes: [
            { id: 'start', name: 'Start', kind: 'start' },
            { id: 'wait', name: 'Wait', kind: 'action', action_ref: 'svc/http-request', config: { method: 'GET', url: hold.url, timeoutMs: 60_000 } },
            { id: 'end', name: 'End', kind: 'end' },
          ],
          edges: [
            { id: 'e1', from: 'start', to: 'wait' },
            { id: 'e2', from: 'wait', to: 'end' },
          ],
        });
        path = '/api/v1/assistant/messages';
      }
      // Warm every code path with a few held streams, released, before the first reading.
      const warm = await openStreams(url + path, 20, body);
      await finish(kind, warm, hold);
      await settle();
      progress(`${kind}: warmed up`);
      const before = await child.mem();
      hold.rearm();
      const open = await openStreams(url + path, STREAMS, body);
      await settle();
      const after = await child.mem();
      progress(`${kind}: ${STREAMS} streams open`);
      if (kind === 'platform' && hold.held() < STREAMS) throw new Error(`only ${hold.held()} of ${STREAMS} runs reached the held request`);
      await finish(kind, open, hold);
      return { rss: (after.rss - before.rss) / STREAMS, heap: (after.heapUsed + after.external - before.heapUsed - before.external) / STREAMS };
    } finally {
      await child.close();
    }
  };
  try {
    const chat = await measure('platform');
    const raw = await measure('raw');
    const kb = (x: number) => Math.round(x / 102.4) / 10;
    return [
      {
        name: `assistant: memory per open chat stream (RSS) at ${STREAMS} concurrent streams vs raw node:http SSE streams`,
        ours: kb(chat.rss),
        baseline: kb(raw.rss),
        unit: 'KiB/stream',
        ratio: chat.rss / raw.rss,
        notes: `heap+external per stream: chat ${kb(chat.heap)} KiB, raw ${kb(raw.heap)} KiB; chat = gateway + assistant + flow-runtime (held svc/http-request) in one standalone process, gc before each reading; lower is better`,
      },
    ];
  } finally {
    await hold.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  // ASSISTANT_BENCH_MEMORY=0 skips the memory part (profiling the chat path with --cpu-prof).
  return [...(await latencyAndRate()), ...(process.env.ASSISTANT_BENCH_MEMORY === '0' ? [] : await memoryPerStream())];
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  const i = process.argv.indexOf('--memory-child');
  if (i >= 0) {
    void memoryChild(process.argv[i + 1]);
  } else {
    run()
      .then((results) => {
        for (const r of results) console.log(`${r.name}: ours ${r.ours} ${r.unit}, baseline ${r.baseline} ${r.unit}, ratio ${r.ratio.toFixed(2)} (${r.notes})`);
        console.log(JSON.stringify(results));
      })
      .catch((error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      });
  }
}
