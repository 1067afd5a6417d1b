/**
 * One embedded index: an hnswlib HierarchicalNSW graph plus the maps between external point ids,
 * hnswlib's integer labels and payloads. Inputs arrive validated (canonical ids, cloned payloads,
 * checked vectors); this class only does the indexing and search.
 *
 * Like a Qdrant collection with an unindexed segment, an upsert does not touch the graph: the point
 * joins a pending tail (its vector kept as a Float32Array) and is searchable at once, a query
 * merging the graph's hits with an exact scan of the tail. `indexPending()` moves tail points into
 * the graph; the store calls it off the write path (when writes pause, or on the write path only
 * for what exceeds the indexing threshold). See ADR 0033.
 */
import { HierarchicalNSW, type SpaceName } from 'hnswlib-node';
import { comparePointIds, pointIdKey } from './vector-input.validator';
import { VectorStoreUnavailableError } from './vector-store.errors';
import type { PointPredicate } from './vector-filter.compiler';
import type {
  VectorDistance,
  VectorHit,
  VectorPayload,
  VectorPointId,
  VectorScrollPage,
  VectorScrolledPoint,
} from './vector-store.port';

/** HNSW and search tuning of the embedded adapter. */
export interface HnswTuning {
  /** Graph degree (hnswlib `M`). */
  m: number;
  /** Build-time candidate list size. */
  efConstruction: number;
  /** Query-time candidate list size; raised to `limit` when a query asks for more. */
  efSearch: number;
  /** Slots allocated when an index is created; the graph doubles when full. */
  initialCapacity: number;
  /** At or below this many candidate points a query scans them exactly instead of walking the graph. */
  exactSearchThreshold: number;
  /**
   * Vector bytes (dim x 4 per point) an index may hold outside the graph, searched exactly, before
   * the write path itself indexes the excess (Qdrant's `indexing_threshold_kb`, in bytes here).
   * 0 indexes every write at once.
   */
  indexingThresholdBytes: number;
  /** Pending points are indexed in the background once no write has arrived for this long. */
  indexingIdleMs: number;
  /** Longest stretch one background indexing step holds the event loop. */
  indexingSliceMs: number;
}

// Measured on 20k clustered vectors (notes/infra-facts.md): M=16, efC=200, ef=50 gives recall@10 ≈ 0.9998.
export const DEFAULT_HNSW_TUNING: HnswTuning = {
  m: 16,
  efConstruction: 200,
  efSearch: 64,
  initialCapacity: 1024,
  exactSearchThreshold: 1000,
  // About 21,000 points of 768 dimensions; an exact scan of that many takes ~15 ms on one core.
  indexingThresholdBytes: 64_000 * 1024,
  indexingIdleMs: 100,
  indexingSliceMs: 4,
};

// A filter matching less than this share of the points makes hnswlib's filtered walk visit
// roughly (1 / share) times more nodes than it returns; scanning the matches exactly is cheaper.
const FILTERED_GRAPH_MIN_SHARE = 0.1;
const SHARE_SAMPLE = 512;
const MIN_SHARE_SAMPLE = 32;
const GOLDEN_RATIO_FRACTION = 0.6180339887498949;
const MAX_LABEL = 0xffff_ffff; // hnswlib-node passes labels as uint32
const RANDOM_SEED = 100;

const SPACES: Record<VectorDistance, SpaceName> = { cosine: 'cosine', dot: 'ip', euclid: 'l2' };

/** What persistence stores per point besides the graph. */
export interface StoredEntry {
  id: VectorPointId;
  label: number;
  payload: VectorPayload;
  /** Not in the graph yet: its vector is persisted beside it, not in the graph file. */
  pending?: boolean;
}

interface Entry extends StoredEntry {
  key: string;
  /**
   * The stored (for cosine, normalised) vector. Always set while the point is pending; for an
   * indexed point, copied out of the graph the first time an exact scan of a small collection
   * reads it: reading it from hnswlib allocates a fresh array per call.
   */
  vector?: Float32Array;
  /** Every component of the stored vector is finite; unknown until a sparse scan first needs it. */
  finite?: boolean;
}

