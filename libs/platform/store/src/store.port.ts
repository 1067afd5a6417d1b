/**
 * The Store port: a Mongo-compatible subset of collection operations (ARCHITECTURE §2).
 * Domain code is written once against it; the MongoDB adapter is a thin pass-through and the
 * embedded engine reproduces MongoDB semantics for this subset.
 */

/** Every stored document has a string `_id` (generated when absent on insert). */
export interface StoreDocument {
  _id: string;
  [key: string]: unknown;
}

/** A MongoDB query filter (`$eq`, `$ne`, `$in`, `$nin`, `$gt(e)`, `$lt(e)`, `$exists`, `$and`, `$or`, `$regex`, dotted paths, ...). */
export type Filter = Record<string, unknown>;

/** A MongoDB update document using `$set`, `$unset`, `$inc`, `$push`, `$addToSet` (and `$setOnInsert` on upsert). */
export type Update = Record<string, Record<string, unknown>>;

/** Sort specification: field to 1 (ascending) or -1 (descending), applied in key order. */
export type Sort = Record<string, 1 | -1>;

/** Inclusion (1) or exclusion (0) projection. */
export type Projection = Record<string, 0 | 1>;

/** A session binds operations to a transaction opened with `Store.withTransaction`. */
export interface StoreSession {
  readonly id: string;
}

export interface SessionOption {
  session?: StoreSession;
}

export interface FindOptions extends SessionOption {
  sort?: Sort;
  limit?: number;
  skip?: number;
  projection?: Projection;
}

export interface UpdateOptions extends SessionOption {
  upsert?: boolean;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  sort?: Sort;
  /** Return the document as it was before or after the update (default `after`, unlike the Mongo driver's default). */
  returnDocument?: 'before' | 'after';
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId?: string;
}

export interface DeleteResult {
  deletedCount: number;
}

export interface IndexSpec {
  /** Field to 1 or -1. Compound keys are allowed. */
  keys: Record<string, 1 | -1>;
  name?: string;
  unique?: boolean;
  /** Treat documents missing the indexed fields as absent from a unique index. */
  sparse?: boolean;
  /** TTL: the document expires this many seconds after the Date in the (single) indexed field. */
  expireAfterSeconds?: number;
}

/** Async iteration over a result in batches, for large scans. */
export interface StoreCursor<T> extends AsyncIterable<T> {
  toArray(): Promise<T[]>;
  close(): Promise<void>;
}

export interface Collection<T extends StoreDocument = StoreDocument> {
  readonly name: string;
  insertOne(doc: Omit<T, '_id'> & { _id?: string }, options?: SessionOption): Promise<T>;
  insertMany(docs: Array<Omit<T, '_id'> & { _id?: string }>, options?: SessionOption): Promise<T[]>;
  findOne(filter: Filter, options?: Omit<FindOptions, 'limit' | 'skip'>): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** A cursor over the same result as `find`, fetched in batches. */
  cursor(filter: Filter, options?: FindOptions & { batchSize?: number }): StoreCursor<T>;
  countDocuments(filter?: Filter, options?: SessionOption): Promise<number>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  /** Replace the whole document (keeps `_id`). */
  replaceOne(filter: Filter, doc: Omit<T, '_id'>, options?: UpdateOptions): Promise<UpdateResult>;
  deleteOne(filter: Filter, options?: SessionOption): Promise<DeleteResult>;
  deleteMany(filter: Filter, options?: SessionOption): Promise<DeleteResult>;
  /** Idempotent: re-creating an index with the same spec is a no-op. */
  createIndex(spec: IndexSpec): Promise<string>;
}

export interface Store {
  /** Engine name for logs and readiness (`embedded`, `memory`, `mongo`). */
  readonly engine: string;
  collection<T extends StoreDocument = StoreDocument>(name: string): Collection<T>;
  /**
   * Runs `fn` atomically: either every write made with the given session is applied and
   * persisted, or none is. Used by the outbox so a state change and its event are never split.
   */
  withTransaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R>;
  /** Resolves when the engine is usable; rejects with the reason otherwise (used by /readyz). */
  ping(): Promise<void>;
  /** Flushes pending writes and releases files or connections. */
  close(): Promise<void>;
}

/** Where the engines report what an operator should see (torn journal tails, transaction fallbacks). */
export interface StoreLogger {
  warn(message: string): void;
}

/** Thrown on a unique-index violation; services map it to 409. */
export class DuplicateKeyError extends Error {
  readonly code = 'DUPLICATE_KEY';
  constructor(
    readonly collection: string,
    readonly index: string,
    readonly key: Record<string, unknown>,
  ) {
    super(`duplicate key in ${collection} index ${index}: ${JSON.stringify(key)}`);
    this.name = 'DuplicateKeyError';
  }
}

/** Thrown when the underlying engine cannot be reached or fails; services map it to 503. */
export class StoreUnavailableError extends Error {
  readonly code = 'STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
