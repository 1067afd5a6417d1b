/**
 * The MongoDB Store engine: a thin pass-through to the native driver collections of a mongoose
 * connection. What it adds is what the port promises on top of MongoDB:
 * - string `_id`s, generated here when absent (also for upserts, through `$setOnInsert`), so ids
 *   look the same on both engines;
 * - duplicate-key errors (E11000) as DuplicateKeyError, unreachable servers as StoreUnavailableError;
 * - TTL never trusted for correctness: every filter on a collection with a TTL index also excludes
 *   expired documents (shared logic in ttl.util.ts), and an insert that collides with an expired
 *   document deletes the expired ones and tries again;
 * - withTransaction with a session on replica sets and sharded clusters; on a standalone server,
 *   which cannot run transactions, the callback runs without one (logged once).
 */
// Types only: mongoose (and the driver) load when a MongoDB store is created, so services and
// tests on the embedded engine do not pay for loading them.
import type mongoose from 'mongoose';
import { cloneValue, newId, normalizeDocument, type Doc } from './document.util';
import { filterId } from './filter.util';
import {
  type Collection,
  type DeleteResult,
  DuplicateKeyError,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type IndexSpec,
  type SessionOption,
  type Store,
  type StoreCursor,
  type StoreDocument,
  type StoreLogger,
  type StoreSession,
  StoreUnavailableError,
  type Update,
  type UpdateOptions,
  type UpdateResult,
} from './store.port';
import { type TtlRule, expiredFilter, ttlRuleOf, withLiveFilter } from './ttl.util';
import { prepareReplacement } from './update.util';

type NativeDocument = mongoose.mongo.Document;
type NativeCollection = mongoose.mongo.Collection<NativeDocument>;
type NativeFilter = mongoose.mongo.Filter<NativeDocument>;
type ClientSession = mongoose.mongo.ClientSession;

export interface MongoStoreOptions {
  /** `mongodb://` or `mongodb+srv://` connection string. */
  url: string;
  /** Database name; defaults to the one in the URL. */
  dbName?: string;
  /** How long to wait for a server before an operation fails with StoreUnavailableError; default 5000 ms. */
  serverSelectionTimeoutMS?: number;
  logger?: StoreLogger;
}

const UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoClientClosedError',
  'MongoPoolClearedError',
]);

function serverCode(e: unknown): unknown {
  return e instanceof Error ? (e as { code?: unknown }).code : undefined;
}

function isDuplicateKey(e: unknown): e is mongoose.mongo.MongoServerError {
  const code = serverCode(e);
  return code === 11000 || code === 11001;
}

/**
 * Maps driver errors onto the port's errors. Inside a transaction connectivity errors are left
 * as they are, because the driver's withTransaction retries on their TransientTransactionError label.
 */
function mapError(e: unknown, collection: string, inTransaction: boolean): unknown {
  if (isDuplicateKey(e)) {
    const message = e.message ?? '';
    const index = /index: (\S+)/.exec(message)?.[1] ?? 'unknown';
    const writeErrors = (e as { writeErrors?: Array<{ err?: { keyValue?: Record<string, unknown> } }> })
      .writeErrors;
    const key = (e.keyValue as Record<string, unknown> | undefined) ?? writeErrors?.[0]?.err?.keyValue ?? {};
    return new DuplicateKeyError(collection, index, key);
  }
  if (!inTransaction && e instanceof Error && UNAVAILABLE.has(e.name)) {
    return new StoreUnavailableError(`MongoDB unavailable: ${e.message}`, { cause: e });
  }
  return e;
}

class MongoStoreSession implements StoreSession {
  constructor(
    readonly id: string,
    readonly store: MongoStore,
    /** Absent when the server cannot run transactions. */
    readonly native: ClientSession | undefined,
  ) {}
}

/** The MongoDB engine. */
export class MongoStore implements Store {
  readonly engine = 'mongo';
  private readonly handles = new Map<string, MongoCollection<StoreDocument>>();
  private readonly ttlCache = new Map<string, Promise<TtlRule[]>>();
  private warnedNoTransactions = false;
  private txCounter = 0;