/** A validated point ready to index. */
export interface IndexablePoint {
  id: VectorPointId;
  /** A Float32Array is taken over as the stored vector (normalised in place for cosine), an array copied. */
  vector: number[] | Float32Array;
  payload: VectorPayload;
}

export class HnswCollection {
  private readonly byKey = new Map<string, Entry>();
  private readonly byLabel = new Map<number, Entry>();
  /** Entries in scroll order; rebuilt lazily after ids are added or removed. */
  private sorted: Entry[] | null = null;
  /** Points not in the graph yet, by label, oldest first (the order they are indexed in). */
  private readonly pending = new Map<number, Entry>();

  private constructor(
    readonly name: string,
    readonly dim: number,
    readonly distance: VectorDistance,
    private readonly graph: HierarchicalNSW,
    private readonly tuning: HnswTuning,
    /** Next never-used label; labels are not reused so a stale label can never alias another point. */
    private nextLabel: number,
  ) {}

  /** A new empty index. */
  static create(name: string, dim: number, distance: VectorDistance, tuning: HnswTuning): HnswCollection {
    const graph = new HierarchicalNSW(SPACES[distance], dim);
    // allowReplaceDeleted: inserts reuse the slots of deleted points, so churn does not grow memory.
    graph.initIndex(tuning.initialCapacity, tuning.m, tuning.efConstruction, RANDOM_SEED, true);
    return new HnswCollection(name, dim, distance, graph, tuning, 0);
  }

  /** Restores an index from a graph file written by `writeGraph` and its entries. */
  static async restore(
    name: string,
    dim: number,
    distance: VectorDistance,
    tuning: HnswTuning,
    graphFile: string,
    entries: StoredEntry[],
    nextLabel: number,
    /** Vectors of the entries flagged `pending`, in their order. */
    pendingVectors: Float32Array[] = [],
  ): Promise<HnswCollection> {
    const graph = new HierarchicalNSW(SPACES[distance], dim);
    await graph.readIndex(graphFile, true);
    if (graph.getNumDimensions() !== dim) {
      throw new Error(`graph file ${graphFile} has dimension ${graph.getNumDimensions()}, expected ${dim}`);
    }
    const collection = new HnswCollection(name, dim, distance, graph, tuning, nextLabel);
    let p = 0;
    for (const e of entries) {
      const entry: Entry = { id: e.id, label: e.label, payload: e.payload, key: pointIdKey(e.id) };
      if (e.pending) {
        const vector = pendingVectors[p++];
        if (!vector || vector.length !== dim) throw new Error(`pending vector ${p - 1} of "${name}" is missing or has the wrong dimension`);
        entry.pending = true;
        entry.vector = vector;
      }
      collection.track(entry);
    }
    if (p !== pendingVectors.length) throw new Error(`"${name}" has ${pendingVectors.length} pending vectors for ${p} pending points`);
    return collection;
  }

  /** Number of live points. */
  get count(): number {
    return this.byKey.size;
  }

  /** Live points not in the graph yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Vector bytes of the pending points (what the indexing threshold bounds). */
  get pendingBytes(): number {
    return this.pending.size * this.dim * 4;
  }

  /**
   * Inserts or replaces points (vector and payload). They join the pending tail, searchable at
   * once; a point already in the graph leaves it (its old vector must not answer any more).
   */
  upsert(points: IndexablePoint[]): void {
    for (const p of points) {
      const key = pointIdKey(p.id);
      const vector = this.storedVector(p.vector);
      const existing = this.byKey.get(key);
      if (existing) {
        existing.payload = p.payload;
        existing.vector = vector;
        existing.finite = undefined;
        if (existing.pending) continue;
        // A fresh label for the new version: the graph's slot becomes a tombstone that the next
        // insert reuses, so updates do not grow memory.
        this.graph.markDelete(existing.label);
        this.byLabel.delete(existing.label);
        existing.label = this.takeLabel();
        existing.pending = true;
        this.byLabel.set(existing.label, existing);
        this.pending.set(existing.label, existing);
        continue;
      }
      const entry: Entry = { id: p.id, key, label: this.takeLabel(), payload: p.payload, pending: true, vector };
      this.track(entry);
    }
  }

