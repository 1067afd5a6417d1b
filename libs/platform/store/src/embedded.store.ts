/**
 * The embedded Store engine: MongoDB semantics for the port's subset, in process.
 *
 * Data lives in a Map per collection (id to document) with hash indexes beside it; filters and
 * updates follow MongoDB through mingo (with a fast path for the common filter shapes). Stored
 * documents are immutable values: every write builds a new document object and every read hands
 * out a deep copy, which is also what lets compaction snapshot the store without copying it.
 *
 * With a directory, every write is appended to a journal before it resolves (see
 * journal.persistence.ts for the file format, crash behaviour and fsync policy); without one
 * (`createMemoryStore`) the store lives and dies with the process.
 *
 * Transactions (`withTransaction`): writes made with the session are staged in a private overlay
 * and become visible to everyone else only at commit, all together, as ONE journal record. Reads
 * with the session see committed state plus the session's own writes (read committed with
 * read-your-own-writes); reads without it see committed state only. Nothing blocks: when a
 * document the transaction wrote was changed by somebody else after the transaction first read
 * (or wrote) it, the commit is a write conflict and the callback runs again on fresh state, as the
 * MongoDB driver's withTransaction does on a TransientTransactionError; so read-modify-write
 * inside a transaction never loses an update. Like there, the callback must be safe to re-run.
 */
import { sortDocuments } from './compare.util';
import {
  type Doc,
  cloneValue,
  encodeJson,
  getPath,
  newId,
  normalizeDocument,
  splitPath,
} from './document.util';
import {
  type Matcher,
  compileFilter,
  equalityOperand,
  filterId,
  inOperands,
  isScalarOperand,
  upsertSeed,
} from './filter.util';
import { HashIndex, type IndexKey, defineIndex, sameIndex, sameKeys, valueToken } from './hash-index.util';
import { type FsyncPolicy, Journal, type JournalOp, type SnapshotCollection } from './journal.persistence';
import { compileProjection } from './projection.util';
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
import { type TtlRule, isExpired, ttlRuleOf } from './ttl.util';
import { type PreparedUpdate, applyUpdate, prepareReplacement, prepareUpdate } from './update.util';

export interface EmbeddedStoreOptions {
  /** Directory holding the store's files (one store per service: `DATA_DIR/<service>`). Omit for memory only. */
  dir?: string;
  /** When journal writes reach the disk; default 'interval' (see journal.persistence.ts). */
  fsync?: FsyncPolicy;
  /** Period of the background fdatasync under `fsync: 'interval'`; default 100 ms. */
  fsyncIntervalMs?: number;
  /** Compact once the journal exceeds this many bytes and the last snapshot's size; default 16 MiB. */
  compactMinBytes?: number;
  /** Period of the background TTL reaper; default 5000 ms, 0 disables it (reads still hide expired documents). */
  ttlReapIntervalMs?: number;
  /** Attempts of a transaction callback on write conflicts before giving up; default 10. */
  maxTransactionAttempts?: number;
  logger?: StoreLogger;
}

const DEFAULT_BATCH_SIZE = 100;

/** A collection's live state. */
class CollectionState {
  readonly docs = new Map<string, Doc>();
  readonly indexes: HashIndex[] = [];
  readonly ttl: TtlRule[] = [];
  /** Unique indexes on one top-level field, by field: the point-read fast path. */
  readonly uniqueByField = new Map<string, HashIndex>();
  constructor(readonly name: string) {}
}

function eqScalar(v: unknown, c: unknown): boolean {
  return c instanceof Date ? v instanceof Date && v.getTime() === c.getTime() : v === c;
}

/** MongoDB equality of a top-level field with a scalar: the value itself or an element of it. */
function eqTop(v: unknown, c: unknown): boolean {
  if (eqScalar(v, c)) return true;
  if (Array.isArray(v)) for (const el of v) if (eqScalar(el, c)) return true;
  return false;
}

/** One document's transition inside a write: insert (no before), replace, or delete (no after). */
interface Change {
  col: CollectionState;
  id: string;
  before: Doc | undefined;
  after: Doc | undefined;
}

interface Staged {
  /** The committed document when the session first wrote this id (identity = version). */
  base: Doc | undefined;
  doc: Doc | undefined;
}

class WriteConflict extends Error {
  constructor(readonly reason?: unknown) {
    super('transaction write conflict');
  }
}

