import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import WebSocket, { WebSocketServer } from 'ws';
import { hubDefinition } from '@flowplane/hub';
import { mintServiceToken } from '@flowplane/platform/auth';
import { PLATFORM_NODE_FLAGS } from '@flowplane/platform/config';
import { startService } from '@flowplane/platform/service';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';

/**
 * Issue 7: the hub beside a raw `ws` fan-out loop (a plain HTTP handler that JSON-parses the body
 * and `send`s one string to every socket), same run, same clients, same trigger (HTTP POST). Each
 * server runs in its own process pinned to one core (`taskset -c 0` when available); the clients
 * run here, on the other core.
 *
 * - delivered messages/s at 1,000 clients with 100-byte messages (closed loop: at most 16
 *   broadcasts outstanding beyond what every client has received), also per server CPU-second;
 * - broadcast latency p99 at a fixed rate (HUB_BENCH_RATE, default 10 broadcasts/s = 10,000
 *   deliveries/s, well inside what the client process can read; HTTP send to receipt, every client);
 * - RSS per idle connection at 5,000 connections;
 * - one paused client among 999: the others' p99 against the same run without it.
 */

const SECRET = 'bench-secret-0123456789abcdef';
const CLIENTS = Number(process.env.HUB_BENCH_CLIENTS ?? 1000);
const IDLE = Number(process.env.HUB_BENCH_IDLE ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.HUB_BENCH_RATE ?? 10);
const PAYLOAD = 'x'.repeat(100 - 30);

type Kind = 'hub' | 'raw';

// ---------------------------------------------------------------- servers (child processes)

