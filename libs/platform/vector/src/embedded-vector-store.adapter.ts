/**
 * Embedded VectorStore: in-process hnswlib indexes, persisted under a directory (or memory only).
 * Writes apply to memory at once and reach disk on a flush at most `flushDelayMs` after the first
 * unsaved change, and on close(): a crash loses at most that window, never consistency (see
 * hnsw-collection.persistence.ts). One process must own a directory at a time.
 *
 * Points are searchable as soon as an upsert resolves, but join each index's HNSW graph later
 * (ADR 0033): the store indexes them in short steps once writes pause for `indexingIdleMs`, and a
 * write that leaves more than `indexingThresholdBytes` of vectors outside the graph indexes the
 * excess itself, which bounds the exact scan every query adds for them.
 */
import {
  DEFAULT_HNSW_TUNING,
  HnswCollection,
  type HnswTuning,
  type IndexablePoint,
} from './hnsw-collection.engine';
import {
  loadAliases,
  loadCollections,
  removeCollection,
  saveAliases,
  saveCollection,
} from './hnsw-collection.persistence';
import { compileVectorFilter, type PointPredicate } from './vector-filter.compiler';
import {
  assertIndexName,
  assertIndexParams,
  assertLimit,
  assertVector,
  canonicalPointId,
  clonePayload,
  dedupePointsLastWins,
} from './vector-input.validator';
import {
  VectorDimensionError,
  VectorIndexConflictError,
  VectorIndexNotFoundError,
  VectorStoreUnavailableError,
  VectorValidationError,
} from './vector-store.errors';
import type {
  VectorAlias,
  VectorHit,
  VectorIndexInfo,
  VectorIndexParams,
  VectorPoint,
  VectorPointId,
  VectorQuery,
  VectorScrollPage,
  VectorScrollRequest,
  VectorStore,
} from './vector-store.port';

export interface EmbeddedVectorStoreOptions {
  /** Directory holding one sub-directory per index; absent keeps everything in memory (tests). */
  dir?: string;
  /** Longest time a change stays only in memory (default 1000 ms). */
  flushDelayMs?: number;
  /** HNSW parameters; defaults M=16, efConstruction=200, efSearch=64, deferred indexing as in DEFAULT_HNSW_TUNING. */
  hnsw?: Partial<HnswTuning>;
}

interface CollectionState {
  collection: HnswCollection;
  /** Generation last committed to disk (0 = never saved). */
  generation: number;
}

