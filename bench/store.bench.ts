/**
 * Store benchmark: the embedded engine with persistence on (journal in a temp dir, default
 * fsync policy 'interval') next to a plain Map doing the same work in the same run.
 *
 *   node tools/build.mjs && node dist/bench/store.bench.js
 *
 * Rows: inserts one at a time (each awaited), inserts 100 at a time (concurrent, so group commit
 * shares one write(2)), the same under fsync 'always' (every batch waits for fdatasync), and
 * point reads by a unique-indexed field. The Map baseline keeps documents by id and by email and
 * is the upper bound of any in-process store; the ratio says how much of it we keep.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type FsyncPolicy, type StoreDocument, createEmbeddedStore } from '@flowplane/platform/store';
import type { BenchResult } from './bench-result';


interface User extends StoreDocument {
  _id: string;
  email: string;
  name: string;
  age: number;
  tags: string[];
  createdAt: Date;
}

const user = (i: number, prefix: string): User => ({
  _id: `${prefix}${i}`,
  email: `${prefix}user${i}@example.com`,
  name: `User ${i}`,
  age: 20 + (i % 50),
  tags: ['a', i % 2 ? 'odd' : 'even'],
  createdAt: new Date(1_700_000_000_000 + i),
});

function perSecond(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

/** Documents and lookup keys are generated before timing, so both sides time only their own work. */
interface Workload {
  docs: User[];
  keys: string[];
}

function workload(n: number, prefix: string): Workload {
  const docs = Array.from({ length: n }, (_, i) => user(i, prefix));
  const keys = Array.from({ length: n }, (_, i) => docs[(i * 7919) % n].email);
  return { docs, keys };
}

function mapBaseline(w: Workload): { insert: number; read: number } {
  const byId = new Map<string, User>();
  const byEmail = new Map<string, User>();
  let t = performance.now();
  for (const u of w.docs) {
    if (byEmail.has(u.email) || byId.has(u._id)) throw new Error('dup');
    byId.set(u._id, u);
    byEmail.set(u.email, u);
  }
  const insert = perSecond(w.docs.length, performance.now() - t);
  t = performance.now();
  let hits = 0;
  for (const k of w.keys) if (byEmail.get(k)) hits++;
  const read = perSecond(w.keys.length, performance.now() - t);
  if (hits !== w.keys.length) throw new Error('baseline lookups missed');
  return { insert, read };
}

async function measureStore(
  dir: string,
  w: Workload,
  batch: number,
  fsync: FsyncPolicy,
): Promise<{ insert: number; read: number }> {
  const store = await createEmbeddedStore({
    dir,
    fsync,
    ttlReapIntervalMs: 0,
    logger: { warn: () => undefined },
  });
  const users = store.collection<User>('users');
  await users.createIndex({ keys: { email: 1 }, unique: true });
  const n = w.docs.length;
  const t = performance.now();
  if (batch === 1) {
    for (const u of w.docs) await users.insertOne(u);
  } else {
    for (let i = 0; i < n; i += batch) {
      const pending: Array<Promise<User>> = [];
      for (let j = i; j < Math.min(n, i + batch); j++) pending.push(users.insertOne(w.docs[j]));
      await Promise.all(pending);
    }
  }
  const insert = perSecond(n, performance.now() - t);
  const t2 = performance.now();
  let hits = 0;
  for (const k of w.keys) if (await users.findOne({ email: k })) hits++;
  const read = perSecond(w.keys.length, performance.now() - t2);
  if (hits !== w.keys.length) throw new Error(`indexed lookups missed: ${hits} of ${w.keys.length}`);
  await store.close();
  return { insert, read };
}

/** Runs the benchmark and returns one row per measurement. */
export async function run(): Promise<BenchResult[]> {
  const root = mkdtempSync(path.join(tmpdir(), 'store-bench-'));
  try {
    const n = 50_000;
    const w = workload(n, 'u');
    // Warm up both sides so the JIT has compiled the hot paths before anything is timed.
    const warm = workload(5_000, 'w');
    mapBaseline(warm);
    await measureStore(path.join(root, 'warm'), warm, 100, 'never');

    const map = mapBaseline(w);
    const seq = await measureStore(path.join(root, 'seq'), w, 1, 'interval');
    const conc = await measureStore(path.join(root, 'conc'), w, 100, 'interval');
    const always = await measureStore(path.join(root, 'always'), workload(20_000, 'u'), 100, 'always');
    const row = (name: string, ours: number, baseline: number): BenchResult => ({
      name,
      ours,
      baseline,
      unit: 'ops/s',
      ratio: Number((ours / baseline).toFixed(4)),
    });
    return [
      row('insertOne, awaited one by one (journal, fsync interval)', seq.insert, map.insert),
      row('insertOne, 100 concurrent (journal, fsync interval)', conc.insert, map.insert),
      row('insertOne, 100 concurrent (journal, fsync always)', always.insert, map.insert),
      row('findOne by unique-indexed field (awaited)', seq.read, map.read),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function printTable(rows: BenchResult[]): void {
  const fmt = (v: number) => v.toLocaleString('en-US');
  const header = ['benchmark', 'embedded store', 'plain Map', 'unit', 'ratio'];
  const lines = rows.map((r) => [r.name, fmt(r.ours), fmt(r.baseline), r.unit, r.ratio.toFixed(4)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(line(l));
}

if (require.main === module) {
  run()
    .then((rows) => {
      printTable(rows);
      console.log(JSON.stringify(rows, null, 2));
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
