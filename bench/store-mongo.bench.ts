/**
 * Store operations through our MongoDB adapter (createMongoStore, the Store/Collection port) next
 * to the `mongodb` driver alone doing the same operations on the same server, in the same run.
 *
 *   set -a; eval "$(npm run -s engines:env)"; set +a; npm run bench -- store-mongo
 *
 * Each side gets its own fresh database (dropped after) with the same indexes: `_id`, a unique
 * index on `email` and `{age: 1, createdAt: -1}`. With CONCURRENCY in flight: insertOne of DOCS
 * documents (all of them, on both sides, so the reads after it see the same collection), then per
 * op kind COUNT operations or as many as start within MAX_MS: findOne by _id, findOne by the
 * unique email, updateOne by _id with $set and $inc, find by age sorted by createdAt desc with
 * limit 20, a mixed row (a service's blend: reads, updates, listings, inserts and deletes), and
 * deleteOne by _id of the DOCS documents. Each kind runs in SLICES slices, the sides taking turns. An op kind that fails through the adapter is reported in `notes`
 * (ours 0), not worked around.
 *
 * Without MONGO_URL / TEST_MONGO_URL (or when the server does not answer) it prints one
 * `skipped:` line and returns no rows.
 */
import { performance } from 'node:perf_hooks';
import { type Db, type Collection as DriverCollection, MongoClient } from 'mongodb';
import { type Collection, type MongoStore, type StoreDocument, createMongoStore } from '@flowplane/platform/store';
import { runWhenMain, type BenchResult } from './bench-result';
import { rng } from './seeded-random';

const BENCH = 'store-mongo';
/**
 * Documents insertOne writes (each side, every one) and the reads then run on. FerretDB 1.x on
 * SQLite answers a query on anything but `_id` by scanning (tens of ops/s at a few hundred
 * documents), so the collection is kept small enough for the run to stay short.
 */
const DOCS = Number(process.env.STORE_MONGO_DOCS ?? 500);
/** Ops of each other kind, per side ... */
const COUNT = Number(process.env.STORE_MONGO_COUNT ?? 2000);
/** ... or as many as start within this many ms. */
const MAX_MS = Number(process.env.STORE_MONGO_MAX_MS ?? 4000);
const CONCURRENCY = Number(process.env.STORE_MONGO_CONCURRENCY ?? 8);
const SIZES: Sizes = { docs: DOCS, count: COUNT, maxMs: MAX_MS };
const WARMUP: Sizes = { docs: 50, count: 50, maxMs: 1000 };
const AGES = 50;

interface Item extends StoreDocument {
  _id: string;
  email: string;
  name: string;
  age: number;
  n: number;
  tags: string[];
  createdAt: Date;
}

const item = (prefix: string, i: number): Item => ({
  _id: `${prefix}${i}`,
  email: `${prefix}user${i}@example.com`,
  name: `User ${i}`,
  age: 20 + (i % AGES),
  n: 0,
  tags: ['a', i % 2 ? 'odd' : 'even'],
  createdAt: new Date(1_700_000_000_000 + i * 1000),
});

/** The operations both sides run, over the same shape of collection. */
interface Ops {
  insertOne(d: Item): Promise<unknown>;
  findById(id: string): Promise<Item | null>;
  findByEmail(email: string): Promise<Item | null>;
  update(id: string, name: string): Promise<number>;
  list(age: number): Promise<Item[]>;
  deleteOne(id: string): Promise<number>;
}

function adapterOps(c: Collection<Item>): Ops {
  return {
    insertOne: (d) => c.insertOne(d),
    findById: (id) => c.findOne({ _id: id }),
    findByEmail: (email) => c.findOne({ email }),
    update: async (id, name) => (await c.updateOne({ _id: id }, { $set: { name }, $inc: { n: 1 } })).matchedCount,
    list: (age) => c.find({ age }, { sort: { createdAt: -1 }, limit: 20 }),
    deleteOne: async (id) => (await c.deleteOne({ _id: id })).deletedCount,
  };
}

/** The driver's loosest schema with string ids (its default `Document`, but `_id` a string, not an ObjectId). */
interface DriverDoc {
  _id: string;
  [key: string]: any;
}

