import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyedSerial, SERVICE_CONFIG, type ServiceConfig, VECTOR_STORE } from '@flowplane/platform/service';
import {
  type VectorDistance,
  type VectorFilter,
  type VectorIndexInfo,
  type VectorPoint,
  type VectorPointId,
  type VectorStore,
  VectorFilterError,
  VectorDimensionError,
  VectorIndexConflictError,
  VectorIndexNotFoundError,
  VectorStoreError,
  documentFromPoint,
  documentToPoint,
  normalizeVectorFilter,
  type NormalizeFilterOptions,
  ORIGINAL_ID_KEY,
  pointIdForDocument,
  scrollPages,
} from '@flowplane/platform/vector';
import { SearchOwners } from '../freshness/search-owners.registry';
import type { SearchEnv } from '../search.env';
import { type EffectiveSearchSettings, SearchSettings } from '../settings/search-settings.service';
import { EmbeddingService } from './embedding.service';
import { SearchException } from './search.errors';
import { INDEX_NAME, type SearchDocument, type SearchIndexView, type SearchQuery, type SearchResult } from './search.types';

/** Suffix of the collections an index lives in: `<prefix><name>.g<generation>`, named by the alias `<prefix><name>`. */
const GENERATION = /\.g[0-9a-z]+$/;

/** Status snapshot of `GET /search/status`. */
export interface SearchStatus {
  backend: string;
  prefix: string;
  embeddingProvider: string;
  embeddingModel: string;
  embeddingDimension: number;
  defaultDistance: VectorDistance;
  defaultLimit: number;
  maxLimit: number;
}

/**
 * The search domain (spec "What the service does" item 3, rules 6 to 9), written once against the
 * VectorStore port.
 *
 * Names: a logical index `name` is the backend name `<prefix><name>` (prefix from
 * `search.index_prefix`); listings strip the prefix and hide everything under another one.
 * Each index lives in ONE collection `<prefix><name>.g<generation>` reached through the alias
 * `<prefix><name>`; a reindex builds the next generation beside it and moves the alias in one
 * atomic step, so queries never see a half-built index. A plain collection `<prefix><name>` made
 * outside this service is served as well (its first reindex replaces it by an alias).
 */
@Injectable()
export class SearchService {
  private readonly log = new Logger('Search');
  /** Backend name -> generation being built by a reindex; writes during the build land there too. */
  private readonly building = new Map<string, { collection: string; written: Set<string> }>();
  /** Serialises create, delete and reindex per backend name. */
  private readonly locks = new KeyedSerial();
  private lastGeneration = 0;

  constructor(
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
    private readonly settings: SearchSettings,
    private readonly embeddings: EmbeddingService,
    private readonly owners: SearchOwners,
  ) {}

  async status(): Promise<SearchStatus> {
    const s = await this.settings.current();
    let model = s.embeddingModel;
    try {
      model = this.embeddings.embedderFor(s).model;
    } catch {
      // A misconfigured provider still gets a status answer; queries report the problem.
    }
    return {
      backend: this.store.backend,
      prefix: s.indexPrefix,
      embeddingProvider: s.embeddingProvider,
      embeddingModel: model,
      embeddingDimension: this.config.SEARCH_EMBEDDING_DIM,
      defaultDistance: s.defaultDistance,
      defaultLimit: s.defaultLimit,
      maxLimit: this.config.SEARCH_MAX_LIMIT,
    };
  }

