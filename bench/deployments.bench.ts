import autocannon from 'autocannon';
import murmurhash from 'murmurhash';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { VariantSelector } from '@flowplane/contracts';
import { mintToken } from '@flowplane/platform/auth';
import type { BenchResult } from './bench-result';
import { PLATFORM_NODE_FLAGS } from '@flowplane/platform/config';

const root = path.resolve(__dirname, '..', '..');
const SECRET = 'bench-secret-0123456789abcdef';

function measure(opts: autocannon.Options): Promise<{ rps: number; non2xx: number }> {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, pipelining: 1, ...opts }, (err, res) => (err ? reject(err) : resolve({ rps: res.requests.average, non2xx: res.non2xx })));
  });
}

/** Operations per second of `fn` over `ms` (after a warm-up). */
function opsPerSecond(fn: (i: number) => unknown, ms = 1500): number {
  for (let i = 0; i < 200_000; i++) fn(i);
  let n = 0;
  const start = performance.now();
  let sink = 0;
  while (performance.now() - start < ms) {
    for (let i = 0; i < 10_000; i++, n++) if (fn(n)) sink++;
  }
  if (sink < 0) console.log(sink);
  return n / ((performance.now() - start) / 1000);
}

export function selection(): BenchResult[] {
  const selector = new VariantSelector([
    { label: 'stable', flowId: 'a', weight: 90 },
    { label: 'canary', flowId: 'b', weight: 10 },
  ]);
  const ids = Array.from({ length: 4096 }, (_, i) => `session-${i}-${(i * 2654435761) % 100000}`);
  // Alternating rounds, best of three each, so JIT warm-up and CPU noise hit both sides alike.
  const best = (fns: Array<() => number>): number[] => {
    const out = fns.map(() => 0);
    for (let round = 0; round < 3; round++) fns.forEach((f, k) => (out[k] = Math.max(out[k], f())));
    return out;
  };
  const [sticky, rawHash] = best([() => opsPerSecond((i) => selector.select(ids[i & 4095]), 700), () => opsPerSecond((i) => murmurhash.v3(ids[i & 4095], 0) < 0x80000000, 700)]);
  const [random, rawRandom] = best([() => opsPerSecond(() => selector.select(), 700), () => opsPerSecond(() => Math.random() < 0.9, 700)]);
  return [
    { name: 'Variant selection, sticky (murmur3 of a session id, 90/10) vs hashing alone with the murmurhash package', ours: sticky, baseline: rawHash, unit: 'selections/s', ratio: sticky / rawHash, notes: `target >= 1,000,000/s: ${sticky >= 1e6 ? 'met' : 'NOT met'}` },
    { name: 'Variant selection, weighted random draw vs a bare Math.random() comparison', ours: random, baseline: rawRandom, unit: 'selections/s', ratio: random / rawRandom, notes: `target >= 1,000,000/s: ${random >= 1e6 ? 'met' : 'NOT met'}` },
  ];
}

async function startPlatform(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, path.join(root, 'dist/apps/standalone/src/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0', STORE: 'embedded', DATA_DIR: `/tmp/flowplane-bench-deployments-${Date.now()}`, AUTH_JWT_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('Flowplane is running') && resolve());
    proc.once('exit', (code) => reject(new Error(`standalone exited with ${code}`)));
  });
  return proc;
}

/**
 * A dispatched route (route deployment over a start → template-render → end flow, runs persisted)
 * through the gateway, next to a proxied static route (GET /api/v1/profiles/healthz) in the same run.
 */
async function dispatched(seconds: number): Promise<BenchResult[]> {
  const port = 18690;
  const proc = await startPlatform(port);
  try {
    const api = `http://127.0.0.1:${port}/api/v1`;
    const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const send = (method: string, p: string, body: unknown) => fetch(api + p, { method, headers, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, string>>);
    await send('POST', '/flows', { id: 'greet', name: 'Greet' });
    const v = await send('POST', '/flows/greet/versions', {
      name: 'Greet',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'render', name: 'Render', kind: 'action', action_ref: 'svc/template-render', config: { template: 'Hello {{ input.body.name }}', target: 'text' } },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'render' },
        { id: 'e2', from: 'render', to: 'end' },
      ],
      meta: { route: { method: 'POST', path: '/greetings' } },
    });
    await send('POST', '/flows/greet/publish', { versionID: v.versionId });
    await send('POST', '/deployments', { id: 'greetings', name: 'Greetings', kind: 'route', variants: [{ label: 'stable', flowId: 'greet', weight: 100 }] });
    const route = { url: `${api}/greetings`, method: 'POST' as const, headers, body: JSON.stringify({ name: 'Ada' }) };
    for (let i = 0; i < 100; i++) {
      const r = await fetch(route.url, { method: 'POST', headers, body: route.body });
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const health = { url: `${api}/profiles/healthz` };
    await measure({ ...route, duration: 3 });
    await measure({ ...health, duration: 3 });
    const ours = await measure({ ...route, duration: seconds });
    const baseline = await measure({ ...health, duration: seconds });
    if (ours.non2xx) throw new Error(`${ours.non2xx} dispatched requests failed`);
    return [
      {
        name: 'Dispatched route (3-node flow, run persisted, 50 conns) vs proxied static route GET healthz',
        ours: ours.rps,
        baseline: baseline.rps,
        unit: 'req/s',
        ratio: ours.rps / baseline.rps,
        notes: `target ratio >= 0.5: ${ours.rps / baseline.rps >= 0.5 ? 'met' : 'NOT met'}`,
      },
    ];
  } finally {
    proc.kill('SIGTERM');
  }
}

export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<BenchResult[]> {
  return [...selection(), ...(await dispatched(seconds))];
}

if (require.main === module) {
  void run().then((rows) => {
    console.table(rows);
    console.log(JSON.stringify(rows));
  });
}