  /** Removes points; unknown ids are ignored. */
  delete(ids: VectorPointId[]): void {
    for (const id of ids) {
      const entry = this.byKey.get(pointIdKey(id));
      if (!entry) continue;
      if (entry.pending) this.pending.delete(entry.label);
      else this.graph.markDelete(entry.label);
      this.byKey.delete(entry.key);
      this.byLabel.delete(entry.label);
      this.sorted = null;
    }
  }

  /**
   * Adds pending points to the graph, oldest first, until at most `keepBytes` of vectors remain
   * pending or `budgetMs` has passed (after at least one point). Returns how many it indexed.
   */
  indexPending(budgetMs = Infinity, keepBytes = 0): number {
    const started = performance.now();
    const perPoint = this.dim * 4;
    let indexed = 0;
    for (const [label, e] of this.pending) {
      if (this.pending.size * perPoint <= keepBytes) break;
      this.ensureCapacity();
      // hnswlib takes plain arrays only.
      this.graph.addPoint(Array.from(e.vector as Float32Array), label, true);
      this.pending.delete(label);
      e.pending = false;
      // Large collections read vectors from the graph when they scan; small ones keep the copy.
      if (this.byKey.size > this.tuning.exactSearchThreshold) e.vector = undefined;
      indexed++;
      if (performance.now() - started >= budgetMs) break;
    }
    return indexed;
  }

  /**
   * The `limit` nearest points matching `predicate`, best first. Small pools are scanned exactly.
   * A filter that matches a large share of the points is applied inside the graph walk (hnswlib's
   * filter callback); a selective one is cheaper to answer by scanning just its matches, and
   * scanning also guarantees `limit` hits whenever that many points match.
   */
  query(vector: number[], limit: number, predicate?: PointPredicate, ef?: number): VectorHit[] {
    const total = this.byKey.size;
    if (total === 0) return [];
    const threshold = this.tuning.exactSearchThreshold;
    const indexed = total - this.pending.size;
    if (!predicate) {
      const k = Math.min(limit, total);
      const all = (): Entry[] => [...this.byKey.values()];
      if (total <= threshold) return this.exactSearch(vector, k, all());
      const fromGraph = indexed > 0 ? this.graphSearch(vector, Math.min(k, indexed), undefined, ef) : [];
      if (!fromGraph) return this.exactSearch(vector, k, all());
      return this.withPending(vector, k, fromGraph);
    }
    if (total > threshold && indexed > 0 && this.estimateShare(predicate) >= FILTERED_GRAPH_MIN_SHARE) {
      // The graph holds only indexed labels; pending matches come from the exact scan below.
      const hits = this.graphSearch(
        vector,
        Math.min(limit, indexed),
        (label) => {
          const e = this.byLabel.get(label);
          return e !== undefined && predicate(e.id, e.payload);
        },
        ef,
      );
      if (hits) return this.withPending(vector, Math.min(limit, total), hits, predicate);
      // Fewer matches reachable than asked for: the exact scan below settles it.
    }
    const candidates: Entry[] = [];
    for (const e of this.byKey.values()) if (predicate(e.id, e.payload)) candidates.push(e);
    return this.exactSearch(vector, Math.min(limit, candidates.length), candidates);
  }