  constructor(
    private readonly connection: mongoose.Connection,
    private readonly db: mongoose.mongo.Db,
    /** Whether the server can run multi-document transactions (replica set or mongos). */
    readonly supportsTransactions: boolean,
    private readonly logger: StoreLogger,
  ) {}

  collection<T extends StoreDocument = StoreDocument>(name: string): Collection<T> {
    let h = this.handles.get(name);
    if (!h) {
      h = new MongoCollection(this, this.db.collection(name), name);
      this.handles.set(name, h);
    }
    return h as unknown as Collection<T>;
  }

  async withTransaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    const id = `tx-${++this.txCounter}`;
    if (!this.supportsTransactions) {
      if (!this.warnedNoTransactions) {
        this.warnedNoTransactions = true;
        this.logger.warn(
          'MongoDB server does not support transactions (standalone, not a replica set): withTransaction runs its writes without atomicity',
        );
      }
      return fn(new MongoStoreSession(id, this, undefined));
    }
    const native = this.connection.getClient().startSession();
    try {
      return await native.withTransaction(() => fn(new MongoStoreSession(id, this, native)));
    } catch (e) {
      throw mapError(e, '', false);
    } finally {
      await native.endSession();
    }
  }

  async ping(): Promise<void> {
    try {
      await this.db.command({ ping: 1 });
    } catch (e) {
      throw new StoreUnavailableError(`MongoDB unavailable: ${(e as Error).message}`, { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Drops the whole database (test clean-up). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  // ---- internals used by MongoCollection ------------------------------------------------------

  /** The driver session for a port session (undefined outside a transaction or without transactions). */
  nativeSession(opt: SessionOption | undefined): ClientSession | undefined {
    const s = opt?.session;
    if (s === undefined) return undefined;
    if (!(s instanceof MongoStoreSession) || s.store !== this)
      throw new TypeError('session belongs to another store');
    return s.native;
  }

  /** TTL rules of a collection, read from its indexes once and refreshed by createIndex. */
  ttlRules(name: string, native: NativeCollection): Promise<TtlRule[]> {
    let rules = this.ttlCache.get(name);
    if (!rules) {
      rules = native
        .listIndexes()
        .toArray()
        .then((indexes) =>
          indexes
            .filter((i) => typeof i.expireAfterSeconds === 'number')
            .map((i) =>
              ttlRuleOf({
                keys: i.key as Record<string, 1 | -1>,
                expireAfterSeconds: i.expireAfterSeconds as number,
              }),
            )
            .filter((r): r is TtlRule => r !== undefined),
        )
        .catch((e: unknown) => {
          this.ttlCache.delete(name);
          // NamespaceNotFound: the collection does not exist yet, so it has no indexes.
          if (serverCode(e) === 26) return [];
          throw mapError(e, name, false);
        });
      this.ttlCache.set(name, rules);
    }
    return rules;
  }

  forgetTtlRules(name: string): void {
    this.ttlCache.delete(name);
  }
}

class MongoCursor<T> implements StoreCursor<T> {
  private native: mongoose.mongo.FindCursor<NativeDocument> | undefined;
  private closed = false;
  constructor(
    private readonly open: () => Promise<mongoose.mongo.FindCursor<NativeDocument>>,
    private readonly fail: (e: unknown) => unknown,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.closed) return;
    try {
      this.native = await this.open();
      for await (const d of this.native) yield d as T;
    } catch (e) {
      throw this.fail(e);
    } finally {
      await this.native?.close();
    }
  }

  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const d of this) out.push(d);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.native?.close();
  }
}

