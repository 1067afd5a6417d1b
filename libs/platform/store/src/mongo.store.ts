/**
 * The MongoDB Store engine: a thin pass-through to the native driver collections of a mongoose
 * connection. What it adds is what the port promises on top of MongoDB:
 * - string `_id`s, generated here when absent (also for upserts, through `$setOnInsert`), so ids
 *   look the same on both engines;
 * - duplicate-key errors as DuplicateKeyError, unreachable servers as StoreUnavailableError;
 * - TTL never trusted for correctness: every filter on a collection with a TTL index also excludes
 *   expired documents (shared logic in ttl.util.ts), and a write that collides with an expired
 *   document deletes the expired ones and tries again;
 * - withTransaction with a session on replica sets and sharded clusters; on a server that cannot
 *   run transactions (standalone, FerretDB) the callback runs without one (logged once).
 *
 * On FerretDB (detected from `buildInfo`) the adapter also does what that server does not, so the
 * same contract holds (mongo.compat.ts, docs/engines/ferretdb.md): filters and updates it would
 * evaluate differently are rewritten, evaluated by the adapter (reads) or refused; unique keys are
 * checked with MongoDB's rules before each write, because its unique indexes skip documents missing
 * a field and compare arrays whole; upserts are done by the adapter; duplicate-key errors are
 * completed with index and key; and this process's writes of one document (and an insert's claim of
 * its unique keys) are taken one at a time, because FerretDB loses concurrent updates of one document. Where a server has no TTL indexes (FerretDB 1.x, or any server
 * that refuses one), the TTL rule is kept in the `_flowplane_store_indexes` collection beside a
 * plain index, and the adapter reaps expired documents itself.
 */
// Types only: mongoose (and the driver) load when a MongoDB store is created, so services and
// tests on the embedded engine do not pay for loading them.
import type mongoose from 'mongoose';
import { cloneValue, type Doc, isPlainObject, newId, normalizeDocument } from './document.util';
import { filterId, mingoMatcher, type Matcher, upsertSeed } from './filter.util';
import { type IndexDefinition, defineIndex, sameIndex } from './hash-index.util';
import {
  type ServerProfile,
  UnsupportedByServerError,
  candidatesFilter,
  duplicateDetails,
  indexFromServerName,
  isDuplicateKeyFailure,
  isIndexOptionRefusal,
  isNestedArrayRefusal,
  keyProjection,
  pathsOverlap,
  rewriteUpdate,
  serverProfile,
  splitFilter,
  uniqueKeys,
  updatePaths,
} from './mongo.compat';
import { compileProjection } from './projection.util';
import { WriteLock } from './write-lock';
import {
  type Collection,
  type DeleteResult,
  DuplicateKeyError,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type IndexSpec,
  type Projection,
  type SessionOption,
  type Sort,
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
import { applyUpdate, prepareReplacement, prepareUpdate } from './update.util';

export { type ServerProfile, UnsupportedByServerError } from './mongo.compat';

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
  /** Where the server has no TTL indexes: how often the adapter deletes expired documents; default 60000 ms, 0 = never. */
  ttlReapIntervalMs?: number;
  logger?: StoreLogger;
}

/** Where TTL rules and sparse flags live when the server cannot keep them on its indexes. */
export const INDEX_METADATA_COLLECTION = '_flowplane_store_indexes';

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

/** A filter matching nothing: the "no document matched" answer of a write, from the server itself. */
const NOTHING: NativeFilter = { _id: { $in: [] } };

/** How often a one-document write re-reads when its document changed between read and write. */
const MAX_ATTEMPTS = 10;

/**
 * Per database and collection, for the whole process (several stores may open one database):
 * FerretDB 1.x applies an update as read, modify, write back by `_id` without isolation, so
 * concurrent updates of one document lose all but one (measured: 50 concurrent `$inc` left 2-9).
 * This process's writes of one document, and an insert's claim of its unique keys, are therefore
 * taken one at a time (write-lock.ts), which also makes the adapter's own unique-key checks atomic
 * with the write they guard; writes from other processes are not covered.
 */
const writeLocks = new Map<string, WriteLock>();


function serverCode(e: unknown): unknown {
  return e instanceof Error ? (e as { code?: unknown }).code : undefined;
}

/** A duplicate key from the server, or found by the adapter's own unique check (FerretDB). */
function isDuplicate(e: unknown): boolean {
  return e instanceof DuplicateKeyError || isDuplicateKeyFailure(e);
}

/**
 * Maps driver errors onto the port's errors (the synchronous part; duplicate keys FerretDB reports
 * without details are completed by MongoCollection). Inside a transaction connectivity errors are
 * left as they are, because the driver's withTransaction retries on their TransientTransactionError label.
 */
function mapError(e: unknown, collection: string, inTransaction: boolean, server?: ServerProfile): unknown {
  if (e instanceof DuplicateKeyError || e instanceof UnsupportedByServerError) return e;
  if (isDuplicateKeyFailure(e)) {
    const d = duplicateDetails(e);
    return new DuplicateKeyError(collection, d.index ?? 'unknown', d.key ?? {});
  }
  if (server?.ferretdb && isNestedArrayRefusal(e)) {
    return new UnsupportedByServerError(
      `${server.label} cannot store nested arrays (an array directly inside an array): ${(e as Error).message}`,
    );
  }
  if (!inTransaction && e instanceof Error && UNAVAILABLE.has(e.name)) {
    return new StoreUnavailableError(`MongoDB unavailable: ${e.message}`, { cause: e });
  }
  return e;
}

