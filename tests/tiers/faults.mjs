// Full-size run of the faults tier: `npm run faults -- --events 10000 --kills 20 [--poison 40] [--seed 7] [--verbose]`.
// --verbose passes the split processes' own output through (their logs around a kill).
// Runs tests/tiers/faults.tier.spec.ts alone with those sizes and REQUIRE_INTEGRATION=1 (the Kafka
// mock broker must be built: npm run kafka-mock:build); the figures are printed at the end.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    kills: { type: 'string', default: '20' },
    poison: { type: 'string' },
    seed: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
for (const [name, value] of Object.entries(values)) {
  if (typeof value === 'string' && !/^\d+$/.test(value)) {
    console.error(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
}
const env = { ...process.env, REQUIRE_INTEGRATION: '1', FAULTS_EVENTS: values.events, FAULTS_KILLS: values.kills };
if (values.poison) env.FAULTS_POISON = values.poison;
if (values.seed) env.FAULTS_SEED = values.seed;
if (values.verbose) env.FAULTS_VERBOSE = '1';
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const run = spawnSync(process.execPath, [jest, '--runTestsByPath', 'tests/tiers/faults.tier.spec.ts'], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