class EmbeddedSession implements StoreSession {
  active = true;
  readonly writes = new Map<CollectionState, Map<string, Staged>>();
  /** The committed version of each document when the session first read it. */
  readonly reads = new Map<CollectionState, Map<string, Doc>>();
  constructor(
    readonly id: string,
    readonly store: EmbeddedStore,
  ) {}

  overlay(col: CollectionState): Map<string, Staged> | undefined {
    return this.writes.get(col);
  }

  noteRead(col: CollectionState, doc: Doc): void {
    let m = this.reads.get(col);
    if (!m) {
      m = new Map();
      this.reads.set(col, m);
    }
    const id = doc._id as string;
    if (!m.has(id)) m.set(id, doc);
  }

  /** The version a write is based on: what the session first read of the document, else the current one. */
  baseOf(col: CollectionState, id: string): Doc | undefined {
    const read = this.reads.get(col)?.get(id);
    return read ?? col.docs.get(id);
  }

  overlayFor(col: CollectionState): Map<string, Staged> {
    let m = this.writes.get(col);
    if (!m) {
      m = new Map();
      this.writes.set(col, m);
    }
    return m;
  }
}

function keyObject(doc: Doc, index: HashIndex): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of index.fields) out[f] = cloneValue(getPath(doc, splitPath(f)) ?? null);
  return out;
}

function limitOf(n: number | undefined): number {
  return n === undefined || n === 0 ? Infinity : Math.abs(n);
}

/** The embedded engine (persistent with a directory, memory-only without). */
export class EmbeddedStore implements Store {
  readonly engine: 'embedded' | 'memory';
  private readonly cols = new Map<string, CollectionState>();
  private readonly handles = new Map<string, EmbeddedCollection<StoreDocument>>();
  private readonly logger: StoreLogger;
  private readonly maxAttempts: number;
  private journal: Journal | undefined;
  private reaper: NodeJS.Timeout | undefined;
  private closed = false;
  private txCounter = 0;

  private constructor(options: EmbeddedStoreOptions) {
    this.engine = options.dir ? 'embedded' : 'memory';
    this.logger = options.logger ?? { warn: (m) => console.warn(m) };
    this.maxAttempts = options.maxTransactionAttempts ?? 10;
    const every = options.ttlReapIntervalMs ?? 5000;
    if (every > 0) {
      this.reaper = setInterval(() => {
        this.reapExpired().catch((e: unknown) =>
          this.logger.warn(`store TTL reaper: ${(e as Error).message}`),
        );
      }, every);
      this.reaper.unref();
    }
  }

  /** Opens (or creates) a store; loads the directory's snapshot and journal when `dir` is given. */
  static async open(options: EmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
    const store = new EmbeddedStore(options);
    if (options.dir) {
      try {
        const { journal, state } = await Journal.open({
          dir: options.dir,
          fsync: options.fsync ?? 'interval',
          fsyncIntervalMs: options.fsyncIntervalMs ?? 100,
          compactMinBytes: options.compactMinBytes ?? 16 * 1024 * 1024,
          warn: (m) => store.logger.warn(m),
        });
        store.journal = journal;
        for (const [name, loaded] of state) {
          const col = store.state(name);
          for (const [id, doc] of loaded.docs) col.docs.set(id, doc);
          for (const def of loaded.indexes) store.buildIndex(col, new HashIndex(def), false);
        }
        if (journal.needsCompaction()) store.compactInBackground();
      } catch (e) {
        store.stopTimers();
        await store.journal?.close().catch(() => undefined);
        throw e;
      }
    }
    return store;
  }

  /** Memory-only store, synchronously (tests, `STORE=memory`). */
  static memory(options: Omit<EmbeddedStoreOptions, 'dir'> = {}): EmbeddedStore {
    return new EmbeddedStore(options);
  }

  collection<T extends StoreDocument = StoreDocument>(name: string): Collection<T> {
    if (typeof name !== 'string' || name.length === 0 || name.includes('\0') || name.startsWith('$')) {
      throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
    }
    let h = this.handles.get(name);
    if (!h) {
      h = new EmbeddedCollection(this, name);
      this.handles.set(name, h);
    }
    return h as unknown as Collection<T>;
  }