function defined<O extends Record<string, unknown>>(o: O): O {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

class MongoCollection<T extends StoreDocument> implements Collection<T> {
  constructor(
    private readonly store: MongoStore,
    private readonly native: NativeCollection,
    readonly name: string,
  ) {}

  private async live(filter: Filter): Promise<NativeFilter> {
    const rules = await this.store.ttlRules(this.name, this.native);
    return withLiveFilter(filter, rules, Date.now()) as NativeFilter;
  }

  /** Runs a driver call with error mapping; a duplicate key on a TTL collection first clears expired documents and retries once. */
  private async run<R>(
    session: ClientSession | undefined,
    call: () => Promise<R>,
    retryExpired = false,
  ): Promise<R> {
    const inTx = session?.inTransaction() ?? false;
    try {
      return await call();
    } catch (e) {
      if (retryExpired && isDuplicateKey(e)) {
        const rules = await this.store.ttlRules(this.name, this.native);
        if (rules.length > 0) {
          const cleared = await this.native
            .deleteMany(expiredFilter(rules, Date.now()) as NativeFilter, { session })
            .catch(() => undefined);
          if (cleared && cleared.deletedCount > 0) return this.run(session, call, false);
        }
      }
      throw mapError(e, this.name, inTx);
    }
  }

  private prepareInsert(doc: unknown): Doc {
    const d = normalizeDocument(doc);
    if (d._id === undefined || d._id === null) return { _id: newId(), ...d };
    if (typeof d._id !== 'string' || d._id.length === 0)
      throw new TypeError('_id must be a non-empty string');
    return d;
  }

  async insertOne(doc: Omit<T, '_id'> & { _id?: string }, options?: SessionOption): Promise<T> {
    const session = this.store.nativeSession(options);
    const d = this.prepareInsert(doc);
    await this.run(session, () => this.native.insertOne({ ...d }, { session }), true);
    return cloneValue(d) as T;
  }

  async insertMany(docs: Array<Omit<T, '_id'> & { _id?: string }>, options?: SessionOption): Promise<T[]> {
    const session = this.store.nativeSession(options);
    const prepared = docs.map((d) => this.prepareInsert(d));
    if (prepared.length === 0) return [];
    await this.run(
      session,
      () =>
        this.native.insertMany(
          prepared.map((d) => ({ ...d })),
          { session, ordered: true },
        ),
      true,
    );
    return prepared.map((d) => cloneValue(d) as T);
  }

  async findOne(filter: Filter, options?: Omit<FindOptions, 'limit' | 'skip'>): Promise<T | null> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const found = await this.run(session, () =>
      this.native.findOne(f, defined({ session, sort: options?.sort, projection: options?.projection })),
    );
    return found as T | null;
  }

  private findOptions(
    options: FindOptions | undefined,
    session: ClientSession | undefined,
  ): mongoose.mongo.FindOptions {
    return defined({
      session,
      sort: options?.sort,
      skip: options?.skip,
      limit: options?.limit,
      projection: options?.projection,
    });
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const docs = await this.run(session, () =>
      this.native.find(f, this.findOptions(options, session)).toArray(),
    );
    return docs as unknown as T[];
  }

  cursor(filter: Filter, options?: FindOptions & { batchSize?: number }): StoreCursor<T> {
    const session = this.store.nativeSession(options);
    return new MongoCursor<T>(
      async () =>
        this.native.find(await this.live(filter), {
          ...this.findOptions(options, session),
          batchSize: options?.batchSize ?? 100,
        }),
      (e) => mapError(e, this.name, session?.inTransaction() ?? false),
    );
  }

  async countDocuments(filter: Filter = {}, options?: SessionOption): Promise<number> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    return this.run(session, () => this.native.countDocuments(f, { session }));
  }

  /** Upserts must create string ids too: without an `_id` pinned by the filter, set one on insert. */
  private withUpsertId(filter: Filter, update: Update, upsert: boolean | undefined): Update {
    if (!upsert || filterId(filter) !== undefined || update.$setOnInsert?._id !== undefined) return update;
    return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: newId() } };
  }

  private async update(
    filter: Filter,
    update: Update,
    options: UpdateOptions | undefined,
    multi: boolean,
  ): Promise<UpdateResult> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const u = this.withUpsertId(filter, update, options?.upsert);
    const opts = defined({ session, upsert: options?.upsert });
    const r = await this.run(
      session,
      () => (multi ? this.native.updateMany(f, u, opts) : this.native.updateOne(f, u, opts)),
      options?.upsert === true,
    );
    return {
      matchedCount: r.matchedCount,
      modifiedCount: r.modifiedCount,
      ...(r.upsertedId !== null && r.upsertedId !== undefined ? { upsertedId: String(r.upsertedId) } : {}),
    };
  }

  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return this.update(filter, update, options, false);
  }

  updateMany(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return this.update(filter, update, options, true);
  }

  async findOneAndUpdate(
    filter: Filter,
    update: Update,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const u = this.withUpsertId(filter, update, options?.upsert);
    const opts = defined({
      session,
      sort: options?.sort,
      upsert: options?.upsert,
      returnDocument: options?.returnDocument ?? 'after',
      includeResultMetadata: false as const,
    });
    const doc = await this.run(
      session,
      () => this.native.findOneAndUpdate(f, u, opts),
      options?.upsert === true,
    );
    return doc as T | null;
  }

  async replaceOne(filter: Filter, doc: Omit<T, '_id'>, options?: UpdateOptions): Promise<UpdateResult> {
    const session = this.store.nativeSession(options);
    const replacement = prepareReplacement(doc, undefined);
    const f = await this.live(filter);
    const pinned = filterId(filter);
    // MongoDB would give an upserted replacement an ObjectId unless the filter pins `_id`, so
    // without one the insert half of the upsert is done here with a string id.
    const serverUpsert = options?.upsert === true && pinned !== undefined;
    const r = await this.run(
      session,
      () => this.native.replaceOne(f, replacement, defined({ session, upsert: serverUpsert || undefined })),
      serverUpsert,
    );
    if (r.matchedCount === 0 && options?.upsert && !serverUpsert) {
      const requested = (doc as Doc)._id;
      const inserted: Doc = { _id: typeof requested === 'string' ? requested : newId(), ...replacement };
      await this.run(session, () => this.native.insertOne(inserted, { session }), true);
      return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id as string };
    }
    return {
      matchedCount: r.matchedCount,
      modifiedCount: r.modifiedCount,
      ...(r.upsertedId !== null && r.upsertedId !== undefined ? { upsertedId: String(r.upsertedId) } : {}),
    };
  }

  async deleteOne(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const r = await this.run(session, () => this.native.deleteOne(f, { session }));
    return { deletedCount: r.deletedCount };
  }

  async deleteMany(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    const session = this.store.nativeSession(options);
    const f = await this.live(filter);
    const r = await this.run(session, () => this.native.deleteMany(f, { session }));
    return { deletedCount: r.deletedCount };
  }

  async createIndex(spec: IndexSpec): Promise<string> {
    ttlRuleOf(spec);
    const name = await this.run(undefined, () =>
      this.native.createIndex(
        spec.keys,
        defined({
          name: spec.name,
          unique: spec.unique,
          sparse: spec.sparse,
          expireAfterSeconds: spec.expireAfterSeconds,
        }),
      ),
    );
    if (spec.expireAfterSeconds !== undefined) this.store.forgetTtlRules(this.name);
    return name;
  }
}

/** Connects to MongoDB and returns the store; rejects with StoreUnavailableError when no server answers. */
export async function createMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const logger = options.logger ?? { warn: (m: string) => console.warn(m) };
  const { default: mongoose } = await import('mongoose');
  const connection = mongoose.createConnection(options.url, {
    dbName: options.dbName,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5000,
    autoIndex: false,
    autoCreate: false,
  });
  try {
    await connection.asPromise();
  } catch (e) {
    await connection.close().catch(() => undefined);
    throw new StoreUnavailableError(`cannot connect to MongoDB: ${(e as Error).message}`, { cause: e });
  }
  const db = connection.db;
  if (!db) {
    await connection.close().catch(() => undefined);
    throw new StoreUnavailableError('MongoDB connection has no database');
  }
  let transactions = false;
  try {
    const hello = await db.admin().command({ hello: 1 });
    transactions = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  } catch {
    transactions = false;
  }
  return new MongoStore(connection, db, transactions, logger);
}
