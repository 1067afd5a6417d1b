import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mintToken } from '@flowplane/platform/auth';
import { PLATFORM_NODE_FLAGS } from '@flowplane/platform/config';
import type { BenchResult } from './bench-result';

/**
 * The speed of the HTTP paths, each beside its baseline in the same run (autocannon, 50
 * connections, keep-alive). The platform runs in a child process (standalone: every service in
 * one process, the gateway in front); a bare Nest-express hello app runs in another child process
 * as the baseline of a service's own /healthz. Sides alternate in rounds so drift over time (other
 * load on a shared machine) hits both alike; beside requests/s each side reports its server's
 * CPU time per request (from /proc), which load on other cores disturbs far less than wall clock.
 *
 * 1. search: `POST /api/v1/search/indexes/docs/query` (text query, a user token) through the
 *    gateway vs the proxied `GET /api/v1/profiles/healthz` on the same gateway (goal >= 0.6x);
 * 2. a service's own `GET /healthz` (profiles, direct) vs the hello app's (goal >= 0.8x), and the
 *    gateway's proxied vs direct healthz (goal >= 0.7x);
 * 3. runs: `POST /api/v1/flows/{id}/runs` (a start -> end flow, waiting for the result; run,
 *    events and result persisted in the embedded store) vs the proxied healthz (goal >= 0.7x).
 * 4. floor (no goal, a reference for 2's proxied/direct figure): a bare proxy (plain node:http
 *    server forwarding through an undici Pool `.stream()`, keep-alive) in front of a bare
 *    node:http hello vs that hello directly, both in one child process as in the platform: what
 *    one real HTTP hop in one process costs with nothing else on the path.
 *
 * `npm run bench -- http-paths`; BENCH_SECONDS (per side, default 10), BENCH_ROUNDS (default 2),
 * HTTP_PATHS (a subset of search,healthz,proxied,floor,runs). For a profile: BENCH_CPU_PROF=<dir>
 * BENCH_PROFILE_SIDE=search|runs|proxied|direct loads that side alone.
 */

const root = path.resolve(__dirname, '..', '..');
const SECRET = 'bench-secret-0123456789abcdef';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const TICK_US = 1e6 / 100; // /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ = 100 on Linux)

interface Side {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The process that serves it, whose CPU time is counted. */
  pid: number;
}

interface Measured {
  rps: number;
  cpuUsPerReq: number;
  requests: number;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

function measure(side: Side, seconds: number): Promise<Measured> {
  const before = cpuTicks(side.pid);
  return new Promise((resolve, reject) => {
    autocannon({ url: side.url, method: side.method ?? 'GET', headers: side.headers, body: side.body, connections: 50, pipelining: 1, duration: seconds }, (err, res) => {
      if (err) return reject(err);
      if (res.non2xx || res.errors) return reject(new Error(`${side.url}: ${res.non2xx} non-2xx answers, ${res.errors} errors`));
      const requests = res.requests.total;
      resolve({ rps: res.requests.average, requests, cpuUsPerReq: ((cpuTicks(side.pid) - before) * TICK_US) / Math.max(1, requests) });
    });
  });
}

/** Ours and baseline alternated over ROUNDS rounds after a warm-up of each; means of the rounds. No goal: a reference row. */
async function compare(name: string, ours: Side, baseline: Side, goal?: number): Promise<BenchResult> {
  await measure(ours, 2);
  await measure(baseline, 2);
  const o: Measured[] = [];
  const b: Measured[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    o.push(await measure(ours, SECONDS));
    b.push(await measure(baseline, SECONDS));
  }
  const mean = (xs: Measured[], k: keyof Measured) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
  const [ors, brs, ocpu, bcpu] = [mean(o, 'rps'), mean(b, 'rps'), mean(o, 'cpuUsPerReq'), mean(b, 'cpuUsPerReq')];
  const ratio = ors / brs;
  const row: BenchResult = {
    name,
    ours: ors,
    baseline: brs,
    unit: 'req/s',
    ratio,
    notes: `${goal === undefined ? 'reference, no goal' : `goal >= ${goal}x: ${ratio >= goal ? 'met' : 'NOT met'}`}; CPU/request ${Math.round(ocpu)} us vs ${Math.round(bcpu)} us (ratio ${(bcpu / ocpu).toFixed(2)}); rounds ${o.map((x) => Math.round(x.rps)).join('/')} vs ${b.map((x) => Math.round(x.rps)).join('/')}`,
  };
  process.stdout.write(`${name}: ${Math.round(ors)} vs ${Math.round(brs)} req/s, ratio ${ratio.toFixed(2)} (${row.notes})\n`);
  return row;
}

function waitFor(proc: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes(text) && resolve());
    proc.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
}

async function startPlatform(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), path.join(root, 'dist/apps/standalone/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      GATEWAY_RATE_LIMIT: '0',
      STORE: 'embedded',
      DATA_DIR: `/tmp/flowplane-bench-http-paths-${Date.now()}`,
      AUTH_JWT_SECRET: SECRET,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitFor(proc, 'Flowplane is running');
  return proc;
}

/** The baseline of a service's own /healthz: Nest on Express with one controller and nothing else. */
async function startHello(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, __filename, '--hello', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  await waitFor(proc, 'hello listening');
  return proc;
}

/** The floor's child: a bare node:http hello on port + 1 and a bare undici proxy to it on port. */
async function startFloor(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, __filename, '--floor', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  await waitFor(proc, 'floor listening');
  return proc;
}