  async withTransaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      this.assertUsable();
      const session = new EmbeddedSession(`tx-${++this.txCounter}`, this);
      let result: R;
      try {
        result = await fn(session);
      } catch (e) {
        if (e instanceof WriteConflict && attempt < this.maxAttempts) continue;
        throw e;
      } finally {
        session.active = false;
      }
      let ops: JournalOp[];
      try {
        ops = this.commitSession(session);
      } catch (e) {
        if (e instanceof WriteConflict) {
          if (attempt < this.maxAttempts) continue;
          throw e.reason instanceof Error ? e.reason : e;
        }
        throw e;
      }
      await this.persist(ops);
      return result;
    }
  }

  async ping(): Promise<void> {
    this.assertUsable();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopTimers();
    await this.journal?.close();
  }

  /** Deletes every document that has expired now; returns how many. The background reaper calls this. */
  async reapExpired(): Promise<number> {
    this.assertUsable();
    const now = Date.now();
    const changes: Change[] = [];
    for (const col of this.cols.values()) {
      if (col.ttl.length === 0) continue;
      for (const [id, doc] of col.docs)
        if (isExpired(doc, col.ttl, now)) changes.push({ col, id, before: doc, after: undefined });
    }
    if (changes.length === 0) return 0;
    await this.persist(this.applyChanges(changes, now));
    return changes.length;
  }

  /** Rewrites the snapshot and starts a fresh journal now (it also happens on its own as the journal grows). */
  async compact(): Promise<void> {
    this.assertUsable();
    await this.journal?.compact(() => this.capture());
  }

  // ---- internals used by EmbeddedCollection ----------------------------------------------------

  /** Throws when the store can no longer serve operations. */
  assertUsable(): void {
    if (this.closed) throw new StoreUnavailableError('store is closed');
    if (this.journal?.failure) throw this.journal.failure;
  }

  state(name: string): CollectionState {
    let col = this.cols.get(name);
    if (!col) {
      col = new CollectionState(name);
      this.cols.set(name, col);
    }
    return col;
  }

  session(opt: SessionOption | undefined): EmbeddedSession | undefined {
    const s = opt?.session;
    if (s === undefined) return undefined;
    if (!(s instanceof EmbeddedSession) || s.store !== this)
      throw new TypeError('session belongs to another store');
    if (!s.active) throw new Error('transaction has already ended');
    return s;
  }

  /** Writes journal records for applied changes; resolves once durable per the fsync policy. */
  persist(ops: JournalOp[]): Promise<void> {
    if (!this.journal || ops.length === 0) return Promise.resolve();
    const written = this.journal.append(ops);
    if (this.journal.needsCompaction()) this.compactInBackground();
    return written;
  }

  private compactInBackground(): void {
    this.journal
      ?.compact(() => this.capture())
      .catch((e: unknown) => this.logger.warn(`store compaction failed: ${(e as Error).message}`));
  }

  private capture(): SnapshotCollection[] {
    return [...this.cols.values()].map((c) => ({
      name: c.name,
      indexes: c.indexes.map((i) => i.def),
      docs: [...c.docs.values()],
    }));
  }

  private stopTimers(): void {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
  }

  /** Adds an index over the collection's documents; throws DuplicateKeyError (and adds nothing) on a unique violation. */
  buildIndex(col: CollectionState, index: HashIndex, enforce: boolean): void {
    for (const [id, doc] of col.docs) {
      const keys = index.keysOf(doc);
      if (enforce && index.def.unique) {
        const c = index.conflict(keys, id);
        if (c) {
          index.clear();
          throw new DuplicateKeyError(col.name, index.def.name, keyObject(doc, index));
        }
      }
      index.add(id, keys);
    }
    col.indexes.push(index);
    if (
      index.def.unique &&
      index.fields.length === 1 &&
      !index.fields[0].includes('.') &&
      !col.uniqueByField.has(index.fields[0])
    ) {
      col.uniqueByField.set(index.fields[0], index);
    }
    const rule = ttlRuleOf(index.def);
    if (rule) col.ttl.push(rule);
  }

  /**
   * Applies changes to committed state atomically: unique constraints are checked against the
   * state with every `before` removed, and on a violation everything is undone and
   * DuplicateKeyError thrown. A conflicting document that has already expired is deleted as part
   * of the same write (it is invisible anyway). Returns the journal ops describing the write.
   */
  applyChanges(requested: Change[], now: number): JournalOp[] {
    if (requested.length === 1 && requested[0].after) {
      const ops = requested[0].before ? this.updateFast(requested[0]) : this.insertFast(requested[0]);
      if (ops) return ops;
    }
    const changes = requested;
    // Expired documents deleted to make room; applied before the requested changes (same ids possible).
    const evicted: Change[] = [];
    const removed: Array<[HashIndex, string, IndexKey[] | null]> = [];
    const added: Array<[HashIndex, string, IndexKey[] | null]> = [];
    const removedIds = new Set<Doc>();
    const claimed = new Map<CollectionState, Set<string>>();
    const undo = () => {
      for (let i = added.length - 1; i >= 0; i--) added[i][0].remove(added[i][1], added[i][2]);
      for (const [idx, id, keys] of removed) idx.add(id, keys);
    };
    const removeFromIndexes = (ch: Change) => {
      const before = ch.before as Doc;
      for (const idx of ch.col.indexes) {
        const keys = idx.keysOf(before);
        idx.remove(ch.id, keys);
        removed.push([idx, ch.id, keys]);
      }
      removedIds.add(before);
    };
    const evictExpired = (col: CollectionState, id: string): boolean => {
      const other = col.docs.get(id);
      if (!other || removedIds.has(other) || col.ttl.length === 0 || !isExpired(other, col.ttl, now))
        return false;
      const ch: Change = { col, id, before: other, after: undefined };
      evicted.push(ch);
      removeFromIndexes(ch);
      return true;
    };

    for (const ch of changes) if (ch.before) removeFromIndexes(ch);
    for (const ch of changes) {
      const after = ch.after;
      if (!after) continue;
      let ids = claimed.get(ch.col);
      if (!ids) {
        ids = new Set();
        claimed.set(ch.col, ids);
      }
      const existing = ch.before ? undefined : ch.col.docs.get(ch.id);
      if (ids.has(ch.id) || (existing && !removedIds.has(existing) && !evictExpired(ch.col, ch.id))) {
        undo();
        throw new DuplicateKeyError(ch.col.name, '_id_', { _id: ch.id });
      }
      ids.add(ch.id);
      for (const idx of ch.col.indexes) {
        const keys = idx.keysOf(after);
        if (idx.def.unique) {
          for (let c = idx.conflict(keys, ch.id); c; c = idx.conflict(keys, ch.id)) {
            if (!evictExpired(ch.col, c.id)) {
              undo();
              throw new DuplicateKeyError(ch.col.name, idx.def.name, keyObject(after, idx));
            }
          }
        }
        idx.add(ch.id, keys);
        added.push([idx, ch.id, keys]);
      }
    }
    const ops: JournalOp[] = [];
    for (const ch of evicted.length > 0 ? [...evicted, ...changes] : changes) {
      if (ch.after) {
        ch.col.docs.set(ch.id, ch.after);
        ops.push({ o: 'p', c: ch.col.name, d: ch.after });
      } else {
        ch.col.docs.delete(ch.id);
        ops.push({ o: 'd', c: ch.col.name, id: ch.id });
      }
    }
    return ops;
  }

  /**
   * A single insert that touches no existing document and no key held by another one: the
   * common case, done without the bookkeeping of `applyChanges` (undefined means "take the
   * general path", which also handles expired documents in the way).
   */
  private insertFast(ch: Change): JournalOp[] | undefined {
    const { col, id } = ch;
    const doc = ch.after as Doc;
    if (col.docs.has(id)) return undefined;
    const indexes = col.indexes;
    const keys: Array<IndexKey[] | null> = new Array(indexes.length);
    for (let i = 0; i < indexes.length; i++) {
      keys[i] = indexes[i].keysOf(doc);
      if (indexes[i].def.unique && indexes[i].conflict(keys[i], id)) return undefined;
    }
    for (let i = 0; i < indexes.length; i++) indexes[i].add(id, keys[i]);
    col.docs.set(id, doc);
    return [{ o: 'p', c: col.name, d: doc }];
  }

  /**
   * A single update of a stored document: only the indexes whose keys the update changed are
   * touched (an update that leaves every indexed field alone costs no index work at all).
   * Undefined when a changed unique key is held by another document: the general path decides
   * (an expired holder is evicted, a live one is a DuplicateKeyError).
   */
  private updateFast(ch: Change): JournalOp[] | undefined {
    const { col, id } = ch;
    const before = ch.before as Doc;
    const after = ch.after as Doc;
    if (col.docs.get(id) !== before) return undefined;
    let moves: Array<[HashIndex, IndexKey[] | null, IndexKey[] | null]> | undefined;
    for (const idx of col.indexes) {
      if (idx.sameValues(before, after)) continue;
      const was = idx.keysOf(before);
      const now = idx.keysOf(after);
      if (sameKeys(was, now)) continue;
      if (idx.def.unique && idx.conflict(now, id)) return undefined;
      (moves ??= []).push([idx, was, now]);
    }
    if (moves) {
      for (const [idx, was, now] of moves) {
        idx.remove(id, was);
        idx.add(id, now);
      }
    }
    col.docs.set(id, after);
    return [{ o: 'p', c: col.name, d: after }];
  }

  /**
   * Stages changes in a session after checking `_id` and unique constraints against the
   * session's view (committed state overlaid with its own writes). All or nothing.
   */
  stage(session: EmbeddedSession, changes: Change[], now: number): void {
    const undo: Array<[Map<string, Staged>, string, Staged | undefined]> = [];
    try {
      for (const ch of changes) {
        const overlay = session.overlayFor(ch.col);
        const after = ch.after;
        if (after) {
          const visible = (id: string): Doc | undefined => {
            const o = overlay.get(id);
            if (o) return o.doc;
            const d = ch.col.docs.get(id);
            return d && !(ch.col.ttl.length > 0 && isExpired(d, ch.col.ttl, now)) ? d : undefined;
          };
          if (!ch.before && visible(ch.id)) throw new DuplicateKeyError(ch.col.name, '_id_', { _id: ch.id });
          for (const idx of ch.col.indexes) {
            if (!idx.def.unique) continue;
            const keys = idx.keysOf(after);
            if (!keys) continue;
            for (const key of keys) {
              for (const other of idx.lookup(key)) {
                if (other !== ch.id && !overlay.has(other) && visible(other)) {
                  throw new DuplicateKeyError(ch.col.name, idx.def.name, keyObject(after, idx));
                }
              }
            }
            for (const [other, s] of overlay) {
              if (other === ch.id || !s.doc) continue;
              const theirs = idx.keysOf(s.doc);
              if (theirs && theirs.some((k) => keys.includes(k)))
                throw new DuplicateKeyError(ch.col.name, idx.def.name, keyObject(after, idx));
            }
          }
        }
        const prev = overlay.get(ch.id);
        undo.push([overlay, ch.id, prev]);
        overlay.set(ch.id, { base: prev ? prev.base : session.baseOf(ch.col, ch.id), doc: after });
      }
    } catch (e) {
      for (let i = undo.length - 1; i >= 0; i--) {
        const [overlay, id, prev] = undo[i];
        if (prev) overlay.set(id, prev);
        else overlay.delete(id);
      }
      throw e;
    }
  }

  /**
   * Fails a session's write fast (as MongoDB does with WriteConflict) when a document it is about
   * to write changed since the session read it, so the update is not computed from stale data.
   */
  checkFresh(session: EmbeddedSession, col: CollectionState, matched: Doc[]): void {
    const reads = session.reads.get(col);
    if (!reads) return;
    const overlay = session.overlay(col);
    for (const doc of matched) {
      const id = doc._id as string;
      if (overlay?.has(id)) continue;
      const seen = reads.get(id);
      if (seen !== undefined && seen !== doc) throw new WriteConflict();
    }
  }

  private commitSession(session: EmbeddedSession): JournalOp[] {
    this.assertUsable();
    const changes: Change[] = [];
    for (const [col, overlay] of session.writes) {
      for (const [id, s] of overlay) {
        const current = col.docs.get(id);
        if (current !== s.base) throw new WriteConflict();
        if (current === undefined && s.doc === undefined) continue;
        changes.push({ col, id, before: current, after: s.doc });
      }
    }
    if (changes.length === 0) return [];
    try {
      return this.applyChanges(changes, Date.now());
    } catch (e) {
      // Someone committed a conflicting key since the session checked: re-run on fresh state.
      if (e instanceof DuplicateKeyError) throw new WriteConflict(e);
      throw e;
    }
  }

  /**
   * `findOne` for `{field: scalar}` on `_id` or a unique single-field index, outside sessions:
   * one map lookup and no filter compilation. Undefined when the filter has another shape.
   */
  pointRead(col: CollectionState, filter: Filter, now: number): Doc | null | undefined {
    let field: string | undefined;
    for (const k in filter) {
      if (field !== undefined) return undefined;
      field = k;
    }
    if (field === undefined) return undefined;
    const value = filter[field];
    if (!isScalarOperand(value)) return undefined;
    let doc: Doc | undefined;
    if (field === '_id') {
      doc = typeof value === 'string' ? col.docs.get(value) : undefined;
    } else {
      const idx = col.uniqueByField.get(field);
      if (!idx) return undefined;
      const ids = idx.lookup(valueToken(value));
      if (!Array.isArray(ids)) return undefined; // several holders (cannot happen for unique): general path
      doc = ids.length === 1 ? col.docs.get(ids[0] as string) : undefined;
      if (doc && !eqTop(doc[field], value)) return undefined;
    }
    if (!doc || (col.ttl.length > 0 && isExpired(doc, col.ttl, now))) return null;
    return doc;
  }

  /**
   * The documents matching `filter` in the session's view, in natural order (stored objects, not
   * copies), stopping after `max`. Uses `_id` or a hash index when the filter pins one by equality.
   */
  select(
    col: CollectionState,
    filter: Filter,
    session: EmbeddedSession | undefined,
    max: number,
    now: number,
  ): Doc[] {
    const matcher = compileFilter(filter);
    const overlay = session?.overlay(col);
    const ttl = col.ttl.length > 0 ? col.ttl : undefined;
    const out: Doc[] = [];
    const consider = (doc: Doc, matcherFn: Matcher) => !(ttl && isExpired(doc, ttl, now)) && matcherFn(doc);
    for (const doc of this.candidates(col, filter)) {
      if (out.length >= max) break;
      if (overlay?.has(doc._id as string)) continue;
      if (consider(doc, matcher)) {
        out.push(doc);
        session?.noteRead(col, doc);
      }
    }
    if (overlay) {
      for (const s of overlay.values()) {
        if (out.length >= max) break;
        if (s.doc && consider(s.doc, matcher)) out.push(s.doc);
      }
    }
    return out;
  }

  private candidates(col: CollectionState, filter: Filter): Iterable<Doc> {
    const id = filterId(filter);
    if (id !== undefined) {
      const d = col.docs.get(id);
      return d ? [d] : [];
    }
    const ids = inOperands(filter._id);
    if (ids)
      return this.byIds(
        col,
        ids.filter((v): v is string => typeof v === 'string'),
      );
    let best: HashIndex | undefined;
    for (const idx of col.indexes) {
      if (best?.def.unique) break;
      if (idx.fields.every((f) => f in filter && equalityOperand(filter[f]) !== undefined)) best = idx;
    }
    if (best) {
      const values = best.fields.map((f) => (equalityOperand(filter[f]) as { value: unknown }).value);
      return this.byIds(col, best.lookup(best.lookupKey(values)));
    }
    for (const idx of col.indexes) {
      if (idx.fields.length !== 1) continue;
      const values = inOperands(filter[idx.fields[0]]);
      if (values) {
        const set = new Set<string>();
        for (const v of values) for (const i of idx.lookup(idx.lookupKey([v]))) set.add(i);
        return this.byIds(col, set);
      }
    }
    return col.docs.values();
  }

  private byIds(col: CollectionState, ids: Iterable<string>): Doc[] {
    const out: Doc[] = [];
    if (Array.isArray(ids) && ids.length === 1) {
      // The common unique-index or `_id` hit: no de-duplication needed.
      const d = col.docs.get(ids[0] as string);
      if (d) out.push(d);
      return out;
    }
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      const d = col.docs.get(id);
      if (d) out.push(d);
    }
    return out;
  }
}