export class EmbeddedVectorStore implements VectorStore {
  readonly backend = 'embedded' as const;
  private readonly dir: string | undefined;
  private readonly flushDelayMs: number;
  private readonly tuning: HnswTuning;
  private readonly collections = new Map<string, CollectionState>();
  /** alias -> index name; written to disk at once on every change (aliases change rarely and a switch must survive a crash). */
  private readonly aliases = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private readonly ready: Promise<void>;
  private loadError: unknown = null;
  private flushError: unknown = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private indexTimer: { cancel(): void } | null = null;
  /** When the last upsert arrived (performance.now()): background indexing waits for a pause. */
  private lastWriteAt = 0;
  private lastIndexStepAt = 0;
  private closed = false;
  /** Serialises mutations with flushes: the graph must not change while hnswlib writes it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: EmbeddedVectorStoreOptions = {}) {
    this.dir = options.dir;
    this.flushDelayMs = options.flushDelayMs ?? 1000;
    this.tuning = { ...DEFAULT_HNSW_TUNING, ...options.hnsw };
    this.ready = this.load().catch((err: unknown) => {
      this.loadError = err;
    });
  }

  async createIndex(name: string, params: VectorIndexParams): Promise<void> {
    assertIndexName(name);
    assertIndexParams(params);
    await this.exclusive(() => {
      if (this.aliases.has(name)) {
        throw new VectorValidationError(`"${name}" is an alias; an index cannot have the name of an alias`);
      }
      const existing = this.collections.get(name)?.collection;
      if (existing) {
        if (existing.dim !== params.dim || existing.distance !== params.distance) {
          throw new VectorIndexConflictError(
            name,
            { dim: existing.dim, distance: existing.distance },
            params,
          );
        }
        return;
      }
      const collection = HnswCollection.create(name, params.dim, params.distance, this.tuning);
      this.collections.set(name, { collection, generation: 0 });
      this.markDirty(name);
    });
  }

  async getIndex(name: string): Promise<VectorIndexInfo | null> {
    assertIndexName(name);
    await this.open();
    const c = this.resolve(name);
    return c ? { name: c.name, dim: c.dim, distance: c.distance, count: c.count } : null;
  }

  async listIndexes(): Promise<VectorIndexInfo[]> {
    await this.open();
    return [...this.collections.values()]
      .map(({ collection: c }) => ({ name: c.name, dim: c.dim, distance: c.distance, count: c.count }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async deleteIndex(name: string): Promise<boolean> {
    assertIndexName(name);
    return this.exclusive(async () => {
      const existed = this.collections.delete(name);
      this.dirty.delete(name);
      if (this.dir && existed) await removeCollection(this.dir, name);
      const orphaned = [...this.aliases].filter(([, target]) => target === name).map(([alias]) => alias);
      if (orphaned.length) {
        for (const alias of orphaned) this.aliases.delete(alias);
        await this.persistAliases();
      }
      return existed;
    });
  }

  async setAlias(alias: string, index: string): Promise<void> {
    assertIndexName(alias);
    assertIndexName(index);
    await this.exclusive(async () => {
      if (this.collections.has(alias)) {
        throw new VectorValidationError(`"${alias}" is an index; an alias cannot have the name of an index`);
      }
      if (!this.collections.has(index)) throw new VectorIndexNotFoundError(index);
      const previous = this.aliases.get(alias);
      if (previous === index) return;
      this.aliases.set(alias, index);
      try {
        await this.persistAliases();
      } catch (err) {
        // Not on disk means not switched: keep memory and disk telling the same story.
        if (previous === undefined) this.aliases.delete(alias);
        else this.aliases.set(alias, previous);
        throw err;
      }
    });
  }

  async deleteAlias(alias: string): Promise<boolean> {
    assertIndexName(alias);
    return this.exclusive(async () => {
      if (!this.aliases.delete(alias)) return false;
      await this.persistAliases();
      return true;
    });
  }

  async listAliases(): Promise<VectorAlias[]> {
    await this.open();
    return [...this.aliases]
      .map(([alias, index]) => ({ alias, index }))
      .sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
  }

  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    assertIndexName(name);
    if (!Array.isArray(points)) throw new VectorValidationError('points must be an array');
    // Everything except the dimension is checked before taking the lock, the dimension inside
    // it, and all before the first write, so a bad point never leaves the batch half-applied.
    const prepared: IndexablePoint[] = points.map((p) => {
      if (!p || typeof p !== 'object')
        throw new VectorValidationError('each point must be an object {id, vector, payload?}');
      const id = canonicalPointId(p.id);
      assertVector(name, p.vector);
      // The float32 copy the index keeps: the caller may reuse its array once this returns.
      return { id, vector: new Float32Array(p.vector), payload: clonePayload(p.payload) };
    });
    await this.exclusive(() => {
      const c = this.require(name);
      for (const p of prepared) if (p.vector.length !== c.dim) throw new VectorDimensionError(name, c.dim, p.vector.length);
      if (!prepared.length) return;
      c.upsert(dedupePointsLastWins(prepared));
      // Beyond the threshold the writer pays for the excess itself: that bounds the exact scan.
      if (c.pendingBytes > this.tuning.indexingThresholdBytes) c.indexPending(Infinity, this.tuning.indexingThresholdBytes);
      this.lastWriteAt = performance.now();
      this.markDirty(name);
      this.scheduleIndexing();
    });
  }

  async delete(name: string, ids: VectorPointId[]): Promise<void> {
    assertIndexName(name);
    if (!Array.isArray(ids)) throw new VectorValidationError('ids must be an array');
    const canonical = ids.map(canonicalPointId);
    await this.exclusive(() => {
      const c = this.require(name);
      const before = c.count;
      c.delete(canonical);
      if (c.count !== before) this.markDirty(name);
    });
  }

  async query(name: string, query: VectorQuery): Promise<VectorHit[]> {
    assertIndexName(name);
    if (!query || typeof query !== 'object')
      throw new VectorValidationError('query must be an object {vector, limit, filter?}');
    assertVector(name, query.vector);
    assertLimit(query.limit);
    if (query.ef !== undefined) assertLimit(query.ef, 'ef');
    const predicate = compileOptionalFilter(query.filter);
    await this.open();
    const c = this.require(name);
    // Its components were checked above; only the index's dimension is left to check.
    if (query.vector.length !== c.dim) throw new VectorDimensionError(name, c.dim, query.vector.length);
    return c.query(query.vector, query.limit, predicate, query.ef);
  }

  async scroll(name: string, request: VectorScrollRequest): Promise<VectorScrollPage> {
    assertIndexName(name);
    if (!request || typeof request !== 'object')
      throw new VectorValidationError('scroll request must be an object {limit, offset?, filter?}');
    assertLimit(request.limit);
    const offset =
      request.offset === undefined || request.offset === null ? null : canonicalPointId(request.offset);
    const predicate = compileOptionalFilter(request.filter);
    await this.open();
    const c = this.require(name);
    return c.scroll(
      request.limit,
      offset,
      predicate,
      request.withPayload ?? true,
      request.withVectors ?? false,
    );
  }

  async ping(): Promise<void> {
    await this.open();
    if (this.flushError) {
      throw new VectorStoreUnavailableError(
        `embedded vector store cannot persist to ${this.dir}: ${errorMessage(this.flushError)}`,
        {
          cause: this.flushError,
        },
      );
    }
  }

  /** Resolves once the directory is loaded; rejects with `VectorStoreUnavailableError` when it could not be (or the store is closed). */
  async opened(): Promise<void> {
    await this.open();
  }