  /** The graph's hits merged with an exact scan of the pending points (matching `predicate`). */
  private withPending(vector: number[], k: number, fromGraph: VectorHit[], predicate?: PointPredicate): VectorHit[] {
    if (this.pending.size === 0) return fromGraph;
    const tail: Entry[] = [];
    for (const e of this.pending.values()) if (!predicate || predicate(e.id, e.payload)) tail.push(e);
    if (!tail.length) return fromGraph;
    const merged = fromGraph.concat(this.exactSearch(vector, Math.min(k, tail.length), tail));
    return merged.sort((a, b) => this.compareHits(a, b)).slice(0, k);
  }

  /** One page of points in id order starting at `offset` (inclusive). */
  scroll(
    limit: number,
    offset: VectorPointId | null,
    predicate: PointPredicate | undefined,
    withPayload: boolean,
    withVectors: boolean,
  ): VectorScrollPage {
    const sorted = this.sortedEntries();
    let i = offset === null ? 0 : lowerBound(sorted, offset);
    const points: VectorScrolledPoint[] = [];
    for (; i < sorted.length && points.length < limit; i++) {
      const e = sorted[i];
      if (predicate && !predicate(e.id, e.payload)) continue;
      const point: VectorScrolledPoint = { id: e.id };
      if (withPayload) point.payload = structuredClone(e.payload);
      if (withVectors) point.vector = e.pending ? Array.from(e.vector as Float32Array) : this.graph.getPoint(e.label);
      points.push(point);
    }
    // The next page starts at the next matching id, so `nextOffset` is null exactly on the last page.
    for (; i < sorted.length; i++) {
      const e = sorted[i];
      if (!predicate || predicate(e.id, e.payload)) return { points, nextOffset: e.id };
    }
    return { points, nextOffset: null };
  }

  /** Entries, the vectors of the pending ones (in entry order) and the label counter for persistence. */
  snapshot(): { entries: StoredEntry[]; pendingVectors: Float32Array[]; nextLabel: number } {
    const entries: StoredEntry[] = [];
    const pendingVectors: Float32Array[] = [];
    for (const { id, label, payload, pending, vector } of this.byKey.values()) {
      if (pending) {
        entries.push({ id, label, payload, pending: true });
        pendingVectors.push(vector as Float32Array);
      } else entries.push({ id, label, payload });
    }
    return { entries, pendingVectors, nextLabel: this.nextLabel };
  }

  /** Writes the graph (with its tombstones) to `file`. */
  async writeGraph(file: string): Promise<void> {
    await this.graph.writeIndex(file);
  }

  private track(entry: Entry): void {
    this.byKey.set(entry.key, entry);
    this.byLabel.set(entry.label, entry);
    if (entry.pending) this.pending.set(entry.label, entry);
    this.sorted = null;
  }

  private takeLabel(): number {
    if (this.nextLabel > MAX_LABEL) {
      throw new VectorStoreUnavailableError(`vector index "${this.name}" ran out of labels; rebuild it`);
    }
    return this.nextLabel++;
  }