class EmbeddedCursor<T> implements StoreCursor<T> {
  private closed = false;
  constructor(
    private readonly load: () => Doc[],
    private readonly convert: (doc: Doc) => Doc,
    private readonly batchSize: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const docs = this.load();
    for (let i = 0; i < docs.length && !this.closed; i += this.batchSize) {
      const batch = docs.slice(i, i + this.batchSize).map(this.convert);
      for (const d of batch) yield d as unknown as T;
      // Let other work run between batches of a long scan.
      await new Promise((r) => setImmediate(r));
    }
  }

  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const d of this) out.push(d);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

class EmbeddedCollection<T extends StoreDocument> implements Collection<T> {
  constructor(
    private readonly store: EmbeddedStore,
    readonly name: string,
  ) {}

  private get col(): CollectionState {
    return this.store.state(this.name);
  }

  private prepareInsert(doc: unknown): Doc {
    const d = normalizeDocument(doc);
    if (d._id === undefined || d._id === null) return { _id: newId(), ...d };
    if (typeof d._id !== 'string' || d._id.length === 0)
      throw new TypeError('_id must be a non-empty string');
    return d;
  }

  async insertOne(doc: Omit<T, '_id'> & { _id?: string }, options?: SessionOption): Promise<T> {
    this.store.assertUsable();
    const session = this.store.session(options);
    const d = this.prepareInsert(doc);
    const change: Change = { col: this.col, id: d._id as string, before: undefined, after: d };
    if (session) this.store.stage(session, [change], Date.now());
    else await this.store.persist(this.store.applyChanges([change], Date.now()));
    return cloneValue(d) as T;
  }