  /** Indexes under the current prefix, prefix stripped, sorted by name. */
  async listIndexes(): Promise<SearchIndexView[]> {
    const { indexPrefix: prefix } = await this.settings.current();
    const [collections, aliases] = await Promise.all([this.store.listIndexes(), this.store.listAliases()]);
    const byName = new Map<string, VectorIndexInfo>(collections.map((c) => [c.name, c]));
    const out = new Map<string, SearchIndexView>();
    for (const c of collections) {
      const name = this.logicalName(c.name, prefix);
      if (name !== undefined && !GENERATION.test(c.name)) out.set(name, view(name, c));
    }
    for (const a of aliases) {
      const name = this.logicalName(a.alias, prefix);
      const target = byName.get(a.index);
      if (name !== undefined && target) out.set(name, view(name, target));
    }
    return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async getIndex(name: string): Promise<SearchIndexView> {
    const full = await this.backendName(name);
    return this.named(name, full, async () => {
      const info = await this.store.getIndex(full);
      if (!info) throw notFound(name);
      return view(name, info);
    });
  }

  /** Creates an index; idempotent for the same dim and distance (`created: false`), 400 when they differ. */
  async createIndex(name: string, dim: number, distance?: VectorDistance): Promise<SearchIndexView & { created: boolean }> {
    const settings = await this.settings.current();
    const full = this.backendNameWith(name, settings);
    const wanted = { dim, distance: distance ?? settings.defaultDistance };
    return this.locks.run(full, () => this.named(name, full, async () => {
      const existing = await this.store.getIndex(full);
      if (existing) {
        if (existing.dim !== wanted.dim || existing.distance !== wanted.distance) {
          throw new SearchException(
            'VECTOR_INDEX_CONFLICT',
            400,
            `index "${name}" already exists with dim ${existing.dim} and distance ${existing.distance}; requested dim ${wanted.dim} and distance ${wanted.distance}`,
          );
        }
        return { ...view(name, existing), created: false };
      }
      const collection = this.nextGeneration(full);
      await this.store.createIndex(collection, wanted);
      await this.store.setAlias(full, collection);
      return { name, dim: wanted.dim, distance: wanted.distance, points: 0, created: true };
    }));
  }

  /** Removes the index with all its points (and any generation a crashed rebuild left behind). */
  async deleteIndex(name: string): Promise<void> {
    const full = await this.backendName(name);
    await this.locks.run(full, () => this.named(name, full, async () => {
      const info = await this.store.getIndex(full);
      if (!info) throw notFound(name);
      await this.store.deleteIndex(info.name);
      await this.store.deleteAlias(full);
      for (const c of await this.store.listIndexes()) {
        if (c.name.startsWith(`${full}.g`) && GENERATION.test(c.name)) await this.store.deleteIndex(c.name);
      }
    }));
  }

  /** Embeds the text documents (one call) and upserts the batch; 400 for an invalid document, nothing written then. */
  async upsert(name: string, documents: SearchDocument[]): Promise<{ index: string; upserted: number; embedded: number }> {
    const settings = await this.settings.current();
    const full = this.backendNameWith(name, settings);
    if (documents.length > this.config.SEARCH_MAX_BATCH) {
      throw badRequest(`at most ${this.config.SEARCH_MAX_BATCH} documents per request, got ${documents.length}`);
    }
    return this.named(name, full, async () => {
      const info = await this.store.getIndex(full);
      if (!info) throw notFound(name);
      const points = await this.toPoints(name, info, documents, settings);
      await this.write(full, (target) => this.store.upsert(target, points), points.map((p) => p.id));
      return { index: name, upserted: points.length, embedded: documents.filter((d) => d.text !== undefined).length };
    });
  }

  /** Deletes documents by id; unknown ids are ignored. */
  async deleteDocuments(name: string, ids: Array<string | number>): Promise<{ index: string; requested: number }> {
    const full = await this.backendName(name);
    if (ids.length > this.config.SEARCH_MAX_BATCH) throw badRequest(`at most ${this.config.SEARCH_MAX_BATCH} ids per request, got ${ids.length}`);
    const pointIds = ids.map((id, i) => withPath(`ids[${i}]`, () => pointIdForDocument(id)));
    await this.named(name, full, () => this.write(full, (target) => this.store.delete(target, pointIds), pointIds));
    return { index: name, requested: ids.length };
  }

  /** Nearest neighbours by text or vector, with the payload shortcut and the filter combined. */
  async query(name: string, q: SearchQuery): Promise<SearchResult> {
    const settings = await this.settings.current();
    const full = this.backendNameWith(name, settings);
    const hasText = q.text !== undefined && q.text !== null;
    const hasVector = q.vector !== undefined && q.vector !== null;
    if (hasText === hasVector) throw badRequest('a query needs exactly one of text or vector');
    if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1)) throw badRequest(`limit must be a positive integer, got ${String(q.limit)}`);
    const limit = Math.min(q.limit ?? settings.defaultLimit, this.config.SEARCH_MAX_LIMIT);
    // Qdrant gets the filter verbatim (spec); the embedded backend only what it evaluates.
    const filter = combineFilters(q.payload, q.filter, { verbatim: this.store.backend === 'vectordb' });
    const found = await this.named(name, full, async () => {
      let vector = q.vector;
      if (hasText) {
        const info = await this.store.getIndex(full);
        if (!info) throw notFound(name);
        [vector] = await this.embedChecked(name, info.dim, [q.text as string], settings);
      }
      return this.store.query(full, { vector: vector as number[], limit, filter });
    });
    const hits = found.map((h) => {
      const doc = documentFromPoint(h.id, h.payload);
      return { id: doc.id, score: h.score, payload: doc.payload };
    });
    return { index: name, hits, limit, exhausted: hits.length < limit };
  }

  /**
   * Rebuilds the index from its owner into a fresh generation, then moves the alias (spec rule
   * 8b); 501 without an owner. Queries answer from the old generation until the switch. Writes
   * made during the build go to both generations. Afterwards PruneStale runs best effort.
   */
  async reindex(name: string): Promise<{ index: string; documents: number; status: 'ok'; pruned: number | null }> {
    const settings = await this.settings.current();
    const full = this.backendNameWith(name, settings);
    const owner = this.owners.reindexerOf(name);
    if (!owner) throw new SearchException('SEARCH_NO_OWNER', 501, `index "${name}" has no registered owner to rebuild it from`);
    return this.locks.run(full, () => this.named(name, full, async () => {
      const existing = await this.store.getIndex(full);
      const params = existing
        ? { dim: existing.dim, distance: existing.distance }
        : { dim: owner.dim ?? this.embeddings.embedderFor(settings).dimension, distance: owner.distance ?? settings.defaultDistance };
      const collection = this.nextGeneration(full);
      await this.store.createIndex(collection, params);
      const written = new Set<string>();
      this.building.set(full, { collection, written });
      let documents = 0;
      let staleInOld: number | null = 0;
      const indexed = new Set<string>();
      try {
        for await (const batch of owner.documents()) {
          const points = await this.toPoints(name, { name: collection, ...params, count: 0 }, batch, settings);
          await this.store.upsert(collection, points);
          for (const p of points) indexed.add(pointKey(p.id));
          documents += points.length;
        }
        // The rebuilt generation never holds the stale points: they go with the old one at the
        // switch, so they are counted there, or the answer would say nothing was pruned.
        staleInOld = existing ? await this.countStale(full, new Set([...indexed, ...written])).catch((err: Error) => {
          this.log.warn(`counting the stale points of "${name}" failed (the rebuild goes on): ${err.message}`);
          return null;
        }) : 0;
        await this.switchAlias(full, collection, existing);
      } catch (err) {
        this.building.delete(full);
        await this.store.deleteIndex(collection).catch(() => undefined);
        throw err;
      }
      this.building.delete(full);
      let pruned: number | null = null;
      try {
        const after = await this.pruneStale(name, [...indexed, ...written], { keysAreInternal: true });
        pruned = staleInOld === null ? null : staleInOld + after;
      } catch (err) {
        this.log.warn(`PruneStale after rebuilding "${name}" failed (the rebuild stands): ${(err as Error).message}`);
      }
      return { index: name, documents, status: 'ok' as const, pruned };
    }));
  }

  /**
   * PruneStale (spec rule 8c): pages through the index and deletes every point whose document id
   * is not in `ids`; returns how many were removed.
   */
  async pruneStale(name: string, ids: Iterable<string | number>, options: { keysAreInternal?: boolean } = {}): Promise<number> {
    const full = await this.backendName(name);
    return this.named(name, full, () => this.prune(full, ids, options));
  }

  /** How many points of the index have a key not in `keep`. */
  private async countStale(full: string, keep: Set<string>): Promise<number> {
    let stale = 0;
    for await (const page of scrollPages(this.store, full, { pageSize: 512 })) for (const p of page) if (!keep.has(pointKey(p.id))) stale++;
    return stale;
  }

  private async prune(full: string, ids: Iterable<string | number>, options: { keysAreInternal?: boolean }): Promise<number> {
    const keep = new Set<string>();
    for (const id of ids) keep.add(options.keysAreInternal ? String(id) : pointKey(pointIdForDocument(id)));
    let removed = 0;
    const stale: VectorPointId[] = [];
    for await (const page of scrollPages(this.store, full, { pageSize: 512 })) {
      for (const p of page) if (!keep.has(pointKey(p.id))) stale.push(p.id);
    }
    // Deleted after paging: deleting while scrolling could skip points behind the cursor.
    for (let i = 0; i < stale.length; i += 512) {
      const batch = stale.slice(i, i + 512);
      await this.store.delete(full, batch);
      removed += batch.length;
    }
    return removed;
  }

  /**
   * Runs port calls on one index and answers their 4xx errors in terms of the logical name: the
   * prefix and the generation collections are how this service stores an index, not what the
   * caller named (and the prefix may tell one tenant's naming to another).
   */
  private async named<T>(name: string, full: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw err instanceof VectorStoreError && err.status < 500 ? portErrorFor(name, full, err) : err;
    }
  }

  /** The backend name of a logical index under the current prefix; 400 for an invalid name. */
  async backendName(name: string): Promise<string> {
    return this.backendNameWith(name, await this.settings.current());
  }

  private backendNameWith(name: string, settings: EffectiveSearchSettings): string {
    if (typeof name !== 'string' || !INDEX_NAME.test(name)) {
      throw badRequest(`invalid index name ${JSON.stringify(name)}: use 1-64 letters, digits, "_" or "-", starting with a letter, digit or "_"`);
    }
    return `${settings.indexPrefix}${name}`;
  }

  private logicalName(backend: string, prefix: string): string | undefined {
    if (!backend.startsWith(prefix)) return undefined;
    const name = backend.slice(prefix.length);
    return INDEX_NAME.test(name) ? name : undefined;
  }

  private nextGeneration(full: string): string {
    // Monotonic even within one millisecond; base 36 keeps the name short.
    this.lastGeneration = Math.max(Date.now(), this.lastGeneration + 1);
    return `${full}.g${this.lastGeneration.toString(36)}`;
  }

  /** Points `full` at `collection` and drops the generation it pointed at before. */
  private async switchAlias(full: string, collection: string, previous: VectorIndexInfo | null): Promise<void> {
    if (previous && previous.name === full) {
      // A plain collection from outside this service: it must go before its name can become an
      // alias, so this one switch leaves a short gap (documented in docs/search.md).
      this.log.warn(`replacing the plain collection "${full}" by an alias; queries fail for the moment between`);
      await this.store.deleteIndex(full);
      await this.store.setAlias(full, collection);
      return;
    }
    await this.store.setAlias(full, collection);
    if (previous) await this.store.deleteIndex(previous.name);
  }

  /** Runs a write on the index and, during a rebuild, on the generation being built. */
  private async write(full: string, op: (target: string) => Promise<void>, ids: VectorPointId[]): Promise<void> {
    await op(full);
    const build = this.building.get(full);
    if (build) {
      for (const id of ids) build.written.add(pointKey(id));
      await op(build.collection);
    }
  }

  private async toPoints(name: string, info: VectorIndexInfo, documents: SearchDocument[], settings: EffectiveSearchSettings): Promise<VectorPoint[]> {
    const texts: string[] = [];
    const textAt: number[] = [];
    documents.forEach((d, i) => {
      if (!d || typeof d !== 'object') throw badRequest(`documents[${i}] must be an object {id, text?, vector?, payload?}`);
      const hasText = d.text !== undefined && d.text !== null;
      const hasVector = d.vector !== undefined && d.vector !== null;
      if (hasText === hasVector) throw badRequest(`documents[${i}] needs exactly one of text or vector`);
      if (hasText && typeof d.text !== 'string') throw badRequest(`documents[${i}].text must be a string`);
      if (d.payload !== undefined && (typeof d.payload !== 'object' || d.payload === null || Array.isArray(d.payload))) {
        throw badRequest(`documents[${i}].payload must be an object`);
      }
      if (d.payload && Object.prototype.hasOwnProperty.call(d.payload, ORIGINAL_ID_KEY)) {
        throw badRequest(`documents[${i}].payload must not use the key "${ORIGINAL_ID_KEY}": it holds the original document id`);
      }
      if (hasVector && d.vector!.length !== info.dim) {
        throw badRequest(`documents[${i}].vector has ${d.vector!.length} dimensions; index "${name}" has ${info.dim}`);
      }
      if (hasText) {
        texts.push(d.text as string);
        textAt.push(i);
      }
    });
    const vectors = await this.embedChecked(name, info.dim, texts, settings);
    const byDoc = new Map<number, number[]>(textAt.map((docIndex, k) => [docIndex, vectors[k]]));
    return documents.map((d, i) => {
      const { id, payload } = withPath(`documents[${i}].id`, () => documentToPoint(d.id, d.payload));
      return { id, vector: byDoc.get(i) ?? (d.vector as number[]), payload };
    });
  }

  private async embedChecked(name: string, dim: number, texts: string[], settings: EffectiveSearchSettings): Promise<number[][]> {
    if (!texts.length) return [];
    const embedder = this.embeddings.embedderFor(settings);
    if (embedder.dimension !== dim) {
      throw badRequest(
        `index "${name}" has dimension ${dim} but the embedding model ${embedder.id}/${embedder.model} produces ${embedder.dimension}: ` +
          'send vectors, or create the index with the embedding dimension (GET /search/status)',
      );
    }
    return this.embeddings.embed(settings, texts);
  }
}

