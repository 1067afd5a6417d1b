/**
 * No MongoDB server can run here (notes/infra-facts.md), so besides the real-server contract run
 * (store.contract.spec.ts, when MONGO_URL is set) the adapter's own logic — string ids on insert
 * and upsert, TTL filters added to every query, E11000 → DuplicateKeyError, retry after clearing
 * expired documents, the no-transaction fallback — runs the full contract against a stand-in for
 * the driver's Collection. The stand-in is backed by the embedded engine and speaks the driver's
 * API and error shapes (result objects, `code: 11000` errors with `keyValue`).
 */
import type mongoose from 'mongoose';
import { type EmbeddedStore, createMemoryStore } from './embedded.store';
import { MongoStore } from './mongo.store';
import { storeContract } from './store.contract';
import {
  type Collection,
  DuplicateKeyError,
  type Filter,
  type IndexSpec,
  StoreUnavailableError,
  type Update,
} from './store.port';

type Opts = Record<string, unknown>;

class DriverError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly keyValue?: Record<string, unknown>,
  ) {
    super(message);
  }
  override get name(): string {
    return this.code === 11000 ? 'MongoServerError' : 'MongoServerSelectionError';
  }
}

/** Runs a call, turning the embedded engine's DuplicateKeyError into the driver's E11000 error. */
async function driver<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof DuplicateKeyError) {
      throw new DriverError(
        `E11000 duplicate key error collection: test.${e.collection} index: ${e.index} dup key: ${JSON.stringify(e.key)}`,
        11000,
        e.key,
      );
    }
    throw e;
  }
}

function fakeCursor(docs: () => Promise<Array<Record<string, unknown>>>) {
  return {
    toArray: docs,
    async *[Symbol.asyncIterator]() {
      for (const d of await docs()) yield d;
    },
    close: async () => undefined,
  };
}

function fakeCollection(c: Collection, indexes: IndexSpec[], down: { value: boolean }) {
  const guard = () => {
    if (down.value) throw new DriverError('Server selection timed out after 30000 ms', 0);
  };
  const findOpts = (o: Opts) =>
    ({ sort: o.sort, skip: o.skip, limit: o.limit, projection: o.projection }) as never;
  return {
    insertOne: (d: Record<string, unknown>) =>
      driver(async () => (guard(), await c.insertOne(d), { insertedId: d._id })),
    insertMany: (ds: Array<Record<string, unknown>>) =>
      driver(async () => (guard(), await c.insertMany(ds), { insertedCount: ds.length })),
    findOne: (f: Filter, o: Opts) => driver(async () => (guard(), c.findOne(f, findOpts(o)))),
    find: (f: Filter, o: Opts) => fakeCursor(() => driver(async () => (guard(), c.find(f, findOpts(o))))),
    countDocuments: (f: Filter) => driver(async () => (guard(), c.countDocuments(f))),
    updateOne: (f: Filter, u: Update, o: Opts) =>
      driver(async () => (guard(), c.updateOne(f, u, { upsert: o.upsert as boolean }))).then((r) => ({
        ...r,
        upsertedId: r.upsertedId ?? null,
      })),
    updateMany: (f: Filter, u: Update, o: Opts) =>
      driver(async () => (guard(), c.updateMany(f, u, { upsert: o.upsert as boolean }))).then((r) => ({
        ...r,
        upsertedId: r.upsertedId ?? null,
      })),
    findOneAndUpdate: (f: Filter, u: Update, o: Opts) =>
      driver(
        async () => (
          guard(),
          c.findOneAndUpdate(f, u, {
            upsert: o.upsert as boolean,
            sort: o.sort as never,
            returnDocument: o.returnDocument as 'before' | 'after',
          })
        ),
      ),
    replaceOne: (f: Filter, d: Record<string, unknown>, o: Opts) =>
      driver(async () => (guard(), c.replaceOne(f, d, { upsert: o.upsert as boolean }))).then((r) => ({
        ...r,
        upsertedId: r.upsertedId ?? null,
      })),
    deleteOne: (f: Filter) => driver(async () => (guard(), c.deleteOne(f))),
    deleteMany: (f: Filter) => driver(async () => (guard(), c.deleteMany(f))),
    createIndex: (keys: Record<string, 1 | -1>, o: Opts) =>
      driver(async () => {
        guard();
        const spec = { keys, ...o } as IndexSpec;
        const name = await c.createIndex(spec);
        if (!indexes.some((i) => (i.name ?? '') === name)) indexes.push({ ...spec, name });
        return name;
      }),
    listIndexes: () => ({
      toArray: async () =>
        indexes.map((i) => ({ key: i.keys, name: i.name, expireAfterSeconds: i.expireAfterSeconds })),
    }),
  };
}

function fakeMongoStore(
  warnings: string[] = [],
  down = { value: false },
): { store: MongoStore; backing: EmbeddedStore } {
  const backing = createMemoryStore({ ttlReapIntervalMs: 0 });
  const indexes = new Map<string, IndexSpec[]>();
  const db = {
    collection: (name: string) => {
      if (!indexes.has(name)) indexes.set(name, []);
      return fakeCollection(backing.collection(name), indexes.get(name) as IndexSpec[], down);
    },
    command: async () => {
      if (down.value) throw new DriverError('Server selection timed out', 0);
      return { ok: 1 };
    },
  };
  const connection = { close: async () => backing.close() };
  const store = new MongoStore(
    connection as unknown as mongoose.Connection,
    db as unknown as mongoose.mongo.Db,
    false,
    { warn: (m) => warnings.push(m) },
  );
  return { store, backing };
}

describe('MongoStore adapter over a driver stand-in', () => {
  describe('contract', () => {
    storeContract({ open: async () => fakeMongoStore().store, atomicTransactions: () => false });
  });

  it('logs once that a standalone server runs transactions without atomicity', async () => {
    const warnings: string[] = [];
    const { store } = fakeMongoStore(warnings);
    const c = store.collection('x');
    await store.withTransaction(async (session) => c.insertOne({ _id: 'a' }, { session }));
    await store.withTransaction(async (session) => c.insertOne({ _id: 'b' }, { session }));
    expect(await c.countDocuments()).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not support transactions/);
    await store.close();
  });

  it('generates string ids for upserts that the server would give an ObjectId', async () => {
    const { store, backing } = fakeMongoStore();
    const c = store.collection<{ _id: string; k: string }>('x');
    const r = await c.updateOne({ k: { $in: ['a'] }, n: 1 }, { $set: { k: 'a' } }, { upsert: true });
    expect(r.upsertedId).toMatch(/^[0-9a-f]{24}$/);
    expect(await backing.collection('x').findOne({ _id: r.upsertedId })).toMatchObject({ k: 'a', n: 1 });
    await store.close();
  });

  it('maps an unreachable server to StoreUnavailableError', async () => {
    const down = { value: false };
    const { store } = fakeMongoStore([], down);
    const c = store.collection('x');
    await c.insertOne({ _id: 'a' });
    down.value = true;
    await expect(c.find({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(c.insertOne({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    down.value = false;
    await store.ping();
    await store.close();
  });
});
