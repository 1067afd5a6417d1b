/**
 * The adapter's own logic over stand-ins for the driver's Db and Collection, besides the
 * real-server contract run (store.contract.spec.ts, against MongoDB or FerretDB when
 * TEST_MONGO_URL / MONGO_URL is set). The stand-ins are backed by the embedded engine and behave
 * like the servers do where the adapter depends on it, as measured (docs/engines/ferretdb.md):
 * - both: no TTL enforcement of their own (a real server's monitor runs every 60 s and hides
 *   nothing meanwhile), ordered insertMany keeping the documents before a failing one, listIndexes
 *   with the index options;
 * - MongoDB: E11000 errors naming index and key (`keyValue`, `writeErrors`);
 * - FerretDB 1.x: no TTL indexes (NotImplemented), `sparse` dropped, bare E11000 without index or
 *   key, `$elemMatch` on documents refused, `$pull` conditions and `$push` modifiers silently
 *   ignored, updates as read-modify-write without isolation (concurrent ones get lost), and its
 *   unique indexes weaker still than FerretDB's own (none but `_id`), so the
 *   contract passing over it shows the adapter's unique checks carry MongoDB's rules alone.
 */
import type mongoose from 'mongoose';
import { Query } from 'mingo';
import { cloneValue } from './document.util';
import { type EmbeddedStore, createMemoryStore } from './embedded.store';
import {
  indexFromServerName,
  isDuplicateKeyFailure,
  rewriteUpdate,
  serverProfile,
  splitFilter,
} from './mongo.compat';
import { INDEX_METADATA_COLLECTION, MongoStore, UnsupportedByServerError } from './mongo.store';
import { storeContract } from './store.contract';
import { applyUpdate, prepareUpdate } from './update.util';
import {
  type Collection,
  DuplicateKeyError,
  type Filter,
  type IndexSpec,
  StoreUnavailableError,
  type Update,
} from './store.port';

type Opts = Record<string, unknown>;
type Flavor = 'mongodb' | 'ferretdb';
type Doc = Record<string, unknown>;

class DriverError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly extra: Record<string, unknown> = {},
    private readonly kind = 'MongoServerError',
  ) {
    super(message);
    Object.assign(this, extra);
  }
  override get name(): string {
    return this.kind;
  }
}

interface StandIn {
  store: MongoStore;
  backing: EmbeddedStore;
  /** Every call the adapter made: collection, method and arguments. */
  calls: Array<{ c: string; m: string; args: unknown[] }>;
  down: { value: boolean };
  warnings: string[];
}

function hasElemMatchOnDocuments(f: unknown): boolean {
  if (Array.isArray(f)) return f.some(hasElemMatchOnDocuments);
  if (f === null || typeof f !== 'object' || f instanceof Date || f instanceof RegExp) return false;
  for (const [k, v] of Object.entries(f)) {
    if (k === '$elemMatch' && v && typeof v === 'object' && Object.keys(v).some((x) => !x.startsWith('$')))
      return true;
    if (hasElemMatchOnDocuments(v)) return true;
  }
  return false;
}

/** What FerretDB 1.x makes of `$pull` conditions and `$push` modifiers: nothing, silently (measured). */
function ferretUpdate(u: Update): Update {
  const out: Update = { ...u };
  if (u.$pull) {
    // A condition (operator object, document or regex) is compared for equality: nothing is removed.
    out.$pull = Object.fromEntries(
      Object.entries(u.$pull).map(([p, v]) => [
        p,
        v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) ? '\0never' : v,
      ]),
    );
  }
  if (u.$push) {
    out.$push = Object.fromEntries(
      Object.entries(u.$push).map(([p, v]) => [
        p,
        v !== null && typeof v === 'object' && '$each' in (v as Doc) ? { $each: (v as Doc).$each } : v,
      ]),
    );
  }
  return out;
}