function view(name: string, info: VectorIndexInfo): SearchIndexView {
  return { name, dim: info.dim, distance: info.distance, points: info.count };
}

function notFound(name: string): SearchException {
  return new SearchException('SEARCH_INDEX_NOT_FOUND', 404, `index "${name}" does not exist`);
}

/** A port error about the backend index `full` as an error about the logical index `name`. */
function portErrorFor(name: string, full: string, err: VectorStoreError): SearchException {
  if (err instanceof VectorIndexNotFoundError) return notFound(name);
  if (err instanceof VectorDimensionError) {
    return new SearchException(err.code, err.status, `index "${name}" expects vectors of dimension ${err.expected}, got ${err.actual}`);
  }
  if (err instanceof VectorIndexConflictError) {
    return new SearchException(
      err.code,
      err.status,
      `index "${name}" already exists with dim ${err.existing.dim} and distance ${err.existing.distance}; requested dim ${err.requested.dim} and distance ${err.requested.distance}`,
    );
  }
  // Anything else (a backend's own 4xx text) may quote the collection: name it as the caller did.
  const escaped = full.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const backendNames = new RegExp(`${escaped}(?:\\.g[0-9a-z]+)?(?![A-Za-z0-9_-])`, 'g');
  return new SearchException(err.code, err.status, err.message.replace(backendNames, name));
}