  async insertMany(docs: Array<Omit<T, '_id'> & { _id?: string }>, options?: SessionOption): Promise<T[]> {
    this.store.assertUsable();
    const session = this.store.session(options);
    const prepared = docs.map((doc) => this.prepareInsert(doc));
    if (prepared.length === 0) return [];
    const col = this.col;
    const changes = prepared.map((d): Change => ({ col, id: d._id as string, before: undefined, after: d }));
    if (session) this.store.stage(session, changes, Date.now());
    else await this.store.persist(this.store.applyChanges(changes, Date.now()));
    return prepared.map((d) => cloneValue(d) as T);
  }

  private query(filter: Filter, options: FindOptions | undefined): Doc[] {
    this.store.assertUsable();
    const session = this.store.session(options);
    const skip = Math.max(0, options?.skip ?? 0);
    const limit = limitOf(options?.limit);
    const sort = options?.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    let docs = this.store.select(this.col, filter, session, sort ? Infinity : skip + limit, Date.now());
    if (sort) sortDocuments(docs, sort);
    if (skip > 0 || docs.length > limit) docs = docs.slice(skip, skip + limit);
    return docs;
  }

  async findOne(filter: Filter, options?: Omit<FindOptions, 'limit' | 'skip'>): Promise<T | null> {
    if (!options?.session && !options?.sort) {
      this.store.assertUsable();
      const hit = this.store.pointRead(this.col, filter, Date.now());
      if (hit !== undefined)
        return hit === null
          ? null
          : ((options?.projection ? compileProjection(options.projection)(hit) : cloneValue(hit)) as T);
    }
    const docs = this.query(filter, { ...options, limit: 1 });
    return docs.length === 0 ? null : (compileProjection(options?.projection)(docs[0]) as T);
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const docs = this.query(filter, options);
    const project = compileProjection(options?.projection);
    return docs.map((d) => project(d) as T);
  }