function standIn(flavor: Flavor, options: { refuseTtl?: boolean; ttlReapIntervalMs?: number } = {}): StandIn {
  const backing = createMemoryStore({ ttlReapIntervalMs: 0 });
  const calls: StandIn['calls'] = [];
  const down = { value: false };
  const warnings: string[] = [];
  const indexes = new Map<string, Array<IndexSpec & { name: string }>>();
  const exists = new Set<string>();
  const ferret = flavor === 'ferretdb';

  const fakeCollection = (name: string) => {
    const c: Collection = backing.collection(name);
    if (!indexes.has(name)) indexes.set(name, []);
    const list = indexes.get(name) as Array<IndexSpec & { name: string }>;
    const guard = (m: string, args: unknown[]) => {
      calls.push({ c: name, m, args });
      if (down.value)
        throw new DriverError(
          'Server selection timed out after 30000 ms',
          0,
          {},
          'MongoServerSelectionError',
        );
      const filter = args[0];
      if (ferret && hasElemMatchOnDocuments(filter)) throw new DriverError('unknown operator: sku', 2);
      // FerretDB seeds an upserted document only from top-level equality (not from `$and`, nor
      // from the `$or` forms of the rewrites): the adapter may only upsert by `_id` alone.
      const upsertFilter = (args[2] as Opts | undefined)?.upsert ? (filter as Doc) : undefined;
      if (ferret && m !== 'createIndex' && upsertFilter && Object.keys(upsertFilter).some((k) => k !== '_id'))
        throw new Error(`stand-in: FerretDB would seed this upsert wrongly: ${JSON.stringify(upsertFilter)}`);
    };
    /** The embedded engine's duplicate key as the server reports it. */
    const dup = (e: unknown, op: 'insert' | 'update', position?: number): unknown => {
      if (!(e instanceof DuplicateKeyError)) return e;
      if (!ferret) {
        const msg = `E11000 duplicate key error collection: test.${name} index: ${e.index} dup key: ${JSON.stringify(e.key)}`;
        return position === undefined
          ? new DriverError(msg, 11000, { keyValue: e.key })
          : new DriverError(
              msg,
              11000,
              {
                writeErrors: [{ index: position, errmsg: msg, err: { keyValue: e.key } }],
                result: { insertedCount: position },
              },
              'MongoBulkWriteError',
            );
      }
      if (op === 'update') {
        return new DriverError(
          `[collection.go:177] constraint failed: UNIQUE constraint failed: index '${name.toLowerCase()}_e40c292c_${e.index}' (2067)`,
          1,
          { codeName: 'InternalError' },
        );
      }
      const msg = `E11000 duplicate key error collection: test.${name}`;
      return position === undefined
        ? new DriverError(msg, 11000)
        : new DriverError(
            msg,
            11000,
            { writeErrors: [{ index: position, errmsg: msg }], result: { insertedCount: position } },
            'MongoBulkWriteError',
          );
    };
    const run = async <R>(
      m: string,
      args: unknown[],
      op: 'insert' | 'update',
      call: () => Promise<R>,
    ): Promise<R> => {
      guard(m, args);
      try {
        return await call();
      } catch (e) {
        throw dup(e, op);
      }
    };
    const findOpts = (o: Opts = {}) =>
      ({ sort: o.sort, skip: o.skip, limit: o.limit, projection: o.projection }) as never;
    const cursorOf = (docs: () => Promise<Doc[]>) => ({
      toArray: docs,
      async *[Symbol.asyncIterator]() {
        for (const d of await docs()) yield d;
      },
      close: async () => undefined,
    });
    const result = (r: { matchedCount: number; modifiedCount: number; upsertedId?: string }) => ({
      ...r,
      upsertedId: r.upsertedId ?? null,
    });
    /**
     * FerretDB 1.x's update: find the matches, modify them in memory, write each back by `_id`,
     * with nothing keeping another update from reading the same old version in between.
     */
    const rmw = async (f: Filter, modify: (doc: Doc) => boolean, many: boolean, sort?: never) => {
      const matched = many ? await c.find(f) : await c.find(f, { sort, limit: 1 });
      let modifiedCount = 0;
      let before: Doc | undefined;
      let after: Doc | undefined;
      for (const d of matched) {
        const next = cloneValue(d) as Doc;
        const changed = modify(next);
        await new Promise((r) => setImmediate(r));
        if (changed) {
          const { _id, ...rest } = next;
          await c.replaceOne({ _id }, rest);
          modifiedCount++;
        }
        before ??= d;
        after ??= next;
      }
      return { matchedCount: matched.length, modifiedCount, upsertedId: null, before, after };
    };
    return {
      insertOne: (d: Doc, o?: Opts) =>
        run(
          'insertOne',
          [d, o],
          'insert',
          async () => (await c.insertOne(d), exists.add(name), { insertedId: d._id }),
        ),
      insertMany: async (ds: Doc[], o?: Opts) => {
        guard('insertMany', [ds, o]);
        exists.add(name);
        // Ordered, one by one: what precedes a failing document stays inserted.
        for (let i = 0; i < ds.length; i++) {
          try {
            await c.insertOne(ds[i]);
          } catch (e) {
            throw dup(e, 'insert', i);
          }
        }
        return { insertedCount: ds.length };
      },
      findOne: (f: Filter, o?: Opts) => run('findOne', [f, o], 'insert', () => c.findOne(f, findOpts(o))),
      find: (f: Filter, o?: Opts) => {
        guard('find', [f, o]);
        return cursorOf(() => c.find(f, findOpts(o)));
      },
      countDocuments: (f: Filter, o?: Opts) =>
        run('countDocuments', [f, o], 'insert', () => c.countDocuments(f)),
      updateOne: (f: Filter, u: Update, o: Opts = {}) =>
        run('updateOne', [f, u, o], 'update', async () =>
          ferret
            ? rmw(f, (d) => applyUpdate(d, prepareUpdate(ferretUpdate(u)), false), false)
            : result(await c.updateOne(f, u, { upsert: o.upsert as boolean })),
        ),
      updateMany: (f: Filter, u: Update, o: Opts = {}) =>
        run('updateMany', [f, u, o], 'update', async () =>
          ferret
            ? rmw(f, (d) => applyUpdate(d, prepareUpdate(ferretUpdate(u)), false), true)
            : result(await c.updateMany(f, u, { upsert: o.upsert as boolean })),
        ),
      findOneAndUpdate: (f: Filter, u: Update, o: Opts = {}) =>
        run('findOneAndUpdate', [f, u, o], 'update', async () => {
          if (!ferret)
            return c.findOneAndUpdate(f, u, {
              upsert: o.upsert as boolean,
              sort: o.sort as never,
              returnDocument: o.returnDocument as 'before' | 'after',
            });
          const r = await rmw(
            f,
            (d) => applyUpdate(d, prepareUpdate(ferretUpdate(u)), false),
            false,
            o.sort as never,
          );
          return (o.returnDocument === 'after' ? r.after : r.before) ?? null;
        }),
      replaceOne: (f: Filter, d: Doc, o: Opts = {}) =>
        run('replaceOne', [f, d, o], 'update', async () => {
          if (!ferret || o.upsert) return result(await c.replaceOne(f, d, { upsert: o.upsert as boolean }));
          return rmw(
            f,
            (doc) => {
              for (const k of Object.keys(doc)) if (k !== '_id') delete doc[k];
              Object.assign(doc, d);
              return true;
            },
            false,
          );
        }),
      deleteOne: (f: Filter, o?: Opts) => run('deleteOne', [f, o], 'insert', () => c.deleteOne(f)),
      deleteMany: (f: Filter, o?: Opts) => run('deleteMany', [f, o], 'insert', () => c.deleteMany(f)),
      createIndex: (keys: Record<string, 1 | -1>, o: Opts = {}) =>
        run('createIndex', [keys, o], 'update', async () => {
          const idxName =
            (o.name as string | undefined) ??
            Object.entries(keys)
              .map(([k, v]) => `${k}_${v}`)
              .join('_');
          // FerretDB 1.24.2's own refusal of a TTL index, word for word (code 238, NotImplemented).
          if (o.expireAfterSeconds !== undefined && (ferret || options.refuseTtl))
            throw new DriverError('Index option "expireAfterSeconds" is not implemented yet', 238, {
              codeName: 'NotImplemented',
            });
          exists.add(name);
          if (list.some((i) => i.name === idxName)) return idxName;
          // No TTL on the server side (its monitor has not run); FerretDB: no unique enforcement either.
          if (!ferret)
            await c.createIndex({
              keys,
              name: idxName,
              unique: o.unique as boolean,
              sparse: o.sparse as boolean,
            });
          list.push({
            keys,
            name: idxName,
            ...(o.unique ? { unique: true } : {}),
            ...(!ferret && o.sparse ? { sparse: true } : {}),
            ...(!ferret && o.expireAfterSeconds !== undefined
              ? { expireAfterSeconds: o.expireAfterSeconds as number }
              : {}),
          });
          return idxName;
        }),
      dropIndex: async (idxName: string) => {
        guard('dropIndex', [idxName]);
        const at = list.findIndex((i) => i.name === idxName);
        if (at >= 0) list.splice(at, 1);
        return { ok: 1 };
      },
      listIndexes: () => ({
        toArray: async () => {
          guard('listIndexes', []);
          if (!exists.has(name)) throw new DriverError(`ns does not exist: test.${name}`, 26);
          return [
            { key: { _id: 1 }, name: '_id_' },
            ...list.map((i) => ({ ...i, key: i.keys, keys: undefined })),
          ];
        },
      }),
    };
  };
  const handles = new Map<string, ReturnType<typeof fakeCollection>>();
  const db = {
    collection: (name: string) => {
      let h = handles.get(name);
      if (!h) handles.set(name, (h = fakeCollection(name)));
      return h;
    },
    listCollections: () => ({ toArray: async () => [...exists].map((name) => ({ name })) }),
    command: async () => {
      if (down.value) throw new DriverError('Server selection timed out', 0, {}, 'MongoServerSelectionError');
      return { ok: 1 };
    },
  };
  const connection = { close: async () => backing.close() };
  const server = ferret
    ? serverProfile({ version: '7.0.42', ferretdbVersion: 'v1.24.2' }, { isWritablePrimary: true })
    : serverProfile({ version: '7.0.5' }, { isWritablePrimary: true });
  const store = new MongoStore(
    connection as unknown as mongoose.Connection,
    db as unknown as mongoose.mongo.Db,
    server,
    { warn: (m) => warnings.push(m) },
    { ttlReapIntervalMs: options.ttlReapIntervalMs ?? 0 },
  );
  return { store, backing, calls, down, warnings };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A cursor of the native driver over fixed documents. */
function cursorOf(docs: Doc[]) {
  return {
    toArray: async () => docs,
    async *[Symbol.asyncIterator]() {
      yield* docs;
    },
    close: async () => undefined,
  };
}

/** A store on FerretDB v1.24.2 whose collections are `native`, with no index metadata stored yet. */
function ferretStoreOver(native: object): MongoStore {
  const db = { collection: (name: string) => (name === INDEX_METADATA_COLLECTION ? { find: () => cursorOf([]) } : native) };
  return new MongoStore({} as mongoose.Connection, db as unknown as mongoose.mongo.Db, serverProfile({ ferretdbVersion: 'v1.24.2' }, {}), {
    warn: () => undefined,
  });
}

describe('MongoStore adapter over a MongoDB stand-in', () => {
  describe('contract', () => {
    storeContract({
      open: async () => standIn('mongodb').store,
      reapExpired: (s) => (s as MongoStore).reapExpired(),
      atomicTransactions: () => false,
    });
  });

  it('logs once that a standalone server runs transactions without atomicity', async () => {
    const { store, warnings } = standIn('mongodb');
    const c = store.collection('x');
    await store.withTransaction(async (session) => c.insertOne({ _id: 'a' }, { session }));
    await store.withTransaction(async (session) => c.insertOne({ _id: 'b' }, { session }));
    expect(await c.countDocuments()).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not support transactions \(standalone/);
    await store.close();
  });

  it('generates string ids for upserts that the server would give an ObjectId', async () => {
    const { store, backing } = standIn('mongodb');
    const c = store.collection<{ _id: string; k: string }>('x');
    const r = await c.updateOne({ k: { $in: ['a'] }, n: 1 }, { $set: { k: 'a' } }, { upsert: true });
    expect(r.upsertedId).toMatch(/^[0-9a-f]{24}$/);
    expect(await backing.collection('x').findOne({ _id: r.upsertedId })).toMatchObject({ k: 'a', n: 1 });
    await store.close();
  });

  it('maps an unreachable server to StoreUnavailableError', async () => {
    const { store, down } = standIn('mongodb');
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

  it('continues an insertMany at the failing document after clearing an expired one, without re-inserting the first ones', async () => {
    const { store, backing } = standIn('mongodb');
    const c = store.collection<{ _id: string; key: string; at: Date }>('x');
    await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 });
    await c.createIndex({ keys: { key: 1 }, unique: true });
    await c.insertOne({ _id: 'old', key: 'k2', at: new Date(Date.now() - 10_000) });
    const now = new Date();
    await c.insertMany([
      { _id: 'a', key: 'k1', at: now },
      { _id: 'b', key: 'k2', at: now },
      { _id: 'c', key: 'k3', at: now },
    ]);
    expect((await backing.collection('x').find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    await store.close();
  });

  it('passes the position and key of a failing insertMany document on from the server', async () => {
    const { store } = standIn('mongodb');
    const c = store.collection('x');
    await c.createIndex({ keys: { email: 1 }, unique: true });
    await c.insertOne({ _id: 'a', email: 'a@x' });
    const err = await c
      .insertMany([
        { _id: 'b', email: 'b@x' },
        { _id: 'c', email: 'a@x' },
      ])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ index: 'email_1', key: { email: 'a@x' } });
    expect(await c.countDocuments()).toBe(2);
    await store.close();
  });

  it('remembers that a server refuses TTL indexes, keeps the rule itself and reaps on its own', async () => {
    const { store, calls, warnings, backing } = standIn('mongodb', {
      refuseTtl: true,
      ttlReapIntervalMs: 25,
    });
    const a = store.collection<{ _id: string; at: Date }>('a');
    const b = store.collection<{ _id: string; at: Date }>('b');
    expect(await a.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 })).toBe('at_1');
    expect(await b.createIndex({ keys: { at: 1 }, expireAfterSeconds: 1 })).toBe('at_1');
    const ttlAttempts = calls.filter(
      (x) => x.m === 'createIndex' && (x.args[1] as Opts).expireAfterSeconds !== undefined,
    );
    expect(ttlAttempts.map((x) => x.c)).toEqual(['a']);
    expect(warnings.filter((w) => /refused a TTL index/.test(w))).toHaveLength(1);
    expect(
      await backing.collection(INDEX_METADATA_COLLECTION).countDocuments({ expireAfterSeconds: 1 }),
    ).toBe(2);
    await a.insertMany([
      { _id: 'old', at: new Date(Date.now() - 5000) },
      { _id: 'new', at: new Date() },
    ]);
    expect(await a.countDocuments()).toBe(1);
    for (let i = 0; i < 200 && (await backing.collection('a').countDocuments()) > 1; i++) await sleep(25);
    expect((await backing.collection('a').find({})).map((d) => d._id)).toEqual(['new']);
    await store.close();
  });
});