function badRequest(message: string): SearchException {
  return new SearchException('SEARCH_INVALID', 400, message);
}

/** A map key of a point id that keeps `1` and `"1"` apart. */
function pointKey(id: VectorPointId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

function withPath<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw badRequest(`${path}: ${(err as Error).message}`);
  }
}

/**
 * `payload` (exact-match shortcut) and `filter` (clause filter) as one filter; 400 naming the bad
 * part. `has_id` takes document ids (mapped to point ids like upserts). With `verbatim` (the Qdrant
 * backend), conditions the platform does not evaluate itself (geo bounding box and polygon,
 * full-text, values_count, datetime_range, has_vector...) go to Qdrant as written.
 */
export function combineFilters(payload: Record<string, unknown> | undefined, filter: Record<string, unknown> | undefined, options: NormalizeFilterOptions = {}): VectorFilter | undefined {
  const parts: VectorFilter[] = [];
  if (payload !== undefined && payload !== null) {
    if (typeof payload !== 'object' || Array.isArray(payload)) throw badRequest('payload must be an object of field values');
    for (const [key, value] of Object.entries(payload)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw badRequest(`payload.${key} must be a string, number or boolean (use filter for anything else)`);
      }
    }
    if (Object.keys(payload).length) parts.push(wrapFilterError('payload', () => normalizeVectorFilter(payload) as VectorFilter));
  }
  if (filter !== undefined && filter !== null) {
    assertFilterClauses(filter);
    parts.push(wrapFilterError('filter', () => normalizeVectorFilter(withPointIds(filter, ''), options) as VectorFilter));
  }
  if (!parts.length) return undefined;
  return parts.length === 1 ? parts[0] : { must: parts as never };
}