async function serveRaw(): Promise<number> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false });
  const rooms = new Map<string, Set<WebSocket>>();
  const server = createServer((req, res) => {
    const m = /^\/ws\/broadcast\/([^/?]+)/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const room = decodeURIComponent(m[1]);
      const data = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
      const frame = JSON.stringify({ type: 'message', room, data, ts: new Date().toISOString() });
      let delivered = 0;
      for (const ws of rooms.get(room) ?? []) {
        ws.send(frame);
        delivered++;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ room, delivered }));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const room = new URL(req.url ?? '/', 'http://x').searchParams.get('room') ?? 'default';
    wss.handleUpgrade(req, socket, head, (ws) => {
      let members = rooms.get(room);
      if (!members) rooms.set(room, (members = new Set()));
      members.add(ws);
      ws.on('close', () => members!.delete(ws));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

async function serveHub(): Promise<number> {
  const svc = await startService(hubDefinition, {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', BUS: 'memory', COORD: 'noop' },
  });
  return svc.port;
}

async function serve(kind: Kind): Promise<void> {
  const port = kind === 'hub' ? await serveHub() : await serveRaw();
  if (global.gc) global.gc();
  process.stdout.write(`READY ${port}\n`);
  // The parent asks for RSS (after a GC) on stdin.
  createInterface({ input: process.stdin }).on('line', () => {
    if (global.gc) global.gc();
    process.stdout.write(`RSS ${process.memoryUsage().rss}\n`);
  });
}

interface Server {
  kind: Kind;
  port: number;
  proc: ChildProcess;
  rss(): Promise<number>;
  cpuSeconds(): number;
  stop(): void;
}

function hasTaskset(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v taskset'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function startServer(kind: Kind): Promise<Server> {
  const args = ['--expose-gc', ...PLATFORM_NODE_FLAGS, __filename, '--serve', kind];
  const proc = hasTaskset() ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! });
  const waiting: Array<(line: string) => void> = [];
  let onReady!: (port: number) => void;
  const ready = new Promise<number>((r) => (onReady = r));
  lines.on('line', (l) => {
    if (l.startsWith('READY ')) onReady(Number(l.slice(6)));
    else if (l.startsWith('RSS ')) waiting.shift()?.(l.slice(4));
  });
  const port = await ready;
  if (hasTaskset()) execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
  return {
    kind,
    port,
    proc,
    rss: () =>
      new Promise<number>((resolve) => {
        waiting.push((v) => resolve(Number(v)));
        proc.stdin!.write('rss\n');
      }),
    // utime + stime of the server process, from /proc (Linux).
    cpuSeconds: () => {
      // taskset execs node in place, so the child's pid is the server's.
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    stop: () => proc.kill('SIGKILL'),
  };
}

// ---------------------------------------------------------------- clients (this process, core 1)

interface Clients {
  sockets: WebSocket[];
  received: number;
  /** Per-delivery latency samples (ms), when sampling. */
  latencies: number[];
  sentAt: Map<number, number>;
  sampling: boolean;
  close(): void;
}

async function connectClients(server: Server, n: number, room: string, token: string, paused = 0): Promise<Clients> {
  const c: Clients = { sockets: [], received: 0, latencies: [], sentAt: new Map(), sampling: false, close: () => c.sockets.forEach((s) => s.terminate()) };
  const url = server.kind === 'hub' ? `ws://127.0.0.1:${server.port}/ws/connect?token=${token}&room=${room}` : `ws://127.0.0.1:${server.port}/ws/connect?room=${room}`;
  const batch = 100;
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, (_, k) => {
        const index = i + k;
        return new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(url, { perMessageDeflate: false });
          ws.once('open', () => {
            if (index < paused) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
            resolve();
          });
          ws.once('error', reject);
          let first = server.kind === 'hub';
          ws.on('message', (data: Buffer) => {
            if (first) {
              first = false; // the hub's `subscribed` ack
              return;
            }
            c.received++;
            if (c.sampling) {
              const m = /"seq":(\d+)/.exec(data.toString('latin1', 0, 120));
              const t = m && c.sentAt.get(Number(m[1]));
              if (t) c.latencies.push(performance.now() - t);
            }
          });
          c.sockets.push(ws);
        });
      }),
    );
  }
  return c;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function post(server: Server, room: string, body: string, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { agent, host: '127.0.0.1', port: server.port, method: 'POST', path: `/ws/broadcast/${room}`, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`broadcast answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Closed-loop throughput: deliveries per second (wall) and per server CPU-second. */
async function throughput(server: Server, token: string): Promise<{ perSecond: number; perCpuSecond: number }> {
  const clients = await connectClients(server, CLIENTS, 'tp', token);
  await sleep(300);
  let seq = 0;
  let running = true;
  const window = 16;
  const loop = async () => {
    while (running) {
      if (seq * CLIENTS - clients.received > window * CLIENTS) {
        await sleep(1);
        continue;
      }
      await post(server, 'tp', JSON.stringify({ seq: ++seq, p: PAYLOAD }), token);
    }
  };
  // Warm-up, then the measured interval.
  const loops = [loop(), loop(), loop(), loop()];
  await sleep(1500);
  const r0 = clients.received;
  const cpu0 = server.cpuSeconds();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const received = clients.received - r0;
  const wall = (performance.now() - t0) / 1000;
  const cpu = server.cpuSeconds() - cpu0;
  running = false;
  await Promise.all(loops);
  if (process.env.HUB_BENCH_DEBUG) {
    const m = await fetch(`http://127.0.0.1:${server.port}/metrics`).then((r) => r.text()).catch(() => '');
    process.stderr.write(`${server.kind}: seq=${seq} received=${clients.received} cpu=${cpu} ${m.split('\n').filter((l) => l.startsWith('hub_')).join(' | ')}\n`);
  }
  clients.close();
  await sleep(300);
  return { perSecond: received / wall, perCpuSecond: received / Math.max(cpu, 0.01) };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** Open-loop latency at RATE broadcasts/s: p99 of (receipt - send) over every delivery. */
async function latency(server: Server, token: string, paused = 0): Promise<number> {
  const clients = await connectClients(server, CLIENTS, 'lat', token, paused);
  await sleep(300);
  clients.sampling = true;
  const total = Math.max(50, Math.round(RATE * Math.min(SECONDS, 6)));
  const posts: Array<Promise<void>> = [];
  const start = performance.now();
  for (let seq = 1; seq <= total; seq++) {
    const due = start + (seq * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    clients.sentAt.set(seq, performance.now());
    posts.push(post(server, 'lat', JSON.stringify({ seq, p: PAYLOAD }), token));
  }
  await Promise.all(posts);
  const expected = total * (CLIENTS - paused);
  const deadline = performance.now() + 10_000;
  while (clients.latencies.length < expected && performance.now() < deadline) await sleep(20);
  const p99 = percentile(clients.latencies, 99);
  clients.close();
  await sleep(300);
  return p99;
}

/**
 * Resident memory per idle connection: RSS with IDLE open connections minus RSS before, per
 * connection, both after a GC. Kernel socket buffers are not part of RSS.
 */
async function rssPerConnection(server: Server, token: string): Promise<number> {
  const before = await server.rss();
  const clients = await connectClients(server, IDLE, 'idle', token);
  await sleep(1000);
  const after = await server.rss();
  clients.close();
  await sleep(500);
  return (after - before) / IDLE;
}

export async function run(): Promise<BenchResult[]> {
  const token = await mintServiceToken(SECRET, { from: 'bench', to: 'hub', ttlSeconds: 3600 });
  const figures: Record<Kind, { tp: { perSecond: number; perCpuSecond: number }; p99: number; rss: number }> = {} as never;
  let pausedP99 = NaN;
  let unpausedP99 = NaN;
  for (const kind of ['raw', 'hub'] as const) {
    const server = await startServer(kind);
    let tp: { perSecond: number; perCpuSecond: number };
    let p99: number;
    try {
      tp = await throughput(server, token);
      p99 = await latency(server, token);
      if (kind === 'hub') {
        unpausedP99 = p99;
        pausedP99 = await latency(server, token, 1);
      }
    } finally {
      server.stop();
    }
    // Memory on a fresh process, so the heap left by the load phases does not blur the difference.
    const fresh = await startServer(kind);
    try {
      figures[kind] = { tp, p99, rss: await rssPerConnection(fresh, token) };
    } finally {
      fresh.stop();
    }
  }
  const { hub, raw } = figures;
  return [
    {
      name: `hub fan-out: delivered msgs/s, ${CLIENTS} clients x 100 B (wall) vs raw ws loop`,
      ours: hub.tp.perSecond,
      baseline: raw.tp.perSecond,
      unit: 'msg/s',
      ratio: hub.tp.perSecond / raw.tp.perSecond,
      notes: `goal >= 0.7x: ${hub.tp.perSecond / raw.tp.perSecond >= 0.7 ? 'met' : 'NOT met'} (wall rate includes the client process on the other core)`,
    },
    {
      name: `hub fan-out: delivered msgs per server CPU-second, ${CLIENTS} clients x 100 B vs raw ws loop`,
      ours: hub.tp.perCpuSecond,
      baseline: raw.tp.perCpuSecond,
      unit: 'msg/cpu-s',
      ratio: hub.tp.perCpuSecond / raw.tp.perCpuSecond,
      notes: `goal >= 0.7x: ${hub.tp.perCpuSecond / raw.tp.perCpuSecond >= 0.7 ? 'met' : 'NOT met'}`,
    },
    {
      name: `hub broadcast latency p99 at ${RATE} broadcasts/s to ${CLIENTS} clients vs raw ws loop (lower is better)`,
      ours: hub.p99,
      baseline: raw.p99,
      unit: 'ms',
      ratio: hub.p99 / raw.p99,
    },
    {
      name: `hub RSS per idle connection at ${IDLE} connections vs raw ws server (lower is better)`,
      ours: hub.rss / 1024,
      baseline: raw.rss / 1024,
      unit: 'KB',
      ratio: hub.rss / raw.rss,
      notes: `goal <= 50 KB: ${hub.rss / 1024 <= 50 ? 'met' : 'NOT met'}`,
    },
    {
      name: `hub p99 of 999 clients with one paused vs all ${CLIENTS} reading (lower is better)`,
      ours: pausedP99,
      baseline: unpausedP99,
      unit: 'ms',
      ratio: pausedP99 / unpausedP99,
      notes: `goal <= +10%: ${pausedP99 <= unpausedP99 * 1.1 ? 'met' : 'NOT met'}`,
    },
  ];
}

if (require.main === module && !relaunchedUnderPlatformFlags()) {
  const i = process.argv.indexOf('--serve');
  if (i !== -1) {
    void serve(process.argv[i + 1] as Kind);
  } else {
    void run().then((rows) => {
      console.table(rows.map((r) => ({ ...r, ours: r.ours.toFixed(1), baseline: r.baseline.toFixed(1), ratio: r.ratio.toFixed(2) })));
      console.log(JSON.stringify(rows));
      process.exit(0);
    });
  }
}