describe('MongoStore adapter over a FerretDB stand-in', () => {
  describe('contract', () => {
    storeContract({
      open: async () => standIn('ferretdb').store,
      reapExpired: (s) => (s as MongoStore).reapExpired(),
      atomicTransactions: (s) => (s as MongoStore).supportsTransactions,
    });
  });

  it('detects FerretDB from buildInfo and logs once, naming it, that withTransaction runs without atomicity', async () => {
    const { store, warnings } = standIn('ferretdb');
    expect(store.server).toMatchObject({
      ferretdb: true,
      transactions: false,
      ttlIndexes: false,
      label: 'FerretDB v1.24.2',
    });
    expect(store.supportsTransactions).toBe(false);
    const c = store.collection('x');
    await store.withTransaction(async (session) => c.insertOne({ _id: 'a' }, { session }));
    await store.withTransaction(async (session) => c.insertOne({ _id: 'b' }, { session }));
    expect(warnings).toEqual([
      expect.stringMatching(/^FerretDB v1\.24\.2 does not isolate concurrent updates of one document/),
      expect.stringMatching(/^FerretDB v1\.24\.2 does not support transactions/),
    ]);
    await store.close();
  });

  it('turns $pull of $in into $pullAll and refuses what FerretDB would silently ignore', async () => {
    const { store, calls } = standIn('ferretdb');
    const c = store.collection<{
      _id: string;
      tags: string[];
      nums: number[];
      items: Array<{ sku: string }>;
    }>('x');
    await c.insertOne({ _id: 'a', tags: ['x', 'y', 'z'], nums: [1, 5, 7], items: [{ sku: 'p' }] });
    await c.updateOne({ _id: 'a' }, { $pull: { tags: { $in: ['x', 'y'] } } });
    expect(calls.find((x) => x.m === 'updateOne')?.args[1]).toEqual({ $pullAll: { tags: ['x', 'y'] } });
    expect((await c.findOne({ _id: 'a' }))?.tags).toEqual(['z']);
    for (const u of [
      { $pull: { nums: { $gte: 5 } } },
      { $pull: { items: { sku: 'p' } } },
      { $pull: { tags: /z/ } },
      { $push: { tags: { $each: ['w'], $slice: -2 } } },
      { $push: { tags: { $each: ['w'], $position: 0 } } },
      { $set: { 'items.$.sku': 'q' } },
    ] as Update[]) {
      const err = await c.updateOne({ _id: 'a' }, u).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedByServerError);
      expect((err as Error).message).toMatch(/^FerretDB v1\.24\.2 /);
    }
    expect(await c.findOne({ _id: 'a' })).toEqual({
      _id: 'a',
      tags: ['z'],
      nums: [1, 5, 7],
      items: [{ sku: 'p' }],
    });
    await store.close();
  });

  it('evaluates $elemMatch on documents itself for reads, with sort, skip, limit, projection, cursor and count, and refuses it in writes', async () => {
    const { store } = standIn('ferretdb');
    const c = store.collection<{ _id: string; n: number; items: Array<{ sku: string; qty: number }> }>('x');
    await c.insertMany(
      Array.from({ length: 10 }, (_, n) => ({
        _id: `d${n}`,
        n,
        items: [{ sku: n % 2 ? 'odd' : 'even', qty: n }],
      })),
    );
    const f = { items: { $elemMatch: { sku: 'odd', qty: { $gte: 3 } } } };
    expect((await c.find(f, { sort: { n: -1 }, skip: 1, limit: 2 })).map((d) => d._id)).toEqual(['d7', 'd5']);
    expect(await c.find({ ...f, n: { $lt: 6 } }, { projection: { n: 1, _id: 0 } })).toEqual([
      { n: 3 },
      { n: 5 },
    ]);
    expect(await c.findOne(f, { sort: { n: 1 } })).toMatchObject({ _id: 'd3' });
    expect(await c.countDocuments(f)).toBe(4);
    const seen: string[] = [];
    for await (const d of c.cursor(f, { sort: { n: 1 }, batchSize: 2 })) seen.push(d._id);
    expect(seen).toEqual(['d3', 'd5', 'd7', 'd9']);
    for (const write of [
      () => c.updateOne(f, { $set: { n: 0 } }),
      () => c.updateMany(f, { $set: { n: 0 } }),
      () => c.deleteOne(f),
      () => c.deleteMany(f),
      () => c.findOneAndUpdate(f, { $set: { n: 0 } }),
      () => c.replaceOne(f, { n: 0, items: [] }),
    ]) {
      await expect(write()).rejects.toThrow(/FerretDB v1\.24\.2 cannot evaluate \$elemMatch on 'items'/);
    }
    expect(await c.countDocuments({ n: 0 })).toBe(1);
    await store.close();
  });

  it('checks unique keys with MongoDB rules before an updateMany, writing nothing on a conflict', async () => {
    const { store } = standIn('ferretdb');
    const c = store.collection<{ _id: string; code?: string; g: string }>('x');
    await c.createIndex({ keys: { code: 1 }, unique: true });
    await c.insertMany([
      { _id: 'a', code: 'a', g: 'x' },
      { _id: 'b', code: 'b', g: 'x' },
      { _id: 'c', code: 'c', g: 'y' },
    ]);
    const err = await c.updateMany({ g: 'x' }, { $unset: { code: '' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ index: 'code_1', key: { code: null } });
    expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d.code)).toEqual(['a', 'b', 'c']);
    await c.updateMany({ g: 'y' }, { $unset: { code: '' } });
    await expect(c.updateOne({ _id: 'a' }, { $set: { code: ['z', 'b'] } })).rejects.toMatchObject({
      key: { code: 'b' },
    });
    await store.close();
  });

  it('keeps TTL rules and sparse flags in the metadata collection, so another store on the same database still has them', async () => {
    const { store, backing, calls } = standIn('ferretdb');
    const c = store.collection<{ _id: string; at: Date; code?: string }>('x');
    await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 60 });
    await c.createIndex({ keys: { code: 1 }, unique: true, sparse: true });
    expect(calls.filter((x) => x.m === 'createIndex').map((x) => x.args[1])).toEqual([
      { name: 'at_1' },
      { name: 'code_1', unique: true },
    ]);
    await c.insertMany([
      { _id: 'old', at: new Date(Date.now() - 120_000) },
      { _id: 'new', at: new Date() },
    ]);
    // A second store over the same data, as after a restart.
    const db = (store as unknown as { db: mongoose.mongo.Db }).db;
    const again = new MongoStore(
      { close: async () => undefined } as unknown as mongoose.Connection,
      db,
      store.server,
      { warn: () => undefined },
      { ttlReapIntervalMs: 0 },
    );
    const x = again.collection<{ _id: string; at: Date; code?: string }>('x');
    expect((await x.find({})).map((d) => d._id)).toEqual(['new']);
    expect(await again.reapExpired()).toBe(1);
    await x.insertOne({ _id: 'n2', at: new Date() });
    await expect(x.insertOne({ _id: 'n3', at: new Date(), code: 'q' })).resolves.toBeDefined();
    await expect(x.insertOne({ _id: 'n4', at: new Date(), code: 'q' })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    expect(await x.createIndex({ keys: { code: 1 }, unique: true, sparse: true })).toBe('code_1');
    await expect(x.createIndex({ keys: { code: 1 }, unique: true })).rejects.toThrow(/different options/);
    expect((await backing.collection('x').find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual([
      'n2',
      'n3',
      'new',
    ]);
    await store.close();
  });

  it('completes an InternalError unique violation (update path) with the index and the key', async () => {
    const indexes = [
      { key: { _id: 1 }, name: '_id_' },
      { key: { tenant: 1 }, name: 'tenant_1', unique: true },
      { key: { createdAt: -1, tenant: 1 }, name: 'createdAt_-1_tenant_1', unique: true },
    ];
    const internal = new DriverError(
      "[msg_update.go:133] constraint failed: UNIQUE constraint failed: index 'my-coll.x_e58833c2_createdAt_-1_tenant_1' (2067)",
      1,
      { codeName: 'InternalError' },
    );
    // The other document arrives between the adapter's check and the write (a race): the check
    // finds nothing, the server's own index refuses, and the error must still say what collided.
    const other = { _id: 'other', createdAt: 2, tenant: 't' };
    let finds = 0;
    const native = {
      listIndexes: () => ({ toArray: async () => indexes }),
      findOne: async () => ({ _id: 'mine', createdAt: 1, tenant: 't' }),
      find: () => cursorOf(finds++ === 0 ? [] : [other]),
      updateOne: async () => {
        throw internal;
      },
    };
    const store = ferretStoreOver(native);
    const err = await store
      .collection('My-Coll.x')
      .updateOne({ _id: 'mine' }, { $set: { createdAt: 2 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateKeyError);
    expect(err).toMatchObject({
      collection: 'My-Coll.x',
      index: 'createdAt_-1_tenant_1',
      key: { createdAt: 2, tenant: 't' },
    });
  });
  it('turns an upsert that lost a race to another process into an update of the winner, as MongoDB retries it', async () => {
    const winner = { _id: 'w', sessionId: 's', n: 0 };
    // First read: nothing matches. By the unique check, the other process has inserted.
    let reads = 0;
    const native = {
      listIndexes: () => ({
        toArray: async () => [
          { key: { _id: 1 }, name: '_id_' },
          { key: { sessionId: 1 }, name: 's', unique: true },
        ],
      }),
      findOne: async () => (reads++ === 0 ? null : winner),
      find: () => cursorOf([winner]),
      insertOne: async () => {
        throw new Error('must not insert: the session has a chat already');
      },
      findOneAndUpdate: async (f: Filter) => (JSON.stringify(f).includes('"w"') ? { ...winner, n: 1 } : null),
    };
    const store = ferretStoreOver(native);
    const doc = await store
      .collection('chats')
      .findOneAndUpdate({ sessionId: 's' }, { $inc: { n: 1 } }, { upsert: true });
    expect(doc).toEqual({ _id: 'w', sessionId: 's', n: 1 });
  });

  it('refuses clearly, instead of reporting a duplicate, when FerretDB rejects a key no document has by MongoDB rules', async () => {
    // FerretDB's unique index compares JSON forms: a Date equals the number of its milliseconds.
    const stored = [{ _id: 'n', v: 1000 }];
    const native = {
      listIndexes: () => ({
        toArray: async () => [
          { key: { _id: 1 }, name: '_id_' },
          { key: { v: 1 }, name: 'v_1', unique: true },
        ],
      }),
      find: (f: Filter) => cursorOf(stored.filter((d) => new Query(f).test(d))),
      findOne: async () => null,
      insertOne: async () => {
        throw new DriverError('E11000 duplicate key error collection: test.z', 11000);
      },
    };
    const store = ferretStoreOver(native);
    const err = await store
      .collection('z')
      .insertOne({ _id: 'd', v: new Date(1000) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedByServerError);
    expect((err as Error).message).toMatch(/^FerretDB v1\.24\.2 refused a write to z as a duplicate key/);
  });
});

describe('FerretDB compatibility rules', () => {
  const docs: Doc[] = [
    {
      _id: 'ann',
      age: 31,
      tags: ['admin', 'dev'],
      address: { city: 'Oslo', zip: '0150' },
      items: [{ sku: 'a', qty: 1 }],
    },
    {
      _id: 'bob',
      age: 25,
      tags: ['dev'],
      address: { city: 'Bergen' },
      items: [
        { sku: 'b', qty: 5 },
        { sku: 'a', qty: 0 },
      ],
    },
    { _id: 'cy', age: 42, tags: [], address: { city: 'Oslo' }, nums: [10, 25] },
    { _id: 'eve', tags: 'solo', address: [{ city: 'Rome' }, { city: 'Oslo' }], nums: [17] },
  ];
  const ids = (f: Filter) => docs.filter((d) => new Query(f).test(d)).map((d) => d._id);

  // Each shape FerretDB 1.24.2 was measured to evaluate differently from MongoDB (with the
  // documents above), and what the rewrite must send instead.
  it.each<[string, Filter, Filter]>([
    [
      'document equality',
      { address: { city: 'Oslo' } },
      { $or: [{ address: { city: 'Oslo' } }, { address: { $all: [{ city: 'Oslo' }] } }] },
    ],
    [
      '$eq of a document',
      { items: { $eq: { sku: 'a', qty: 1 } } },
      { $or: [{ items: { sku: 'a', qty: 1 } }, { items: { $all: [{ sku: 'a', qty: 1 }] } }] },
    ],
    [
      'two operators on a dotted path',
      { 'items.qty': { $gt: 0, $lt: 2 } },
      { $and: [{ 'items.qty': { $gt: 0 } }, { 'items.qty': { $lt: 2 } }] },
    ],
    [
      '$ne on a dotted path',
      { 'address.city': { $ne: 'Oslo' } },
      { $nor: [{ 'address.city': { $eq: 'Oslo' } }] },
    ],
    [
      '$nin on a dotted path',
      { 'address.city': { $nin: ['Oslo'] } },
      { $nor: [{ 'address.city': { $in: ['Oslo'] } }] },
    ],
    ['$not on a dotted path', { 'items.qty': { $not: { $gt: 2 } } }, { $nor: [{ 'items.qty': { $gt: 2 } }] }],
    [
      '$in with a document',
      { items: { $in: [{ sku: 'a', qty: 1 }, 'x'] } },
      {
        $or: [
          { items: { $in: ['x'] } },
          { items: { sku: 'a', qty: 1 } },
          { items: { $all: [{ sku: 'a', qty: 1 }] } },
        ],
      },
    ],
  ])('rewrites %s exactly', (_, filter, expected) => {
    const split = splitFilter(filter);
    expect(split.client).toBeUndefined();
    expect(split.server).toEqual(expected);
    expect(ids(split.server)).toEqual(ids(filter));
  });

  it('leaves filters FerretDB evaluates right untouched, and splits off what it cannot evaluate', () => {
    for (const f of [
      { _id: 'a' },
      { age: { $gt: 20, $lt: 40 } },
      { tags: { $ne: 'dev' } },
      { 'address.city': 'Oslo' },
      { tags: { $elemMatch: { $eq: 'dev' } } },
    ]) {
      expect(splitFilter(f).server).toBe(f);
    }
    const f = {
      age: { $gt: 20 },
      $and: [
        { items: { $elemMatch: { sku: 'a', qty: { $gte: 1 } } } },
        { 'address.city': { $ne: 'Bergen' } },
      ],
    };
    const split = splitFilter(f);
    expect(split).toEqual({
      server: { age: { $gt: 20 }, $nor: [{ 'address.city': { $eq: 'Bergen' } }] },
      client: { items: { $elemMatch: { sku: 'a', qty: { $gte: 1 } } } },
      reason: "$elemMatch on 'items'",
    });
    expect(
      docs
        .filter((d) => new Query(split.server).test(d) && new Query(split.client as Filter).test(d))
        .map((d) => d._id),
    ).toEqual(ids(f));
    expect(splitFilter({ nums: { $elemMatch: { $gt: 15, $lt: 20 } } }).client).toBeDefined();
  });

  it('rewrites updates only where FerretDB would apply them differently', () => {
    const plain = { $set: { a: 1 }, $pull: { tags: 'x' }, $push: { tags: { $each: ['y'] } } };
    expect(rewriteUpdate(plain, 'FerretDB')).toBe(plain);
    expect(
      rewriteUpdate({ $pull: { tags: { $in: ['x'] }, nums: 3, list: { $eq: { a: 1 } } } }, 'FerretDB'),
    ).toEqual({
      $pullAll: { tags: ['x'], list: [{ a: 1 }] },
      $pull: { nums: 3 },
    });
  });

  it('recognises FerretDB duplicate-key errors and finds the index in its SQLite index name', () => {
    const internal = new DriverError(
      "constraint failed: UNIQUE constraint failed: index 'a_e40c292c_email_1' (2067)",
      1,
    );
    expect(isDuplicateKeyFailure(internal)).toBe(true);
    expect(
      isDuplicateKeyFailure(new DriverError('E11000 duplicate key error collection: probe1.a', 11000)),
    ).toBe(true);
    expect(isDuplicateKeyFailure(new DriverError('some other internal error', 1))).toBe(false);
    const names = ['_id_', 'tenant_1', 'createdAt_-1_tenant_1', 'weird name/é', 'info.city_1'];
    expect(indexFromServerName('my-coll.x_e58833c2_createdAt_-1_tenant_1', names)).toBe(
      'createdAt_-1_tenant_1',
    );
    expect(indexFromServerName('my-coll.x_e58833c2_weird name/é', names)).toBe('weird name/é');
    expect(indexFromServerName('my-coll.x_e58833c2_info.city_1', names)).toBe('info.city_1');
  });

  it('reads the server from buildInfo and hello', () => {
    expect(serverProfile({ version: '7.0.5' }, { setName: 'rs0' })).toMatchObject({
      ferretdb: false,
      transactions: true,
      ttlIndexes: undefined,
    });
    expect(serverProfile({ version: '7.0.5' }, { msg: 'isdbgrid' }).transactions).toBe(true);
    expect(serverProfile(undefined, undefined)).toMatchObject({ ferretdb: false, transactions: false });
    // FerretDB 1.x started with --repl-set-name names a replica set, but still has no transactions.
    expect(
      serverProfile({ version: '7.0.42', ferretdbVersion: 'v1.24.2' }, { setName: 'rs0' }),
    ).toMatchObject({
      ferretdb: true,
      transactions: false,
      ttlIndexes: false,
    });
    expect(serverProfile({ version: '7.0.42', ferretdbVersion: 'v2.1.0' }, {})).toMatchObject({
      ferretdb: true,
      ttlIndexes: undefined,
    });
  });
});