  cursor(filter: Filter, options?: FindOptions & { batchSize?: number }): StoreCursor<T> {
    const project = compileProjection(options?.projection);
    return new EmbeddedCursor<T>(
      () => this.query(filter, options),
      project,
      Math.max(1, options?.batchSize ?? DEFAULT_BATCH_SIZE),
    );
  }

  async countDocuments(filter: Filter = {}, options?: SessionOption): Promise<number> {
    this.store.assertUsable();
    const session = this.store.session(options);
    const col = this.col;
    if (!session && col.ttl.length === 0 && Object.keys(filter).length === 0) return col.docs.size;
    return this.store.select(col, filter, session, Infinity, Date.now()).length;
  }

  /**
   * The shared write path of the update family: finds the targets in the caller's view, builds
   * their new versions with `mutate`, inserts `upsertDoc()` when nothing matched, and applies or
   * stages the result as one atomic write.
   */
  private async write(
    filter: Filter,
    options: (UpdateOptions & { sort?: FindOneAndUpdateOptions['sort'] }) | undefined,
    multi: boolean,
    mutate: (copy: Doc) => boolean,
    upsertDoc: () => Doc,
  ): Promise<{ matched: Doc[]; changes: Change[]; upserted?: Doc }> {
    this.store.assertUsable();
    const session = this.store.session(options);
    const now = Date.now();
    const col = this.col;
    const sort = options?.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    let matched = this.store.select(col, filter, session, multi || sort ? Infinity : 1, now);
    if (sort) matched = sortDocuments(matched, sort).slice(0, multi ? undefined : 1);
    if (session) this.store.checkFresh(session, col, matched);
    const changes: Change[] = [];
    let upserted: Doc | undefined;
    for (const old of matched) {
      const copy = cloneValue(old);
      if (mutate(copy)) changes.push({ col, id: old._id as string, before: old, after: copy });
    }
    if (matched.length === 0 && options?.upsert) {
      upserted = upsertDoc();
      changes.push({ col, id: upserted._id as string, before: undefined, after: upserted });
    }
    if (changes.length > 0) {
      if (session) this.store.stage(session, changes, now);
      else await this.store.persist(this.store.applyChanges(changes, now));
    }
    return { matched, changes, upserted };
  }