  /**
   * Adds every pending point to its index's graph now, without waiting for a pause in writes
   * (benchmarks and tests that measure the graph; queries are correct either way).
   */
  async indexNow(): Promise<void> {
    await this.exclusive(() => {
      for (const [name, { collection }] of this.collections) {
        if (collection.pendingCount === 0) continue;
        collection.indexPending();
        this.markDirty(name);
      }
    });
  }

  /** Points of `name` (index or alias) not in its graph yet; 0 for an unknown name. */
  async pendingCount(name: string): Promise<number> {
    await this.open();
    return this.resolve(name)?.pendingCount ?? 0;
  }

  /** Writes every unsaved change to disk now (no-op in memory mode). */
  async flush(): Promise<void> {
    await this.open();
    await this.exclusive(() => this.flushDirty(), true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.cancelIndexing();
    try {
      if (!this.loadError) await this.exclusive(() => this.flushDirty(), true);
    } finally {
      this.collections.clear();
      this.aliases.clear();
      this.dirty.clear();
    }
  }

  private async load(): Promise<void> {
    if (!this.dir) return;
    for (const [alias, index] of Object.entries(await loadAliases(this.dir))) this.aliases.set(alias, index);
    for (const persisted of await loadCollections(this.dir)) {
      const { meta } = persisted;
      const collection = await HnswCollection.restore(
        meta.name,
        meta.dim,
        meta.distance,
        this.tuning,
        persisted.graphFile,
        persisted.entries,
        meta.nextLabel,
        persisted.pendingVectors,
      );
      this.collections.set(meta.name, { collection, generation: meta.generation });
    }
    // Points saved before they reached the graph are indexed like fresh writes.
    if ([...this.collections.values()].some((s) => s.collection.pendingCount > 0)) this.scheduleIndexing();
    // An alias whose index never committed (crash between create and first flush) points nowhere.
    for (const [alias, index] of this.aliases) if (!this.collections.has(index)) this.aliases.delete(alias);
  }

  private async persistAliases(): Promise<void> {
    if (!this.dir) return;
    try {
      await saveAliases(this.dir, Object.fromEntries(this.aliases));
    } catch (err) {
      throw new VectorStoreUnavailableError(`could not persist vector aliases: ${errorMessage(err)}`, { cause: err });
    }
  }

  /** The collection of an index name or alias. */
  private resolve(name: string): HnswCollection | undefined {
    const direct = this.collections.get(name)?.collection;
    if (direct) return direct;
    const target = this.aliases.get(name);
    return target === undefined ? undefined : this.collections.get(target)?.collection;
  }

  /** Waits for loading and rejects when the store is closed or could not load its directory. */
  private async open(): Promise<void> {
    await this.ready;
    if (this.closed) throw new VectorStoreUnavailableError('embedded vector store is closed');
    if (this.loadError) {
      throw new VectorStoreUnavailableError(
        `embedded vector store could not load ${this.dir}: ${errorMessage(this.loadError)}`,
        {
          cause: this.loadError,
        },
      );
    }
  }

  /** Runs `fn` after every earlier mutation and flush; `internal` skips the closed check (close's own flush). */
  private exclusive<T>(fn: () => T | Promise<T>, internal = false): Promise<T> {
    const run = this.queue.then(async () => {
      if (internal) await this.ready;
      else await this.open();
      return fn();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private require(name: string): HnswCollection {
    const c = this.resolve(name);
    if (!c) throw new VectorIndexNotFoundError(name);
    return c;
  }

  /** Marks an index (by name or alias) as changed since the last flush. */
  private markDirty(name: string): void {
    if (!this.dir) return;
    name = this.resolve(name)?.name ?? name;
    this.dirty.add(name);
    this.scheduleFlush();
  }

  // Not a sliding debounce: the timer starts at the first unsaved change and is not pushed back,
  // so a steady stream of writes still reaches disk every `flushDelayMs`.
  private scheduleFlush(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.exclusive(() => this.flushDirty()).catch(() => undefined);
    }, this.flushDelayMs);
    this.flushTimer.unref();
  }

  /** Runs one background indexing step `delay` ms from now, unless one is already due. */
  private scheduleIndexing(delay = this.tuning.indexingIdleMs): void {
    if (this.indexTimer || this.closed) return;
    const step = () => {
      this.indexTimer = null;
      void this.indexStep();
    };
    if (delay > 0) {
      const timer = setTimeout(step, delay).unref();
      this.indexTimer = { cancel: () => clearTimeout(timer) };
    } else {
      // Between steps, setImmediate lets the I/O that queued meanwhile (requests, writes) go first.
      const immediate = setImmediate(step).unref();
      this.indexTimer = { cancel: () => clearImmediate(immediate) };
    }
  }

  private cancelIndexing(): void {
    this.indexTimer?.cancel();
    this.indexTimer = null;
  }

  /**
   * One step of background indexing: at most `indexingSliceMs` of graph inserts for the first index
   * with pending points, then the next step, until every graph has caught up. While writes keep
   * arriving, steps slow to one per `indexingIdleMs` (4 % of the event loop at the defaults): a
   * burst of writes runs at full speed, and a steady trickle cannot starve the graph.
   */
  private async indexStep(): Promise<void> {
    if (this.closed) return;
    const idle = this.tuning.indexingIdleMs;
    const sinceStep = performance.now() - this.lastIndexStepAt;
    if (this.writing() && sinceStep < idle) return this.scheduleIndexing(Math.ceil(idle - sinceStep));
    let more = false;
    try {
      more = await this.exclusive(() => {
        for (const [name, { collection }] of this.collections) {
          if (collection.pendingCount === 0) continue;
          collection.indexPending(this.tuning.indexingSliceMs);
          // Saved once the tail is drained, not after every step: until then the saved tail is as good.
          if (collection.pendingCount === 0) this.markDirty(name);
          return true;
        }
        return false;
      });
    } catch {
      return; // closed meanwhile
    }
    this.lastIndexStepAt = performance.now();
    if (more) this.scheduleIndexing(this.writing() ? idle : 0);
  }

  /** True while writes arrive less than `indexingIdleMs` apart. */
  private writing(): boolean {
    return performance.now() - this.lastWriteAt < this.tuning.indexingIdleMs;
  }

  private async flushDirty(): Promise<void> {
    if (!this.dir) return;
    const dir = this.dir;
    for (const name of [...this.dirty]) {
      const state = this.collections.get(name);
      if (!state) {
        this.dirty.delete(name);
        continue;
      }
      const { entries, pendingVectors, nextLabel } = state.collection.snapshot();
      const generation = state.generation + 1;
      try {
        await saveCollection(
          dir,
          {
            format: 1,
            name,
            dim: state.collection.dim,
            distance: state.collection.distance,
            generation,
            nextLabel,
            count: entries.length,
            pending: pendingVectors.length,
          },
          entries,
          (file) => state.collection.writeGraph(file),
          pendingVectors,
        );
      } catch (err) {
        // Keep the index dirty and retry on the next timer; /readyz reports the failure meanwhile.
        this.flushError = err;
        this.scheduleFlush();
        throw new VectorStoreUnavailableError(
          `could not persist vector index "${name}": ${errorMessage(err)}`,
          { cause: err },
        );
      }
      state.generation = generation;
      this.dirty.delete(name);
    }
    this.flushError = null;
  }
}

/** Embedded VectorStore under `dir` (loaded before it resolves; rejects when the directory cannot be read), or in memory when `dir` is absent. */
export async function createEmbeddedVectorStore(
  options: EmbeddedVectorStoreOptions = {},
): Promise<EmbeddedVectorStore> {
  const store = new EmbeddedVectorStore(options);
  await store.opened();
  return store;
}

function compileOptionalFilter(filter: unknown): PointPredicate | undefined {
  return filter === undefined || filter === null ? undefined : compileVectorFilter(filter);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
