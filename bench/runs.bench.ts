import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
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

async function startPlatform(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, path.join(root, 'dist/apps/standalone/src/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0', STORE: 'embedded', DATA_DIR: `/tmp/flowplane-bench-runs-${Date.now()}`, AUTH_JWT_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('Flowplane is running') && resolve());
    proc.once('exit', (code) => reject(new Error(`standalone exited with ${code}`)));
  });
  return proc;
}

/**
 * Runs through the gateway: `POST /api/v1/flows/{id}/runs` (a start → end flow, waiting for the
 * result, run and events persisted in the embedded store) next to a proxied health call, same run.
 */
export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<BenchResult[]> {
  const port = 18680;
  const proc = await startPlatform(port);
  try {
    const api = `http://127.0.0.1:${port}/api/v1`;
    const token = await mintToken(SECRET, { sub: 'bench', perms: ['admin:access'], ttl: '1h' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = (p: string, body: unknown) => fetch(api + p, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, string>>);
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
    const runs = { url: `${api}/flows/bench/runs`, method: 'POST' as const, headers, body: JSON.stringify({ input: { hello: 'world' } }) };
    const health = { url: `${api}/profiles/healthz` };
    await measure({ ...runs, duration: 3 });
    await measure({ ...health, duration: 3 });
    const ours = await measure({ ...runs, duration: seconds });
    const baseline = await measure({ ...health, duration: seconds });
    if (ours.non2xx) throw new Error(`${ours.non2xx} run requests failed`);
    return [
      {
        name: 'POST /api/v1/flows/{id}/runs through the gateway (persisted, 50 conns) vs proxied GET healthz',
        ours: ours.rps,
        baseline: baseline.rps,
        unit: 'req/s',
        ratio: ours.rps / baseline.rps,
        notes: `target >= 1000 runs/s: ${ours.rps >= 1000 ? 'met' : 'NOT met'}`,
      },
    ];
  } finally {
    proc.kill('SIGTERM');
  }
}

if (require.main === module) {
  void run().then((rows) => {
    console.table(rows);
    console.log(JSON.stringify(rows));
  });
}