/**
 * The filter with every `has_id` list mapped from document ids (what a caller knows: `"faq-1"`,
 * `42`) to the point ids they are stored under, by the same rule as upserts, so `has_id` means the
 * same on both backends. Only clause structure is walked (`must`, `should`, `must_not`,
 * `min_should.conditions`, `nested.filter`); everything else is kept as written.
 */
function withPointIds(node: unknown, path: string): unknown {
  if (Array.isArray(node)) return node.map((c, i) => withPointIds(c, `${path}[${i}]`));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (Array.isArray(out.has_id)) {
    out.has_id = out.has_id.map((id, i) => {
      try {
        return pointIdForDocument(id);
      } catch (err) {
        throw new VectorFilterError((err as Error).message, `${at('has_id')}[${i}]`);
      }
    });
  }
  for (const clause of ['must', 'should', 'must_not']) if (clause in out) out[clause] = withPointIds(out[clause], at(clause));
  const minShould = out.min_should as { conditions?: unknown } | undefined;
  if (minShould && typeof minShould === 'object' && Array.isArray(minShould.conditions)) {
    out.min_should = { ...minShould, conditions: withPointIds(minShould.conditions, `${at('min_should')}.conditions`) };
  }
  const nested = out.nested as { filter?: unknown } | undefined;
  if (nested && typeof nested === 'object' && nested.filter !== undefined) {
    out.nested = { ...nested, filter: withPointIds(nested.filter, `${at('nested')}.filter`) };
  }
  return out;
}

/** The top-level keys of a Qdrant filter. */
const FILTER_CLAUSES = ['must', 'should', 'must_not', 'min_should'];

/**
 * `filter` is a Qdrant filter, so its top level holds clauses only. Anything else would be read as
 * the equality shorthand by the embedded backend and rejected or ignored by Qdrant, so the same
 * query would mean different things per backend: it is a 400 naming the keys on both.
 */
function assertFilterClauses(filter: Record<string, unknown>): void {
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new SearchException('VECTOR_FILTER_INVALID', 400, 'filter must be an object of clauses (must, should, must_not, min_should)');
  const unknown = Object.keys(filter).filter((k) => !FILTER_CLAUSES.includes(k));
  if (unknown.length) {
    throw new SearchException(
      'VECTOR_FILTER_INVALID',
      400,
      `filter: unknown top-level key${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; a filter holds only ${FILTER_CLAUSES.join(', ')} (use payload for exact matches)`,
      { keys: unknown },
    );
  }
}

function wrapFilterError<T>(where: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof VectorFilterError) throw new SearchException(err.code, 400, `${where}: ${err.message}`);
    throw err;
  }
}