  /** The vector as the graph would store it: float32, normalised for cosine (as hnswlib does). */
  private storedVector(v: number[] | Float32Array): Float32Array {
    if (this.distance !== 'cosine') return v instanceof Float32Array ? v : new Float32Array(v);
    const out = v instanceof Float32Array ? v : new Float32Array(v.length);
    let sum = 0;
    for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
    const norm = Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) out[i] = norm > 0 ? v[i] / norm : v[i];
    return out;
  }

  private ensureCapacity(): void {
    const slots = this.graph.getCurrentCount();
    const tombstones = slots - (this.byKey.size - this.pending.size);
    // A tombstone is reused by the next insert, so only a graph without any needs to grow.
    if (tombstones === 0 && slots >= this.graph.getMaxElements()) {
      this.graph.resizeIndex(Math.max(this.tuning.initialCapacity, this.graph.getMaxElements() * 2));
    }
  }

  /** Graph search for `k` hits, or null when the graph yields fewer (callers then scan exactly). */
  private graphSearch(vector: number[], k: number, filter?: (label: number) => boolean, ef?: number): VectorHit[] | null {
    this.graph.setEf(Math.max(ef ?? this.tuning.efSearch, k));
    const found = filter ? this.graph.searchKnn(vector, k, filter) : this.graph.searchKnn(vector, k);
    // The graph can come up short (heavy deletion can leave regions unreachable, or few points
    // match): callers are promised `limit` hits whenever that many points match.
    if (found.neighbors.length < k) return null;
    const hits: VectorHit[] = [];
    for (let i = 0; i < found.neighbors.length; i++) {
      const entry = this.byLabel.get(found.neighbors[i]);
      if (entry) hits.push(this.hit(entry, this.scoreFromDistance(found.distances[i])));
    }
    return hits.sort((a, b) => this.compareHits(a, b));
  }

  /**
   * Share of points matching `predicate`, estimated from up to SHARE_SAMPLE labels picked by a
   * golden-ratio sequence (deterministic, spread over the whole label range, and not in step with
   * periodic id patterns the way a fixed stride would be). O(sample), not a pass over every payload.
   */
  private estimateShare(predicate: PointPredicate): number {
    const span = this.nextLabel;
    const probes = Math.min(span, SHARE_SAMPLE);
    let seen = 0;
    let matched = 0;
    for (let i = 0; i < probes; i++) {
      const e = this.byLabel.get(Math.floor(((i * GOLDEN_RATIO_FRACTION) % 1) * span));
      if (!e) continue;
      seen++;
      if (predicate(e.id, e.payload)) matched++;
    }
    // Labels mostly deleted: no reliable sample, so take the exact path.
    return seen < MIN_SHARE_SAMPLE ? 0 : matched / seen;
  }

  private exactSearch(vector: number[], k: number, entries: Entry[]): VectorHit[] {
    if (k <= 0) return [];
    const euclid = this.distance === 'euclid';
    const norm = this.distance === 'cosine' ? l2Norm(vector) : 0;
    // A sparse query (feature-hashing embedders, for one) is scored on its non-zero components
    // only, normalised there; a dense copy of it is made only when it is dense.
    const sparse = euclid ? null : sparseSupport(vector, norm);
    const dense = sparse !== null ? null : norm > 0 ? normalize(vector, norm) : vector;
    // Small collections keep their vectors beside the graph (at most exactSearchThreshold of them);
    // a filtered scan of a large one reads each candidate from the graph instead.
    const keep = this.byKey.size <= this.tuning.exactSearchThreshold;
    // The k best so far, best first (k is a page size: insertion beats sorting every candidate).
    const best: Array<{ id: VectorPointId; entry: Entry; score: number }> = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      let stored: ArrayLike<number> | undefined = e.vector;
      if (stored === undefined) {
        const point = this.graph.getPoint(e.label);
        if (keep) e.vector = Float32Array.from(point);
        stored = point;
      }
      const score = sparse !== null && (e.finite ??= allFinite(stored)) ? sparseDot(sparse, stored) : this.exactScore(dense ?? (sparse as SparseQuery).dense(), stored);
      if (best.length === k) {
        // Most candidates lose to the current k-th: rejected before any allocation.
        const worst = best[k - 1];
        const behind = euclid ? score - worst.score : worst.score - score;
        if (behind > 0 || (behind === 0 && comparePointIds(e.id, worst.id) >= 0)) continue;
      }
      const candidate = { id: e.id, entry: e, score };
      let at = best.length === k ? k - 1 : best.length;
      while (at > 0 && this.compareHits(candidate, best[at - 1]) < 0) {
        best[at] = best[at - 1];
        at--;
      }
      best[at] = candidate;
    }
    return best.map((s) => this.hit(s.entry, s.score));
  }

  private exactScore(query: number[], stored: ArrayLike<number>): number {
    if (this.distance === 'euclid') {
      let sum = 0;
      for (let i = 0; i < query.length; i++) {
        const d = query[i] - stored[i];
        sum += d * d;
      }
      return Math.sqrt(sum);
    }
    let dot = 0;
    for (let i = 0; i < query.length; i++) dot += query[i] * stored[i];
    return dot;
  }

  /** hnswlib distances are `1 - cos`, `1 - dot` and squared L2; scores are Qdrant's numbers. */
  private scoreFromDistance(d: number): number {
    return this.distance === 'euclid' ? Math.sqrt(Math.max(0, d)) : 1 - d;
  }

  private compareHits(
    a: { id: VectorPointId; score: number },
    b: { id: VectorPointId; score: number },
  ): number {
    const byScore = this.distance === 'euclid' ? a.score - b.score : b.score - a.score;
    return byScore !== 0 ? byScore : comparePointIds(a.id, b.id);
  }

  private hit(entry: Entry, score: number): VectorHit {
    return { id: entry.id, score, payload: cloneJson(entry.payload) as VectorPayload };
  }

  private sortedEntries(): Entry[] {
    if (!this.sorted) this.sorted = [...this.byKey.values()].sort((a, b) => comparePointIds(a.id, b.id));
    return this.sorted;
  }
}