async function floorMain(port: number): Promise<void> {
  const http = await import('node:http');
  const { Pool } = await import('undici');
  const listen = (server: import('node:http').Server, p: number) => new Promise<void>((resolve) => server.listen(p, '127.0.0.1', resolve));
  const hello = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  await listen(hello, port + 1);
  const pool = new Pool(`http://127.0.0.1:${port + 1}`, { connections: 256, pipelining: 1 });
  // Hop-by-hop headers stay on their hop; everything else passes as is.
  const hop = new Set(['connection', 'keep-alive', 'host', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
  const proxy = http.createServer((req, res) => {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !hop.has(k)) headers[k] = v;
    pool
      .stream({ path: req.url ?? '/', method: req.method as 'GET', headers, body: req.method === 'GET' || req.method === 'HEAD' ? null : req }, ({ statusCode, headers: h }) => {
        for (const k of hop) delete h[k];
        res.writeHead(statusCode, h as Record<string, string | string[]>);
        return res;
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
  await listen(proxy, port);
  process.stdout.write('floor listening\n');
}

async function helloMain(port: number): Promise<void> {
  const { Controller, Get, Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  class HelloController {
    healthz() {
      return { status: 'ok' };
    }
  }
  Controller()(HelloController);
  Get('healthz')(HelloController.prototype, 'healthz', Object.getOwnPropertyDescriptor(HelloController.prototype, 'healthz')!);
  class HelloModule {}
  Module({ controllers: [HelloController] })(HelloModule);
  const app = await NestFactory.create(HelloModule, { logger: false });
  await app.listen(port, '127.0.0.1');
  process.stdout.write('hello listening\n');
}

export async function run(): Promise<BenchResult[]> {
  const port = 18780;
  const proc = await startPlatform(port);
  const hello = await startHello(port + 50);
  const floor = await startFloor(port + 60);
  try {
    const pid = proc.pid!;
    const api = `http://127.0.0.1:${port}/api/v1`;
    const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (p: string, body: unknown) => {
      const r = await fetch(api + p, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`POST ${p}: ${r.status} ${await r.text()}`);
      return (await r.json()) as Record<string, string>;
    };
    const documents = Array.from({ length: 50 }, (_, i) => ({ id: `doc-${i}`, title: `Document ${i}`, text: `# Topic ${i}\n\nRefunds, parcels and labels: paragraph ${i} about returns within ${i} days.` }));
    await post('/admin/assistant/ingest', { documents });
    await post('/flows', { id: 'bench', name: 'Bench' });
    const v = await post('/flows/bench/versions', {
      name: 'Bench',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [{ id: 'e1', from: 'start', to: 'end' }],
      meta: { positions: { start: { x: 0, y: 0 }, end: { x: 1, y: 0 } } },
    });
    await post('/flows/bench/publish', { versionID: v.versionId });

    const proxied: Side = { url: `${api}/profiles/healthz`, pid };
    const direct: Side = { url: `http://127.0.0.1:${port + 3}/healthz`, pid };
    const bare: Side = { url: `http://127.0.0.1:${port + 50}/healthz`, pid: hello.pid! };
    const floorProxied: Side = { url: `http://127.0.0.1:${port + 60}/healthz`, pid: floor.pid! };
    const floorDirect: Side = { url: `http://127.0.0.1:${port + 61}/healthz`, pid: floor.pid! };
    const search: Side = { url: `${api}/search/indexes/docs/query`, method: 'POST', headers, body: JSON.stringify({ text: 'when does my refund arrive?', limit: 5 }), pid };
    const runs: Side = { url: `${api}/flows/bench/runs`, method: 'POST', headers, body: JSON.stringify({ input: { hello: 'world' } }), pid };
    const sides: Record<string, Side> = { search, runs, proxied, direct };
    const profiled = process.env.BENCH_PROFILE_SIDE;
    if (profiled) {
      // Load on one side only, for a CPU profile of it (BENCH_CPU_PROF=<dir>).
      const m = await measure(sides[profiled], SECONDS);
      process.stdout.write(`${profiled}: ${Math.round(m.rps)} req/s, ${Math.round(m.cpuUsPerReq)} us CPU/request\n`);
      return [];
    }
    const only = (process.env.HTTP_PATHS ?? 'search,healthz,proxied,floor,runs').split(',');
    const rows: BenchResult[] = [];
    if (only.includes('search')) rows.push(await compare('search query through the gateway vs proxied GET healthz', search, proxied, 0.6));
    if (only.includes('healthz')) rows.push(await compare("a service's own GET /healthz vs bare Nest-express hello", direct, bare, 0.8));
    if (only.includes('proxied')) rows.push(await compare('gateway proxied GET healthz vs direct GET /healthz', proxied, direct, 0.7));
    if (only.includes('floor')) rows.push(await compare('floor: bare undici proxy vs bare node:http hello', floorProxied, floorDirect));
    if (only.includes('runs')) rows.push(await compare('POST /api/v1/flows/{id}/runs through the gateway (persisted) vs proxied GET healthz', runs, proxied, 0.7));
    return rows;
  } finally {
    floor.kill('SIGTERM');
    hello.kill('SIGTERM');
    proc.kill('SIGTERM');
  }
}

if (require.main === module) {
  if (process.argv[2] === '--hello') void helloMain(Number(process.argv[3]));
  else if (process.argv[2] === '--floor') void floorMain(Number(process.argv[3]));
  else
    void run().then((rows) => {
      console.table(rows.map((r) => ({ benchmark: r.name, ours: Math.round(r.ours), baseline: Math.round(r.baseline), ratio: r.ratio.toFixed(2), notes: r.notes })));
    });
}
