import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { BenchResult } from './bench-result';
import { PLATFORM_NODE_FLAGS } from '@flowplane/platform/config';


const root = path.resolve(__dirname, '..', '..');

function measure(url: string, seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 100, duration: seconds, pipelining: 1 }, (err, res) => (err ? reject(err) : resolve(res.requests.average)));
  });
}

async function startPlatform(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, path.join(root, 'dist/apps/standalone/src/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', GATEWAY_RATE_LIMIT: '0', STORE: 'memory', DATA_DIR: '/tmp/flowplane-bench' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('Flowplane is running') && resolve());
    proc.once('exit', (code) => reject(new Error(`standalone exited with ${code}`)));
  });
  return proc;
}

/**
 * Gateway overhead: requests/s of `GET /api/v1/profiles/healthz` through the gateway next to
 * `GET /healthz` on the profiles service directly (autocannon, 100 connections, same run).
 * The platform runs in a child process (standalone: every service in one process), autocannon here.
 */
export async function run(seconds = Number(process.env.BENCH_SECONDS ?? 15)): Promise<BenchResult[]> {
  const port = 18480;
  const proc = await startPlatform(port);
  try {
    const direct = `http://127.0.0.1:${port + 3}/healthz`;
    const proxied = `http://127.0.0.1:${port}/api/v1/profiles/healthz`;
    // Warm both paths up (JIT), then alternate rounds so drift over time hits both sides alike.
    await measure(direct, 5);
    await measure(proxied, 5);
    const rounds = Math.max(1, Math.round(seconds / 5));
    const baselines: number[] = [];
    const ours: number[] = [];
    for (let i = 0; i < rounds; i++) {
      baselines.push(await measure(direct, 5));
      ours.push(await measure(proxied, 5));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const baseline = mean(baselines);
    const proxiedRate = mean(ours);
    return [
      {
        name: 'gateway proxied GET /api/v1/profiles/healthz vs direct GET /healthz (100 conns)',
        ours: proxiedRate,
        baseline,
        unit: 'req/s',
        ratio: proxiedRate / baseline,
        notes: `rounds direct ${baselines.map(Math.round).join('/')} proxied ${ours.map(Math.round).join('/')}`,
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