function defined<O extends Record<string, unknown>>(o: O): O {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function portResult(
  r: mongoose.mongo.UpdateResult | { matchedCount: number; modifiedCount: number; upsertedId?: unknown },
): UpdateResult {
  return {
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    ...(r.upsertedId !== null && r.upsertedId !== undefined ? { upsertedId: String(r.upsertedId) } : {}),
  };
}

/** A collection's indexes as the adapter needs them. */
interface IndexInfo {
  readonly all: IndexDefinition[];
  /** Unique indexes other than `_id_`. */
  readonly unique: IndexDefinition[];
  readonly ttl: TtlRule[];
}

/** An index's metadata document (keys as a list: FerretDB refuses dotted field names). */
interface IndexMetadata {
  _id: string;
  collection: string;
  name: string;
  keys: Array<{ field: string; dir: 1 | -1 }>;
  unique: boolean;
  sparse: boolean;
  expireAfterSeconds?: number;
}

function sameKeyPattern(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
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
  private readonly indexCache = new Map<string, Promise<IndexInfo>>();
  private readonly reapIntervalMs: number;
  private reaper: ReturnType<typeof setInterval> | undefined;
  private reaping: Promise<void> | undefined;
  private reaperFailing = false;
  private warnedNoTransactions = false;
  private warnedTtl = false;
  private closed = false;
  private txCounter = 0;

  constructor(
    private readonly connection: mongoose.Connection,
    private readonly db: mongoose.mongo.Db,
    /** What the server can do (createMongoStore reads it from `hello` and `buildInfo`). */
    readonly server: ServerProfile,
    private readonly logger: StoreLogger,
    options: { ttlReapIntervalMs?: number } = {},
  ) {
    this.reapIntervalMs = options.ttlReapIntervalMs ?? 60_000;
    if (server.ttlIndexes === false) this.startReaper();
    if (server.ferretdb) {
      logger.warn(
        `${server.label} does not isolate concurrent updates of one document: this process's writes are queued per collection so none is lost, but writes from other processes to the same documents can be`,
      );
    }
  }

  /** Whether the server can run multi-document transactions (replica set or mongos). */
  get supportsTransactions(): boolean {
    return this.server.transactions;
  }

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
    if (!this.server.transactions) {
      if (!this.warnedNoTransactions) {
        this.warnedNoTransactions = true;
        this.logger.warn(
          this.server.ferretdb
            ? `${this.server.label} does not support transactions (no multi-document transactions): withTransaction runs its writes without atomicity`
            : 'MongoDB server does not support transactions (standalone, not a replica set): withTransaction runs its writes without atomicity',
        );
      }
      return fn(new MongoStoreSession(id, this, undefined));
    }
    const native = this.connection.getClient().startSession();
    try {
      return await native.withTransaction(() => fn(new MongoStoreSession(id, this, native)));
    } catch (e) {
      throw mapError(e, '', false, this.server);
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
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    await this.reaping;
    await this.connection.close();
  }

  /** Drops the whole database (test clean-up). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  /**
   * Deletes expired documents now, in every collection with a TTL rule; returns how many. Where
   * the server has no TTL indexes this is the adapter's reaper (run every `ttlReapIntervalMs`);
   * elsewhere it does early what the server's TTL monitor would do.
   */
  async reapExpired(): Promise<number> {
    const names =
      this.server.ttlIndexes === false
        ? await this.metadata()
            .find({ expireAfterSeconds: { $exists: true } }, { projection: { collection: 1 } })
            .toArray()
            .then((ms) => [...new Set(ms.map((m) => String(m.collection)))])
        : (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    let total = 0;
    for (const name of names) {
      if (name === INDEX_METADATA_COLLECTION || name.startsWith('system.')) continue;
      // Fresh index definitions: another process may have changed them.
      this.forgetIndexes(name);
      const { ttl } = await this.indexInfo(name);
      if (ttl.length === 0) continue;
      const expired = this.serverFilter(expiredFilter(ttl, Date.now()));
      const r = await this.serialize(name, () => this.db.collection(name).deleteMany(expired));
      total += r.deletedCount;
    }
    return total;
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

  private writeLock(collection: string): WriteLock {
    const key = `${this.db.databaseName}\0${collection}`;
    let lock = writeLocks.get(key);
    if (!lock) writeLocks.set(key, (lock = new WriteLock()));
    return lock;
  }

  /** Runs a write of `collection` alone among this process's writes of it (FerretDB), or directly (MongoDB). */
  serialize<R>(collection: string, write: () => Promise<R>): Promise<R> {
    if (!this.server.ferretdb) return write();
    return this.writeLock(collection).exclusive(write);
  }

  /**
   * Runs a write of `collection` beside this process's other writes of it, but alone on each of
   * `keys()` (FerretDB), or directly (MongoDB). `keys()` answering null runs it as `serialize` does.
   */
  serializeKeyed<R>(
    collection: string,
    keys: () => Promise<readonly string[] | null>,
    write: () => Promise<R>,
  ): Promise<R> {
    if (!this.server.ferretdb) return write();
    return this.writeLock(collection).keyed(keys, write);
  }

  /** A filter as this server evaluates it like MongoDB (for filters known to need no adapter part). */
  serverFilter(filter: Filter): NativeFilter {
    return (this.server.ferretdb ? splitFilter(filter).server : filter) as NativeFilter;
  }

  /** Whether index options the server cannot keep (sparse, TTL) are kept in the metadata collection. */
  get keepsIndexMetadata(): boolean {
    return this.server.ferretdb || this.server.ttlIndexes === false;
  }

  metadata(): mongoose.mongo.Collection<IndexMetadata> {
    return this.db.collection<IndexMetadata>(INDEX_METADATA_COLLECTION);
  }

  /** A collection's indexes (server definitions completed from the metadata), read once and refreshed by createIndex. */
  indexInfo(name: string): Promise<IndexInfo> {
    let info = this.indexCache.get(name);
    if (!info) {
      info = this.loadIndexInfo(name).catch((e: unknown) => {
        this.indexCache.delete(name);
        throw mapError(e, name, false, this.server);
      });
      this.indexCache.set(name, info);
    }
    return info;
  }

  forgetIndexes(name: string): void {
    this.indexCache.delete(name);
  }

  private async loadIndexInfo(name: string): Promise<IndexInfo> {
    let raw: NativeDocument[];
    try {
      raw = await this.db.collection(name).listIndexes().toArray();
    } catch (e) {
      // NamespaceNotFound: the collection does not exist yet, so it has no indexes.
      if (serverCode(e) !== 26) throw e;
      raw = [];
    }
    const meta = this.keepsIndexMetadata ? await this.metadata().find({ collection: name }).toArray() : [];
    const all: IndexDefinition[] = raw.map((i) => {
      const keys = i.key as Record<string, 1 | -1>;
      const m = meta.find(
        (x) =>
          x.name === i.name && sameKeyPattern(Object.fromEntries(x.keys.map((k) => [k.field, k.dir])), keys),
      );
      const expire = typeof i.expireAfterSeconds === 'number' ? i.expireAfterSeconds : m?.expireAfterSeconds;
      return {
        name: String(i.name),
        keys,
        unique: i.unique === true,
        sparse: i.sparse === true || m?.sparse === true,
        ...(expire !== undefined ? { expireAfterSeconds: expire } : {}),
      };
    });
    const ttl = all
      .map((d) => (d.expireAfterSeconds !== undefined ? ttlRuleOf(d) : undefined))
      .filter((r): r is TtlRule => r !== undefined);
    return { all, unique: all.filter((d) => d.unique && d.name !== '_id_'), ttl };
  }

  async saveIndexMetadata(collection: string, def: IndexDefinition): Promise<void> {
    const doc: IndexMetadata = {
      _id: JSON.stringify([collection, def.name]),
      collection,
      name: def.name,
      keys: Object.entries(def.keys).map(([field, dir]) => ({ field, dir })),
      unique: def.unique,
      sparse: def.sparse,
      ...(def.expireAfterSeconds !== undefined ? { expireAfterSeconds: def.expireAfterSeconds } : {}),
    };
    await this.metadata().replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async dropIndexMetadata(collection: string, name: string): Promise<void> {
    await this.metadata().deleteOne({ _id: JSON.stringify([collection, name]) });
  }

  /** The server refused a TTL index: from now on TTL rules are kept by the adapter. */
  noteNoTtlIndexes(reason: string): void {
    if (this.server.ttlIndexes === false) return;
    this.server.ttlIndexes = false;
    this.indexCache.clear();
    this.logger.warn(
      `${this.server.label} refused a TTL index (${reason}): TTL rules are kept in the ${INDEX_METADATA_COLLECTION} collection and expired documents deleted by the adapter`,
    );
    this.warnedTtl = true;
    this.startReaper();
  }

  /** A TTL index became an adapter rule (logged once per store). */
  noteEmulatedTtl(collection: string, index: string): void {
    if (!this.warnedTtl) {
      this.warnedTtl = true;
      this.logger.warn(
        `${this.server.label} has no TTL indexes: ${collection}.${index} is a plain index with its TTL rule in ${INDEX_METADATA_COLLECTION}; reads hide expired documents and the adapter deletes them every ${this.reapIntervalMs / 1000} s`,
      );
    }
    this.startReaper();
  }

  private startReaper(): void {
    if (this.reaper || this.closed || this.reapIntervalMs <= 0) return;
    this.reaper = setInterval(() => {
      if (this.reaping || this.closed) return;
      this.reaping = this.reapExpired()
        .then(() => {
          this.reaperFailing = false;
        })
        .catch((e: unknown) => {
          if (this.reaperFailing || this.closed) return;
          this.reaperFailing = true;
          this.logger.warn(`TTL reaper on ${this.server.label} failed: ${(e as Error).message}`);
        })
        .finally(() => {
          this.reaping = undefined;
        });
    }, this.reapIntervalMs);
    this.reaper.unref?.();
  }
}

class MongoCursor<T> implements StoreCursor<T> {
  private active: AsyncGenerator<T> | undefined;
  private closed = false;
  constructor(
    private readonly source: () => AsyncGenerator<T>,
    private readonly fail: (e: unknown) => unknown,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.closed) return;
    const it = this.source();
    this.active = it;
    try {
      for (;;) {
        let r: IteratorResult<T>;
        try {
          r = await it.next();
        } catch (e) {
          throw this.fail(e);
        }
        if (r.done) return;
        yield r.value;
      }
    } finally {
      this.active = undefined;
      await it.return(undefined);
    }
  }

  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const d of this) out.push(d);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.active?.return(undefined);
  }
}

/** A port filter as the server runs it, and (FerretDB only) the part the adapter checks on what it returns. */
interface Plan {
  readonly server: NativeFilter;
  readonly client?: { readonly match: Matcher; readonly reason: string };
  readonly info: IndexInfo;
}

/** What a failed write wrote or meant to write, so a duplicate key FerretDB reports bare can be described. */
interface WriteContext {
  docs?: Doc[];
  /** Ids of the documents being updated (a stored document never conflicts with itself). */
  self?: ReadonlySet<string>;
}

interface Conflict {
  readonly position: number;
  readonly error: DuplicateKeyError;
}

class MongoCollection<T extends StoreDocument> implements Collection<T> {
  constructor(
    private readonly store: MongoStore,
    private readonly native: NativeCollection,
    readonly name: string,
  ) {}

  private get server(): ServerProfile {
    return this.store.server;
  }

  private async plan(filter: Filter): Promise<Plan> {
    const info = await this.store.indexInfo(this.name);
    const live = withLiveFilter(filter, info.ttl, Date.now());
    if (!this.server.ferretdb) return { server: live as NativeFilter, info };
    const split = splitFilter(live);
    return {
      server: split.server as NativeFilter,
      ...(split.client
        ? { client: { match: mingoMatcher(split.client), reason: split.reason ?? 'a condition' } }
        : {}),
      info,
    };
  }

  /** A plan for a write: the adapter only evaluates filters itself for reads (it could not write atomically). */
  private async writePlan(filter: Filter, op: string): Promise<Plan> {
    const plan = await this.plan(filter);
    if (plan.client) {
      throw new UnsupportedByServerError(
        `${this.server.label} cannot evaluate ${plan.client.reason} in the filter of ${op}: the adapter evaluates such filters itself for reads only (find, findOne, cursor, countDocuments)`,
      );
    }
    return plan;
  }

  /** Runs a driver call with error mapping; a duplicate key on a TTL collection first clears expired documents and retries once. */
  private async run<R>(
    session: ClientSession | undefined,
    call: () => Promise<R>,
    options: { retryExpired?: boolean; context?: WriteContext } = {},
  ): Promise<R> {
    try {
      return await call();
    } catch (e) {
      if (options.retryExpired && isDuplicate(e) && (await this.clearExpired(session)))
        return this.run(session, call, { ...options, retryExpired: false });
      throw await this.failure(e, session, options.context);
    }
  }

  private async failure(
    e: unknown,
    session: ClientSession | undefined,
    context?: WriteContext,
  ): Promise<unknown> {
    if (isDuplicateKeyFailure(e) && !(e instanceof DuplicateKeyError))
      return this.describeDuplicate(e, context);
    return mapError(e, this.name, session?.inTransaction() ?? false, this.server);
  }

  /** Deletes expired documents (when the collection has TTL rules); true when any were deleted. */
  private async clearExpired(session: ClientSession | undefined): Promise<boolean> {
    const { ttl } = await this.store.indexInfo(this.name);
    if (ttl.length === 0) return false;
    const cleared = await this.native
      .deleteMany(this.store.serverFilter(expiredFilter(ttl, Date.now())), { session })
      .catch(() => undefined);
    return cleared !== undefined && cleared.deletedCount > 0;
  }

  /**
   * A DuplicateKeyError for a server error, with index and key. MongoDB sends both; FerretDB
   * sends neither (E11000) or only its SQLite index name, so they are worked out from the
   * document that was being written.
   */
  private async describeDuplicate(
    e: unknown,
    context?: WriteContext,
  ): Promise<DuplicateKeyError | UnsupportedByServerError> {
    const d = duplicateDetails(e);
    if (d.index !== undefined && d.key !== undefined) return new DuplicateKeyError(this.name, d.index, d.key);
    let index = d.index;
    let key = d.key;
    let checked = false;
    try {
      const info = await this.store.indexInfo(this.name);
      if (index === undefined && d.serverIndex !== undefined)
        index = indexFromServerName(d.serverIndex, ['_id_', ...info.all.map((i) => i.name)]);
      const docs = context?.docs ?? [];
      const doc = docs[d.position ?? 0] ?? (docs.length === 1 ? docs[0] : undefined);
      const self = context?.self ?? new Set<string>();
      if (doc) {
        if (
          (index === undefined || index === '_id_') &&
          self.size === 0 &&
          typeof doc._id === 'string' &&
          (await this.native.findOne({ _id: doc._id } as unknown as NativeFilter, { projection: { _id: 1 } }))
        ) {
          index = '_id_';
          key = { _id: doc._id };
        } else {
          for (const def of info.unique) {
            if (index !== undefined && def.name !== index) continue;
            const c = await this.conflicts([doc], [def], self, undefined);
            if (c) {
              index = def.name;
              key = c.error.key;
              break;
            }
          }
          checked = key === undefined;
          if (checked && index !== undefined && !this.server.ferretdb) {
            // MongoDB before 4.4 names the index but sends no keyValue: the written document's key.
            const def = info.all.find((i) => i.name === index);
            key = def ? uniqueKeys(def, doc)?.[0]?.value : undefined;
          }
        }
      }
    } catch {
      // Best effort: the violation itself is certain, its details are not.
    }
    if (checked && this.server.ferretdb) {
      // No stored document has the key by MongoDB's rules: FerretDB's SQLite index compares the
      // JSON form of values, where e.g. a Date and a number of the same milliseconds are equal.
      return new UnsupportedByServerError(
        `${this.server.label} refused a write to ${this.name} as a duplicate key${index ? ` in index ${index}` : ''} although no document has the same key by MongoDB's rules (its unique indexes compare values by their JSON form, so a Date equals the number of its milliseconds)`,
      );
    }
    return new DuplicateKeyError(this.name, index ?? 'unknown', key ?? {});
  }

  /**
   * The first of `docs` (in order) sharing a key of one of `defs` with an earlier one of them or
   * with a stored document outside `self`, by MongoDB's rules. Only used on FerretDB, whose own
   * unique indexes ignore documents missing an indexed field and compare arrays whole.
   */
  private async conflicts(
    docs: Doc[],
    defs: IndexDefinition[],
    self: ReadonlySet<string>,
    session: ClientSession | undefined,
  ): Promise<Conflict | undefined> {
    let best: Conflict | undefined;
    const consider = (position: number, def: IndexDefinition, key: Record<string, unknown>) => {
      if (!best || position < best.position)
        best = { position, error: new DuplicateKeyError(this.name, def.name, key) };
    };
    for (const def of defs) {
      const keys = docs.map((d) => uniqueKeys(def, d));
      const owner = new Map<string, number>();
      keys.forEach((ks, i) => {
        for (const k of ks ?? []) {
          const j = owner.get(k.token);
          if (j === undefined) owner.set(k.token, i);
          else if (j !== i) consider(i, def, k.value);
        }
      });
      const indexed = docs.filter((_, i) => keys[i] !== null);
      const projection = keyProjection(def);
      for (let at = 0; at < indexed.length; at += 50) {
        const filter = candidatesFilter(def, indexed.slice(at, at + 50));
        const found = this.native.find(filter as NativeFilter, defined({ session, projection }));
        for await (const stored of found) {
          if (self.has(String(stored._id))) continue;
          for (const k of uniqueKeys(def, stored) ?? []) {
            const i = owner.get(k.token);
            if (i !== undefined) consider(i, def, k.value);
          }
        }
      }
    }
    return best;
  }

  /** `conflicts` against every unique index, where the adapter checks unique keys (FerretDB). */
  private async uniqueConflict(
    docs: Doc[],
    self: ReadonlySet<string>,
    session: ClientSession | undefined,
    defs?: IndexDefinition[],
  ): Promise<Conflict | undefined> {
    if (!this.server.ferretdb || docs.length === 0) return undefined;
    const unique = defs ?? (await this.store.indexInfo(this.name)).unique;
    return unique.length === 0 ? undefined : this.conflicts(docs, unique, self, session);
  }

  /** A stored duplicate of `def`'s keys among all documents (an index build over existing data). */
  private async duplicateInCollection(def: IndexDefinition): Promise<DuplicateKeyError | undefined> {
    const seen = new Map<string, string>();
    const all = this.native.find({}, defined({ projection: keyProjection(def) }));
    try {
      for await (const d of all) {
        const id = String(d._id);
        for (const k of uniqueKeys(def, d) ?? []) {
          const other = seen.get(k.token);
          if (other !== undefined && other !== id) return new DuplicateKeyError(this.name, def.name, k.value);
          seen.set(k.token, id);
        }
      }
    } finally {
      await all.close();
    }
    return undefined;
  }

  /** The unique indexes an update can change a key of (all of them for an upsert, which may insert). */
  private touchedUnique(info: IndexInfo, update: Update | undefined, upsert: boolean): IndexDefinition[] {
    if (!this.server.ferretdb) return [];
    if (update === undefined || upsert) return info.unique;
    const paths = updatePaths(update);
    return info.unique.filter((def) =>
      Object.keys(def.keys).some((f) => paths.some((p) => pathsOverlap(p, f))),
    );
  }

  private prepareInsert(doc: unknown): Doc {
    const d = normalizeDocument(doc);
    if (d._id === undefined || d._id === null) return { _id: newId(), ...d };
    if (typeof d._id !== 'string' || d._id.length === 0)
      throw new TypeError('_id must be a non-empty string');
    return d;
  }

  private async insertOneNow(d: Doc, options?: SessionOption): Promise<T> {
    const session = this.store.nativeSession(options);
    await this.run(
      session,
      async () => {
        const conflict = await this.uniqueConflict([d], new Set(), session);
        if (conflict) throw conflict.error;
        return this.native.insertOne({ ...d }, { session });
      },
      { retryExpired: true, context: { docs: [d] } },
    );
    return cloneValue(d) as T;
  }

  /** `prepared`: as prepareInsert made them. */
  private async insertManyNow(prepared: Doc[], options?: SessionOption): Promise<T[]> {
    const session = this.store.nativeSession(options);
    if (prepared.length === 0) return [];
    // Ordered, as MongoDB inserts: the documents before a failing one stay inserted, so a retry
    // after clearing expired documents continues at the failing one.
    let start = 0;
    let retried = false;
    for (;;) {
      const batch = prepared.slice(start);
      let pending: Conflict | undefined;
      try {
        pending = await this.uniqueConflict(batch, new Set(), session);
        const upTo = pending ? pending.position : batch.length;
        if (upTo > 0)
          await this.native.insertMany(
            batch.slice(0, upTo).map((d) => ({ ...d })),
            { session, ordered: true },
          );
        if (pending) throw pending.error;
        break;
      } catch (e) {
        const failedAt =
          pending && e === pending.error ? pending.position : (duplicateDetails(e).position ?? 0);
        if (!retried && isDuplicate(e) && (await this.clearExpired(session))) {
          retried = true;
          start += failedAt;
          continue;
        }
        throw await this.failure(e, session, { docs: batch.slice(failedAt, failedAt + 1) });
      }
    }
    return prepared.map((d) => cloneValue(d) as T);
  }

  /** Documents the adapter filters itself (FerretDB, reads only): sort on the server, the rest here. */
  private async *scan(
    plan: Plan,
    session: ClientSession | undefined,
    o: { sort?: Sort; skip?: number; limit?: number; projection?: Projection; batchSize?: number },
  ): AsyncGenerator<Doc> {
    const match = (plan.client as NonNullable<Plan['client']>).match;
    const project = compileProjection(o.projection);
    const cursor = this.native.find(plan.server, defined({ session, sort: o.sort, batchSize: o.batchSize }));
    let skip = o.skip ?? 0;
    let left = o.limit !== undefined && o.limit > 0 ? o.limit : Number.POSITIVE_INFINITY;
    try {
      for await (const d of cursor) {
        if (!match(d)) continue;
        if (skip > 0) {
          skip--;
          continue;
        }
        yield project(d);
        if (--left <= 0) return;
      }
    } finally {
      await cursor.close();
    }
  }

  private async collect(gen: AsyncGenerator<Doc>, session: ClientSession | undefined): Promise<Doc[]> {
    try {
      const out: Doc[] = [];
      for await (const d of gen) out.push(d);
      return out;
    } catch (e) {
      throw await this.failure(e, session);
    }
  }

  async findOne(filter: Filter, options?: Omit<FindOptions, 'limit' | 'skip'>): Promise<T | null> {
    const session = this.store.nativeSession(options);
    const plan = await this.plan(filter);
    if (plan.client) {
      const [first] = await this.collect(this.scan(plan, session, { ...options, limit: 1 }), session);
      return (first as T | undefined) ?? null;
    }
    const found = await this.run(session, () =>
      this.native.findOne(
        plan.server,
        defined({ session, sort: options?.sort, projection: options?.projection }),
      ),
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
    const plan = await this.plan(filter);
    if (plan.client) return (await this.collect(this.scan(plan, session, options ?? {}), session)) as T[];
    const docs = await this.run(session, () =>
      this.native.find(plan.server, this.findOptions(options, session)).toArray(),
    );
    return docs as unknown as T[];
  }

  private async *cursorSource(
    filter: Filter,
    options: (FindOptions & { batchSize?: number }) | undefined,
    session: ClientSession | undefined,
  ): AsyncGenerator<T> {
    const batchSize = options?.batchSize ?? 100;
    const plan = await this.plan(filter);
    if (plan.client) {
      for await (const d of this.scan(plan, session, { ...options, batchSize })) yield d as T;
      return;
    }
    const native = this.native.find(plan.server, { ...this.findOptions(options, session), batchSize });
    try {
      for await (const d of native) yield d as unknown as T;
    } finally {
      await native.close();
    }
  }

  cursor(filter: Filter, options?: FindOptions & { batchSize?: number }): StoreCursor<T> {
    const session = this.store.nativeSession(options);
    return new MongoCursor<T>(
      () => this.cursorSource(filter, options, session),
      (e) => mapError(e, this.name, session?.inTransaction() ?? false, this.server),
    );
  }

  async countDocuments(filter: Filter = {}, options?: SessionOption): Promise<number> {
    const session = this.store.nativeSession(options);
    const plan = await this.plan(filter);
    if (plan.client) return (await this.collect(this.scan(plan, session, {}), session)).length;
    return this.run(session, () => this.native.countDocuments(plan.server, { session }));
  }

  /** Upserts must create string ids too: without an `_id` pinned by the filter, set one on insert. */
  private withUpsertId(filter: Filter, update: Update, upsert: boolean | undefined): Update {
    if (!upsert || filterId(filter) !== undefined || update.$setOnInsert?._id !== undefined) return update;
    return { ...update, $setOnInsert: { ...update.$setOnInsert, _id: newId() } };
  }

  /** The update as the server should receive it (FerretDB: rewritten or refused, mongo.compat.ts). */
  private serverUpdate(update: Update): Update {
    if (!this.server.ferretdb || !isPlainObject(update)) return update;
    return rewriteUpdate(update, this.server.label);
  }

  /** The document an upsert inserts, as MongoDB builds it: the filter's equality fields, then the update with `$setOnInsert`. */
  private upsertDocument(filter: Filter, update: Update): Doc {
    const doc = upsertSeed(filter);
    applyUpdate(doc, prepareUpdate(update), true);
    if (doc._id === undefined || doc._id === null) return { _id: newId(), ...doc };
    if (typeof doc._id !== 'string') throw new TypeError('_id must be a string');
    return doc;
  }

  /**
   * A one-document write on FerretDB that needs the adapter (a unique key may change, or an
   * upsert, which FerretDB would seed without the filter's `$and` clauses): the document the
   * filter matches is read, its new version checked against the unique indexes, then written by
   * `_id` and the filter together (so a change in between is noticed and the step repeated). When
   * nothing matches, an upsert inserts the document MongoDB would have created.
   */
  private async adapterWrite<R>(
    plan: Plan,
    session: ClientSession | undefined,
    sort: Sort | undefined,
    defs: IndexDefinition[],
    context: WriteContext,
    step: {
      /** The document after the write: of the matched one, or (null) the one an upsert inserts, or null for none. */
      image(pre: Doc | null): Doc | null;
      /** The write itself, never an upsert. */
      exec(filter: NativeFilter): Promise<R>;
      matched(r: R): boolean;
      inserted(doc: Doc): R;
    },
  ): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const pre = (await this.native.findOne(plan.server, defined({ session, sort }))) as Doc | null;
      const doc = step.image(pre === null ? null : cloneValue(pre));
      if (pre === null && doc === null) return step.exec(NOTHING);
      const self = new Set<string>(pre === null ? [] : [String(pre._id)]);
      context.docs = doc ? [doc] : [];
      context.self = self;
      if (pre === null) {
        try {
          const conflict = await this.uniqueConflict([doc as Doc], self, session);
          if (conflict) throw conflict.error;
          await this.native.insertOne({ ...(doc as Doc) }, { session });
          return step.inserted(doc as Doc);
        } catch (e) {
          // Someone inserted a matching document meanwhile: update that one instead, as MongoDB
          // retries an upsert that lost such a race on a unique index.
          const raced =
            isDuplicate(e) &&
            attempt < MAX_ATTEMPTS &&
            (await this.native.findOne(plan.server, { session, projection: { _id: 1 } })) !== null;
          if (!raced) throw e;
          continue;
        }
      }
      if (doc) {
        const conflict = await this.uniqueConflict([doc], self, session, defs);
        if (conflict) throw conflict.error;
      }
      const r = await step.exec({ $and: [plan.server, { _id: pre._id }] } as NativeFilter);
      if (step.matched(r)) return r;
      if (attempt >= MAX_ATTEMPTS)
        throw new Error(
          `${this.name}: the matched document kept changing during the write; gave up after ${MAX_ATTEMPTS} attempts`,
        );
    }
  }

  private async updateNow(
    filter: Filter,
    update: Update,
    options: UpdateOptions | undefined,
    multi: boolean,
  ): Promise<UpdateResult> {
    const session = this.store.nativeSession(options);
    const upsert = options?.upsert === true;
    const plan = await this.writePlan(filter, multi ? 'updateMany' : 'updateOne');
    const u = this.withUpsertId(filter, update, upsert);
    const su = this.serverUpdate(u);
    const defs = this.touchedUnique(plan.info, update, upsert);
    const adapter = this.server.ferretdb && (upsert || defs.length > 0);
    const context: WriteContext = {};
    if (multi) {
      // Not retried after a duplicate key: MongoDB may have applied part of an updateMany, and
      // applying it again would repeat `$inc`s and `$push`es. Expired documents go first instead.
      if (plan.info.ttl.length > 0 && (plan.info.unique.length > 0 || upsert))
        await this.clearExpired(session);
      const r = await this.run(
        session,
        async () => {
          if (!adapter)
            return portResult(
              await this.native.updateMany(plan.server, su, defined({ session, upsert: options?.upsert })),
            );
          if (defs.length > 0) {
            const prepared = prepareUpdate(u);
            const matched = (await this.native.find(plan.server, defined({ session })).toArray()) as Doc[];
            const after = matched.map((m) => {
              const copy = cloneValue(m);
              applyUpdate(copy, prepared, false);
              return copy;
            });
            context.docs = after;
            context.self = new Set(matched.map((m) => String(m._id)));
            const conflict = await this.uniqueConflict(after, context.self, session, defs);
            if (conflict) throw conflict.error;
          }
          const r = portResult(await this.native.updateMany(plan.server, su, defined({ session })));
          if (r.matchedCount > 0 || !upsert) return r;
          // Nothing matched: insert what MongoDB's upsert would (or update what matches by now).
          const prepared = prepareUpdate(u);
          return this.adapterWrite(plan, session, undefined, defs, context, {
            image: (pre) => {
              if (pre === null) return this.upsertDocument(filter, u);
              applyUpdate(pre, prepared, false);
              return pre;
            },
            exec: async (f) => portResult(await this.native.updateMany(f, su, defined({ session }))),
            matched: (x) => x.matchedCount > 0,
            inserted: (doc) => ({ matchedCount: 0, modifiedCount: 0, upsertedId: doc._id as string }),
          });
        },
        { context },
      );
      return r;
    }
    return this.run(
      session,
      async () => {
        if (!adapter)
          return portResult(
            await this.native.updateOne(plan.server, su, defined({ session, upsert: options?.upsert })),
          );
        const prepared = prepareUpdate(u);
        return this.adapterWrite(plan, session, undefined, defs, context, {
          image: (pre) => {
            if (pre === null) return upsert ? this.upsertDocument(filter, u) : null;
            applyUpdate(pre, prepared, false);
            return pre;
          },
          exec: async (f) => portResult(await this.native.updateOne(f, su, defined({ session }))),
          matched: (x) => x.matchedCount > 0,
          inserted: (doc) => ({ matchedCount: 0, modifiedCount: 0, upsertedId: doc._id as string }),
        });
      },
      { retryExpired: true, context },
    );
  }

  // ---- the port's writes: taken one at a time per document on FerretDB (MongoStore.serializeKeyed) --

  /** The lock key of a document. */
  private static idKey(id: unknown): string {
    return `_id\0${String(id)}`;
  }

  /** What inserting `docs` claims: their ids and every unique key they hold. */
  private async insertKeys(docs: Doc[]): Promise<string[]> {
    const { unique } = await this.store.indexInfo(this.name);
    const keys: string[] = [];
    for (const d of docs) {
      keys.push(MongoCollection.idKey(d._id));
      for (const def of unique) for (const k of uniqueKeys(def, d) ?? []) keys.push(`${def.name}\0${k.token}`);
    }
    return keys;
  }

  /**
   * The one document a write by `filter` can change, when the filter pins its `_id` and the write
   * cannot insert (no upsert) nor change a unique key; null when it must have the collection alone.
   */
  private async documentKey(
    filter: Filter,
    update: Update | 'replace' | 'delete',
    upsert: boolean,
  ): Promise<string[] | null> {
    const id = filterId(filter);
    if (id === undefined || upsert) return null;
    if (update === 'delete') return [MongoCollection.idKey(id)];
    const info = await this.store.indexInfo(this.name);
    const touched = update === 'replace' ? info.unique : this.touchedUnique(info, update, false);
    return touched.length === 0 ? [MongoCollection.idKey(id)] : null;
  }

  async insertOne(doc: Omit<T, '_id'> & { _id?: string }, options?: SessionOption): Promise<T> {
    const d = this.prepareInsert(doc);
    return this.store.serializeKeyed(
      this.name,
      () => this.insertKeys([d]),
      () => this.insertOneNow(d, options),
    );
  }

  async insertMany(docs: Array<Omit<T, '_id'> & { _id?: string }>, options?: SessionOption): Promise<T[]> {
    const prepared = docs.map((d) => this.prepareInsert(d));
    return this.store.serializeKeyed(
      this.name,
      () => this.insertKeys(prepared),
      () => this.insertManyNow(prepared, options),
    );
  }

  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, update, options?.upsert === true),
      () => this.updateNow(filter, update, options, false),
    );
  }

  updateMany(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, update, options?.upsert === true),
      () => this.updateNow(filter, update, options, true),
    );
  }

  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, update, options?.upsert === true),
      () => this.findOneAndUpdateNow(filter, update, options),
    );
  }

  replaceOne(filter: Filter, doc: Omit<T, '_id'>, options?: UpdateOptions): Promise<UpdateResult> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, 'replace', options?.upsert === true),
      () => this.replaceOneNow(filter, doc, options),
    );
  }

  deleteOne(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, 'delete', false),
      () => this.deleteOneNow(filter, options),
    );
  }

  deleteMany(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    return this.store.serializeKeyed(
      this.name,
      () => this.documentKey(filter, 'delete', false),
      () => this.deleteManyNow(filter, options),
    );
  }

  createIndex(spec: IndexSpec): Promise<string> {
    return this.store.serialize(this.name, () => this.createIndexNow(spec));
  }

  private async findOneAndUpdateNow(
    filter: Filter,
    update: Update,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null> {
    const session = this.store.nativeSession(options);
    const upsert = options?.upsert === true;
    const plan = await this.writePlan(filter, 'findOneAndUpdate');
    const u = this.withUpsertId(filter, update, upsert);
    const su = this.serverUpdate(u);
    const returnDocument = options?.returnDocument ?? 'after';
    const defs = this.touchedUnique(plan.info, update, upsert);
    const context: WriteContext = {};
    const doc = await this.run(
      session,
      async () => {
        if (!(this.server.ferretdb && (upsert || defs.length > 0))) {
          const opts = defined({
            session,
            sort: options?.sort,
            upsert: options?.upsert,
            returnDocument,
            includeResultMetadata: false as const,
          });
          return (await this.native.findOneAndUpdate(plan.server, su, opts)) as Doc | null;
        }
        const prepared = prepareUpdate(u);
        return this.adapterWrite<Doc | null>(plan, session, options?.sort, defs, context, {
          image: (pre) => {
            if (pre === null) return upsert ? this.upsertDocument(filter, u) : null;
            applyUpdate(pre, prepared, false);
            return pre;
          },
          exec: async (f) =>
            (await this.native.findOneAndUpdate(
              f,
              su,
              defined({ session, returnDocument, includeResultMetadata: false as const }),
            )) as Doc | null,
          matched: (r) => r !== null,
          inserted: (d) => (returnDocument === 'after' ? cloneValue(d) : null),
        });
      },
      { retryExpired: true, context },
    );
    return doc as T | null;
  }

  private async replaceOneNow(
    filter: Filter,
    doc: Omit<T, '_id'>,
    options?: UpdateOptions,
  ): Promise<UpdateResult> {
    const session = this.store.nativeSession(options);
    const replacement = prepareReplacement(doc, undefined);
    const plan = await this.writePlan(filter, 'replaceOne');
    const pinned = filterId(filter);
    const upsert = options?.upsert === true;
    const requested = (doc as Doc)._id;
    const insertId = () => pinned ?? (typeof requested === 'string' ? requested : newId());
    const context: WriteContext = {};
    if (this.server.ferretdb && (upsert || plan.info.unique.length > 0)) {
      return this.run(
        session,
        () =>
          this.adapterWrite(plan, session, undefined, plan.info.unique, context, {
            image: (pre) =>
              pre !== null
                ? { _id: pre._id, ...replacement }
                : upsert
                  ? { _id: insertId(), ...replacement }
                  : null,
            exec: async (f) => portResult(await this.native.replaceOne(f, replacement, { session })),
            matched: (r) => r.matchedCount > 0,
            inserted: (d) => ({ matchedCount: 0, modifiedCount: 0, upsertedId: d._id as string }),
          }),
        { retryExpired: true, context },
      );
    }
    // MongoDB would give an upserted replacement an ObjectId unless the filter pins `_id`, so
    // without one the insert half of the upsert is done here with a string id.
    const serverUpsert = upsert && pinned !== undefined;
    const r = await this.run(
      session,
      () =>
        this.native.replaceOne(
          plan.server,
          replacement,
          defined({ session, upsert: serverUpsert || undefined }),
        ),
      { retryExpired: true },
    );
    if (r.matchedCount === 0 && upsert && !serverUpsert) {
      const inserted: Doc = { _id: insertId(), ...replacement };
      await this.run(session, () => this.native.insertOne(inserted, { session }), {
        retryExpired: true,
        context: { docs: [inserted] },
      });
      return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id as string };
    }
    return portResult(r);
  }

  private async deleteOneNow(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    const session = this.store.nativeSession(options);
    const plan = await this.writePlan(filter, 'deleteOne');
    const r = await this.run(session, () => this.native.deleteOne(plan.server, { session }));
    return { deletedCount: r.deletedCount };
  }

  private async deleteManyNow(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    const session = this.store.nativeSession(options);
    const plan = await this.writePlan(filter, 'deleteMany');
    const r = await this.run(session, () => this.native.deleteMany(plan.server, { session }));
    return { deletedCount: r.deletedCount };
  }

  private async createIndexNow(spec: IndexSpec): Promise<string> {
    ttlRuleOf(spec);
    const ttl = spec.expireAfterSeconds !== undefined;
    if (!this.server.ferretdb && !(ttl && this.server.ttlIndexes === false)) {
      try {
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
        if (ttl) this.store.forgetIndexes(this.name);
        if (ttl && this.server.ttlIndexes === undefined) this.server.ttlIndexes = true;
        return name;
      } catch (e) {
        if (!(ttl && isIndexOptionRefusal(e, 'expireAfterSeconds'))) throw e;
        this.store.noteNoTtlIndexes((e as Error).message);
      }
    }
    return this.createIndexHere(defineIndex(spec));
  }

  /**
   * createIndex where the server cannot keep every option: FerretDB drops `sparse` silently and
   * (1.x) refuses `expireAfterSeconds`. The server gets a plain (unique) index under the same name;
   * what it cannot keep goes to the metadata collection, which indexInfo merges back. On FerretDB
   * a unique index is also checked against the stored documents with MongoDB's rules, which its
   * own build does not apply.
   */
  private async createIndexHere(def: IndexDefinition): Promise<string> {
    this.store.forgetIndexes(this.name);
    const existing = (await this.store.indexInfo(this.name)).all.find((i) => i.name === def.name);
    if (existing) {
      if (sameIndex(existing, def)) return def.name;
      throw new Error(`index ${def.name} already exists on ${this.name} with different options`);
    }
    const emulatedTtl = def.expireAfterSeconds !== undefined;
    const withMetadata = def.sparse || emulatedTtl;
    try {
      if (withMetadata) await this.store.saveIndexMetadata(this.name, def);
      try {
        await this.native.createIndex(def.keys, defined({ name: def.name, unique: def.unique || undefined }));
      } catch (e) {
        if (withMetadata) await this.store.dropIndexMetadata(this.name, def.name).catch(() => undefined);
        if (isDuplicateKeyFailure(e))
          throw (await this.duplicateInCollection(def)) ?? new DuplicateKeyError(this.name, def.name, {});
        throw e;
      }
      if (def.unique && this.server.ferretdb) {
        const dup = await this.duplicateInCollection(def);
        if (dup) {
          await this.native.dropIndex(def.name).catch(() => undefined);
          if (withMetadata) await this.store.dropIndexMetadata(this.name, def.name).catch(() => undefined);
          throw dup;
        }
      }
    } catch (e) {
      throw mapError(e, this.name, false, this.server);
    } finally {
      this.store.forgetIndexes(this.name);
    }
    if (emulatedTtl) this.store.noteEmulatedTtl(this.name, def.name);
    return def.name;
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
  const admin = db.admin();
  const [hello, buildInfo] = await Promise.all([
    admin.command({ hello: 1 }).catch(() => undefined),
    admin.command({ buildInfo: 1 }).catch(() => undefined),
  ]);
  return new MongoStore(connection, db, serverProfile(buildInfo, hello), logger, {
    ttlReapIntervalMs: options.ttlReapIntervalMs,
  });
}
