#!/usr/bin/env node
// `npm run fuzz -- --cases 1000 [--seed N] [--concurrency N]`: the fuzzing tier at a chosen size
// (CI runs it inside `npm test` at FUZZ_CASES=100).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const flags = { '--cases': 'FUZZ_CASES', '--seed': 'FUZZ_SEED', '--concurrency': 'FUZZ_CONCURRENCY', '--timeout-ms': 'FUZZ_TIMEOUT_MS' };
const env = { ...process.env, FUZZ_CASES: process.env.FUZZ_CASES ?? '1000' };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const [name, inline] = args[i].split('=');
  if (!(name in flags)) {
    console.error(`unknown option ${args[i]}; use ${Object.keys(flags).join(', ')}`);
    process.exit(2);
  }
  const value = inline ?? args[++i];
  if (!/^\d+$/.test(value ?? '')) {
    console.error(`${name} needs a whole number`);
    process.exit(2);
  }
  env[flags[name]] = value;
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const jest = join(root, 'node_modules/jest/bin/jest.js');
const run = spawnSync(process.execPath, [jest, '--runInBand', 'tests/tiers/fuzz.e2e.spec.ts'], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