/*
 * A query from a hashing embedder (local-hash) is mostly zeros, and the exact scan then visits only
 * its non-zero components. That is the same left-to-right sum as `exactScore`, to the bit: a zero
 * component times a finite one adds ±0, which leaves a running sum unchanged (and one starting at
 * +0 never becomes -0). A stored vector with a non-finite component (a float32 overflow) is summed
 * in full, so that its 0 x Infinity still gives the NaN it always did.
 */

/** A sparse query: the indices of its non-zero components and their values (normalised when `norm` > 0). */
interface SparseQuery {
  indices: Int32Array;
  values: Float64Array;
  /** The whole query as the dense path scores it (made on first use: only for stored vectors that are not all finite). */
  dense(): number[];
}

/** The query as a SparseQuery when at most half of its components are non-zero, else null. */
function sparseSupport(q: number[], norm: number): SparseQuery | null {
  let count = 0;
  const n = q.length;
  for (let i = 0; i < n; i++) if (q[i] !== 0) count++;
  if (count * 2 > n) return null;
  const indices = new Int32Array(count);
  const values = new Float64Array(count);
  for (let i = 0, j = 0; i < n; i++) {
    if (q[i] === 0) continue;
    indices[j] = i;
    values[j++] = norm > 0 ? q[i] / norm : q[i];
  }
  let dense: number[] | undefined;
  return { indices, values, dense: () => (dense ??= norm > 0 ? normalize(q, norm) : q) };
}

function sparseDot(q: SparseQuery, s: ArrayLike<number>): number {
  const { indices, values } = q;
  let dot = 0;
  for (let j = 0; j < indices.length; j++) dot += values[j] * s[indices[j]];
  return dot;
}

function allFinite(v: ArrayLike<number>): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

function l2Norm(v: number[]): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
}

/** `v` divided by its norm (hnswlib leaves a zero vector as is, similarity 0 with everything, and so does Qdrant: callers pass norm > 0). */
function normalize(v: number[], norm: number): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / norm;
  return out;
}

/** Below this depth cloneJson recurses in JS; deeper subtrees go to structuredClone, which needs no JS stack. */
const CLONE_JS_DEPTH = 64;

/**
 * A deep copy of a JSON value (stored payloads are JSON round-tripped, so plain objects, arrays
 * and primitives only). Several times cheaper than structuredClone for the small objects payloads
 * are. An own `__proto__` key (JSON.parse makes one) is copied as a property, not as a prototype.
 */
export function cloneJson(v: unknown, depth = 0): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth >= CLONE_JS_DEPTH) return structuredClone(v);
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i], depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = cloneJson((v as Record<string, unknown>)[k], depth + 1);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

function lowerBound(sorted: Entry[], id: VectorPointId): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePointIds(sorted[mid].id, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
