import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchResult } from './bench-result';
import { relaunchedUnderPlatformFlags } from './platform-flags';


/** `npm run bench`: every benchmark, each beside its baseline from the same run; JSON to bench/results/. */
async function main(): Promise<void> {
  if (relaunchedUnderPlatformFlags()) return;
  const only = process.argv.slice(2);
  const benches = ['bus', 'store', 'gateway', 'runs', 'profiles', 'engine', 'conditions', 'deployments', 'compile', 'llm', 'hub', 'search', 'i18n', 'assistant', 'assistant-ingest', 'i18n-translate', 'content', 'http-paths', 'client-t', 'widget', 'console', 'console-canvas', 'kafka-runs', 'store-mongo'].filter((b) => !only.length || only.includes(b));
  const rows: BenchResult[] = [];
  for (const b of benches) {
    const mod = (await import(`./${b}.bench`)) as { run(): Promise<BenchResult[]> };
    process.stdout.write(`running ${b}...\n`);
    rows.push(...(await mod.run()));
  }
  const table = rows.map((r) => ({ benchmark: r.name, ours: Math.round(r.ours), baseline: Math.round(r.baseline), unit: r.unit, ratio: r.ratio.toFixed(2) }));
  console.table(table);
  const dir = path.resolve(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ node: process.version, at: new Date().toISOString(), results: rows }, null, 2));
  process.stdout.write(`results written to ${file}\n`);
}

void main();