  private upsertFromUpdate(filter: Filter, prepared: PreparedUpdate): Doc {
    const doc = upsertSeed(filter);
    applyUpdate(doc, prepared, true);
    if (doc._id === undefined || doc._id === null) return { _id: newId(), ...doc };
    if (typeof doc._id !== 'string') throw new TypeError('_id must be a string');
    return doc;
  }

  private async update(
    filter: Filter,
    update: Update,
    options: UpdateOptions | undefined,
    multi: boolean,
  ): Promise<UpdateResult> {
    const prepared = prepareUpdate(update);
    const r = await this.write(
      filter,
      options,
      multi,
      (copy) => applyUpdate(copy, prepared, false),
      () => this.upsertFromUpdate(filter, prepared),
    );
    return {
      matchedCount: r.matched.length,
      modifiedCount: r.upserted ? 0 : r.changes.length,
      ...(r.upserted ? { upsertedId: r.upserted._id as string } : {}),
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
    const prepared = prepareUpdate(update);
    const r = await this.write(
      filter,
      options,
      false,
      (copy) => applyUpdate(copy, prepared, false),
      () => this.upsertFromUpdate(filter, prepared),
    );
    const before = options?.returnDocument === 'before';
    if (r.upserted) return before ? null : (cloneValue(r.upserted) as T);
    if (r.matched.length === 0) return null;
    const after = r.changes[0]?.after ?? r.matched[0];
    return cloneValue(before ? r.matched[0] : after) as T;
  }

  async replaceOne(filter: Filter, doc: Omit<T, '_id'>, options?: UpdateOptions): Promise<UpdateResult> {
    prepareReplacement(doc, undefined); // validates before anything is matched
    const r = await this.write(
      filter,
      options,
      false,
      (copy) => {
        const next = prepareReplacement(doc, copy._id as string);
        const unchanged = encodeJson(next) === encodeJson(copy);
        for (const k of Object.keys(copy)) delete copy[k];
        Object.assign(copy, next);
        return !unchanged;
      },
      () => {
        const id = filterId(filter) ?? ((doc as Doc)._id as string | undefined) ?? newId();
        return prepareReplacement(doc, id);
      },
    );
    return {
      matchedCount: r.matched.length,
      modifiedCount: r.upserted ? 0 : r.changes.length,
      ...(r.upserted ? { upsertedId: r.upserted._id as string } : {}),
    };
  }

  private async remove(
    filter: Filter,
    options: SessionOption | undefined,
    multi: boolean,
  ): Promise<DeleteResult> {
    this.store.assertUsable();
    const session = this.store.session(options);
    const now = Date.now();
    const col = this.col;
    const matched = this.store.select(col, filter, session, multi ? Infinity : 1, now);
    if (matched.length === 0) return { deletedCount: 0 };
    if (session) this.store.checkFresh(session, col, matched);
    const changes = matched.map((d): Change => ({ col, id: d._id as string, before: d, after: undefined }));
    if (session) this.store.stage(session, changes, now);
    else await this.store.persist(this.store.applyChanges(changes, now));
    return { deletedCount: matched.length };
  }

  deleteOne(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    return this.remove(filter, options, false);
  }

  deleteMany(filter: Filter, options?: SessionOption): Promise<DeleteResult> {
    return this.remove(filter, options, true);
  }

  async createIndex(spec: IndexSpec): Promise<string> {
    this.store.assertUsable();
    const def = defineIndex(spec);
    ttlRuleOf(def);
    const col = this.col;
    for (const idx of col.indexes) {
      const sameKeys = JSON.stringify(idx.def.keys) === JSON.stringify(def.keys);
      if (idx.def.name !== def.name && !sameKeys) continue;
      // Re-creating an existing index is a no-op (also under another name when the options agree).
      if (sameIndex({ ...idx.def, name: def.name }, def)) return idx.def.name;
      throw new Error(`index ${idx.def.name} already exists on ${this.name} with different options`);
    }
    this.store.buildIndex(col, new HashIndex(def), true);
    await this.store.persist([{ o: 'x', c: this.name, s: def }]);
    return def.name;
  }
}

/** Opens a persistent embedded store in `dir` (created if missing). */
export function createEmbeddedStore(options: EmbeddedStoreOptions & { dir: string }): Promise<EmbeddedStore> {
  return EmbeddedStore.open(options);
}

/** A memory-only embedded store: same semantics, nothing written to disk. */
export function createMemoryStore(options: Omit<EmbeddedStoreOptions, 'dir'> = {}): EmbeddedStore {
  return EmbeddedStore.memory(options);
}