function driverOps(c: DriverCollection<DriverDoc>): Ops {
  return {
    insertOne: (d) => c.insertOne(d),
    findById: async (id) => (await c.findOne({ _id: id })) as Item | null,
    findByEmail: async (email) => (await c.findOne({ email })) as Item | null,
    update: async (id, name) => (await c.updateOne({ _id: id }, { $set: { name }, $inc: { n: 1 } })).matchedCount,
    list: async (age) => (await c.find({ age }, { sort: { createdAt: -1 }, limit: 20 }).toArray()) as Item[],
    deleteOne: async (id) => (await c.deleteOne({ _id: id })).deletedCount,
  };
}

/**
 * Calls `op(i)` for i from `from` up to `to` with `concurrency` in flight, starting none after
 * `maxMs`; returns the next unstarted index, the calls done and the time taken.
 */
async function slice(from: number, to: number, concurrency: number, maxMs: number, op: (i: number) => Promise<void>): Promise<{ next: number; done: number; ms: number }> {
  let next = from;
  let done = 0;
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to && performance.now() < deadline) {
        await op(next++);
        done++;
      }
    }),
  );
  return { next, done, ms: performance.now() - t0 };
}

/** Sizes of one measurement: documents inserted (the collection the reads run on), ops per other kind, time cap per side. */
interface Sizes {
  docs: number;
  count: number;
  maxMs: number;
}

/** Everything one side needs, built before timing so both time only their own work. */
interface Workload {
  docs: Item[];
  /** Documents only the mixed row deletes (inserted untimed before it). */
  spare: Item[];
  /** Documents the mixed row inserts. */
  fresh: Item[];
  order: number[];
}

/** Mixed-row inserts and deletes per 20 ops. */
const MIXED_WRITES = 2;

function workload(z: Sizes, tag: string): Workload {
  const random = rng(42);
  const order = Array.from({ length: z.docs }, (_, i) => i);
  for (let i = z.docs - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const writes = Math.ceil(z.count / 20) * MIXED_WRITES;
  return {
    docs: Array.from({ length: z.docs }, (_, i) => item(`${tag}u`, i)),
    spare: Array.from({ length: writes }, (_, i) => item(`${tag}x`, i)),
    fresh: Array.from({ length: writes }, (_, i) => item(`${tag}m`, i)),
    order,
  };
}

type Kind = 'insertOne' | 'findOne by _id' | 'findOne by unique email' | 'updateOne $set+$inc by _id' | 'find filter+sort+limit 20' | 'mixed' | 'deleteOne by _id';
const KINDS: Kind[] = ['insertOne', 'findOne by _id', 'findOne by unique email', 'updateOne $set+$inc by _id', 'find filter+sort+limit 20', 'mixed', 'deleteOne by _id'];

/**
 * One op kind over a side's workload, and how many of it to run. Results are checked (a read that
 * misses or a write that matches nothing throws), so a fast wrong answer cannot pass for a fast
 * right one.
 */
function opOf(kind: Kind, ops: Ops, w: Workload, z: Sizes): { count: number; maxMs: number; op: (i: number) => Promise<void> } {
  const n = w.docs.length;
  const must = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${what} missed`);
  };
  const readId = async (i: number) => must((await ops.findById(w.docs[w.order[i % n]]._id)) !== null, 'findOne by _id');
  const readEmail = async (i: number) => must((await ops.findByEmail(w.docs[w.order[(i * 7) % n]].email)) !== null, 'findOne by email');
  const update = async (i: number) => must((await ops.update(w.docs[w.order[(i * 13) % n]]._id, `User ${i} renamed`)) === 1, 'updateOne');
  const list = async (i: number) => must((await ops.list(20 + (i % AGES))).length >= Math.min(20, Math.floor(n / AGES)), 'find');
  const capped = (op: (i: number) => Promise<void>) => ({ count: z.count, maxMs: z.maxMs, op });
  switch (kind) {
    case 'insertOne':
      // Every document, however long it takes: the reads after it must see the same collection on both sides.
      return { count: n, maxMs: Number.POSITIVE_INFINITY, op: async (i) => void (await ops.insertOne(w.docs[i])) };
    case 'findOne by _id':
      return capped(readId);
    case 'findOne by unique email':
      return capped(readEmail);
    case 'updateOne $set+$inc by _id':
      return capped(update);
    case 'find filter+sort+limit 20':
      return capped(list);
    case 'deleteOne by _id':
      return { count: n, maxMs: z.maxMs, op: async (i) => must((await ops.deleteOne(w.docs[w.order[i]]._id)) === 1, 'deleteOne') };
    case 'mixed':
      // Per 20 ops: 6 by _id, 4 by email, 4 updates, 2 listings, 2 inserts, 2 deletes.
      return capped(async (i) => {
        const k = i % 20;
        const slot = Math.floor(i / 20) * MIXED_WRITES;
        if (k < 6) return readId(i);
        if (k < 10) return readEmail(i);
        if (k < 14) return update(i);
        if (k < 16) return list(i);
        if (k < 18) return void (await ops.insertOne(w.fresh[slot + k - 16]));
        must((await ops.deleteOne(w.spare[slot + k - 18]._id)) === 1, 'deleteOne');
      });
  }
}

interface Side {
  label: 'ours' | 'driver';
  ops: Ops;
  w: Workload;
  /** Inserts the spare documents the mixed row deletes (not timed). */
  seedSpare(): Promise<void>;
  drop(): Promise<void>;
}

async function adapterSide(url: string, dbName: string, z: Sizes): Promise<{ side: Side; store: MongoStore }> {
  const store = await createMongoStore({ url, dbName, ttlReapIntervalMs: 0, logger: { warn: (m) => console.warn(`${BENCH}: store: ${m}`) } });
  const c = store.collection<Item>('items');
  await c.createIndex({ keys: { email: 1 }, unique: true, name: 'email' });
  await c.createIndex({ keys: { age: 1, createdAt: -1 }, name: 'age_created' });
  const w = workload(z, 'o');
  return {
    store,
    side: {
      label: 'ours',
      ops: adapterOps(c),
      w,
      seedSpare: async () => void (await c.insertMany(w.spare)),
      drop: () => store.dropDatabase(),
    },
  };
}

async function driverSide(client: MongoClient, dbName: string, z: Sizes): Promise<Side> {
  const db: Db = client.db(dbName);
  const c = db.collection<DriverDoc>('items');
  await c.createIndex({ email: 1 }, { unique: true, name: 'email' });
  await c.createIndex({ age: 1, createdAt: -1 }, { name: 'age_created' });
  const w = workload(z, 'd');
  return {
    label: 'driver',
    ops: driverOps(c),
    w,
    seedSpare: async () => void (await c.insertMany(w.spare.map((d) => ({ ...d })))),
    drop: async () => void (await db.dropDatabase()),
  };
}

interface KindResult {
  ours: number;
  driver: number;
  oursDone: number;
  driverDone: number;
  error?: string;
}

/** Slices each op kind is cut into, the two sides taking turns, so drift in the machine's (and the shared server's) load reaches both. */
const SLICES = 4;

/** Runs every op kind on both sides; rates, ops done and the adapter's error per kind. */
async function measure(ours: Side, driver: Side, z: Sizes, progress?: (line: string) => void): Promise<Map<Kind, KindResult>> {
  const out = new Map<Kind, KindResult>();
  let oursBroken: string | undefined;
  for (const kind of KINDS) {
    if (kind === 'mixed') await Promise.all([ours.seedSpare().catch(() => undefined), driver.seedSpare()]);
    const result: KindResult = { ours: 0, driver: 0, oursDone: 0, driverDone: 0 };
    const plans = new Map([ours, driver].map((side) => [side, { ...opOf(kind, side.ops, side.w, z), next: 0, done: 0, ms: 0 }]));
    if (oursBroken) {
      result.error = `not run: ${oursBroken}`;
      plans.delete(ours);
    }
    for (let s = 0; s < SLICES; s++) {
      for (const side of s % 2 === 0 ? [ours, driver] : [driver, ours]) {
        const plan = plans.get(side);
        if (!plan) continue;
        try {
          const r = await slice(plan.next, Math.ceil((plan.count * (s + 1)) / SLICES), CONCURRENCY, plan.maxMs / SLICES, plan.op);
          plan.next = r.next;
          plan.done += r.done;
          plan.ms += r.ms;
        } catch (e) {
          if (side === driver) throw e;
          result.error = `${(e as Error).name}: ${(e as Error).message.slice(0, 300)}`;
          plans.delete(ours);
          // Later kinds read what insertOne wrote: without it they cannot mean anything.
          if (kind === 'insertOne') oursBroken = `insertOne failed (${result.error})`;
        }
      }
    }
    for (const [side, plan] of plans) {
      result[side.label] = plan.done / (plan.ms / 1000);
      result[side === ours ? 'oursDone' : 'driverDone'] = plan.done;
    }
    out.set(kind, result);
    progress?.(`${kind}: ours ${Math.round(result.ours)} (${result.oursDone} ops), driver ${Math.round(result.driver)} (${result.driverDone} ops) ops/s${result.error ? ` (${result.error})` : ''}`);
  }
  return out;
}

function reachable(url: string): Promise<boolean> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000 });
  return client
    .connect()
    .then(() => client.db('admin').command({ ping: 1 }))
    .then(() => true)
    .catch(() => false)
    .finally(() => client.close().catch(() => undefined));
}

/** Runs the benchmark; [] with a `skipped:` line when no server is configured or it does not answer. */
export async function run(): Promise<BenchResult[]> {
  const url = process.env.MONGO_URL || process.env.TEST_MONGO_URL;
  if (!url) {
    console.log(`skipped: ${BENCH}: neither MONGO_URL nor TEST_MONGO_URL is set (npm run engines:up)`);
    return [];
  }
  if (!(await reachable(url))) {
    console.log(`skipped: ${BENCH}: no MongoDB server answers at ${url} (npm run engines:up)`);
    return [];
  }
  const log = (s: string) => process.stdout.write(`${BENCH}: ${s}\n`);
  const stamp = `${Date.now().toString(36)}_${process.pid.toString(36)}`;
  const client = new MongoClient(url);
  await client.connect();
  const sides: Side[] = [];
  const stores: MongoStore[] = [];
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    const server = typeof info.ferretdbVersion === 'string' ? `FerretDB ${info.ferretdbVersion}` : `MongoDB ${String(info.version)}`;
    // Warm-up on throwaway databases: JIT, connection pools, the server's statement caches.
    {
      const a = await adapterSide(url, `bench_store_mongo_${stamp}_warm_ours`, WARMUP);
      stores.push(a.store);
      sides.push(a.side);
      const d = await driverSide(client, `bench_store_mongo_${stamp}_warm_driver`, WARMUP);
      sides.push(d);
      const t = Date.now();
      await measure(a.side, d, WARMUP);
      log(`warm-up (${WARMUP.count} of each op kind per side) in ${Date.now() - t} ms`);
    }
    const a = await adapterSide(url, `bench_store_mongo_${stamp}_ours`, SIZES);
    stores.push(a.store);
    sides.push(a.side);
    const d = await driverSide(client, `bench_store_mongo_${stamp}_driver`, SIZES);
    sides.push(d);
    const t = Date.now();
    const results = await measure(a.side, d, SIZES, log);
    log(`measured in ${Date.now() - t} ms`);
    const rows: BenchResult[] = KINDS.map((kind) => {
      const r = results.get(kind)!;
      const ratio = r.ours / r.driver;
      const goal = `goal >= 0.8x: ${ratio >= 0.8 ? 'met' : 'NOT met'}`;
      return {
        name: `${BENCH}: ${kind} (${server}, ${CONCURRENCY} in flight) vs mongodb driver`,
        ours: Math.round(r.ours),
        baseline: Math.round(r.driver),
        unit: 'ops/s',
        ratio: Number(ratio.toFixed(3)),
        notes:
          (r.error ? `FAILED through the adapter on ${server}: ${r.error}` : goal) +
          `; ${r.oursDone} vs ${r.driverDone} ops (up to ${kind === 'insertOne' || kind === 'deleteOne by _id' ? DOCS : COUNT}${kind === 'insertOne' ? '' : `, or ${MAX_MS} ms`}) on ${DOCS} documents`,
      };
    });
    for (const r of rows) console.log(`${r.name}: ours ${r.ours} vs driver ${r.baseline} ${r.unit} (ratio ${r.ratio}) ${r.notes ?? ''}`);
    return rows;
  } finally {
    for (const s of sides) await s.drop().catch(() => undefined);
    for (const s of stores) await s.close().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

runWhenMain(module, run);
