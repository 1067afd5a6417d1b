/**
 * Qdrant VectorStore via @qdrant/js-client-rest. Indexes map 1:1 to collections with one unnamed
 * vector. Point ids must already be unsigned integers or UUIDs (Qdrant's only id types); the
 * caller (the search service) maps other document ids, for example with `pointIdFromKey`.
 * Writes use `wait: true` so a resolved upsert or delete is visible to the next query.
 */
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { normalizeVectorFilter } from './vector-filter.compiler';
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
  VectorStoreError,
  VectorStoreUnavailableError,
  VectorValidationError,
} from './vector-store.errors';
import type {
  VectorAlias,
  VectorDistance,
  VectorHit,
  VectorIndexInfo,
  VectorIndexParams,
  VectorPayload,
  VectorPoint,
  VectorPointId,
  VectorQuery,
  VectorScrollPage,
  VectorScrollRequest,
  VectorStore,
} from './vector-store.port';

export interface QdrantVectorStoreOptions {
  /** Qdrant HTTP endpoint, for example `http://localhost:6333` (`VECTORSTORE_URL`). */
  url: string;
  /** Sent as the `api-key` header (`VECTORSTORE_API_KEY`). */
  apiKey?: string;
  /** Per-request timeout (default 30 s; the client's own default is 300 s, far beyond any readiness probe). */
  timeoutMs?: number;
  /** Points per upsert request (default 256): keeps requests well under Qdrant's 32 MB body limit. */
  upsertBatchSize?: number;
}

const TO_QDRANT: Record<VectorDistance, Schemas['Distance']> = {
  cosine: 'Cosine',
  dot: 'Dot',
  euclid: 'Euclid',
};
const FROM_QDRANT: Partial<Record<Schemas['Distance'], VectorDistance>> = {
  Cosine: 'cosine',
  Dot: 'dot',
  Euclid: 'euclid',
};

/**
 * Translates either filter form into Qdrant's filter JSON. What the platform evaluates itself is
 * validated as on the embedded backend (same messages); every other condition (geo, full-text,
 * values_count, datetime_range, has_vector, anything newer) goes to Qdrant as written, and Qdrant's
 * own 400 comes back as a `VectorValidationError`.
 */
export function toQdrantFilter(filter: unknown): Schemas['Filter'] | undefined {
  if (filter === undefined || filter === null) return undefined;
  // The normalised tree is built in Qdrant's exact JSON shape, so it is sent unchanged.
  return normalizeVectorFilter(filter, { verbatim: true }) as Schemas['Filter'];
}

export class QdrantVectorStore implements VectorStore {
  readonly backend = 'vectordb' as const;
  private readonly client: QdrantClient;
  private readonly batchSize: number;
  private closed = false;

  constructor(private readonly options: QdrantVectorStoreOptions) {
    if (!options.url) throw new VectorValidationError('Qdrant url is required');
    this.client = new QdrantClient({
      url: options.url,
      apiKey: options.apiKey || undefined,
      timeout: options.timeoutMs ?? 30_000,
      // The compatibility check fires a request from the constructor and only logs; readiness is ping().
      checkCompatibility: false,
    });
    this.batchSize = options.upsertBatchSize ?? 256;
  }

  async createIndex(name: string, params: VectorIndexParams): Promise<void> {
    assertIndexName(name);
    assertIndexParams(params);
    this.assertOpen();
    const existing = await this.describe(name);
    if (existing) return assertSameParams(name, existing, params);
    try {
      await this.client.createCollection(name, {
        vectors: { size: params.dim, distance: TO_QDRANT[params.distance] },
      });
    } catch (err) {
      // Another replica may have created it between our read and write: judge by what exists now.
      const now = await this.describe(name).catch(() => null);
      if (now) return assertSameParams(name, now, params);
      throw mapError(err, name);
    }
  }

  async getIndex(name: string): Promise<VectorIndexInfo | null> {
    assertIndexName(name);
    this.assertOpen();
    let target = name;
    let params = await this.describe(name);
    if (!params) {
      // Qdrant resolves aliases for point operations but not for collection info.
      const aliased = await this.aliasTarget(name);
      if (!aliased) return null;
      target = aliased;
      params = await this.describe(target);
      if (!params) return null;
    }
    if (params === 'unsupported') throw unsupportedCollection(target);
    const { count } = await this.call(target, () => this.client.count(target, { exact: true }));
    return { name: target, dim: params.dim, distance: params.distance, count };
  }

  async listIndexes(): Promise<VectorIndexInfo[]> {
    this.assertOpen();
    const { collections } = await this.call(undefined, () => this.client.getCollections());
    const infos = await Promise.all(
      collections.map(({ name }) =>
        // Collections this store cannot describe (named vectors, Manhattan) or that vanished meanwhile are left out.
        this.getIndex(name).catch((err: unknown) => {
          if (err instanceof VectorValidationError || err instanceof VectorIndexNotFoundError) return null;
          throw err;
        }),
      ),
    );
    return infos
      .filter((i): i is VectorIndexInfo => i !== null)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async deleteIndex(name: string): Promise<boolean> {
    assertIndexName(name);
    this.assertOpen();
    // An alias name is not an index: never delete the collection behind it by that name.
    if (!(await this.describe(name))) return false;
    const { aliases } = await this.call(undefined, () => this.client.getAliases());
    const orphaned = aliases.filter((a) => a.collection_name === name);
    if (orphaned.length) {
      await this.call(name, () =>
        this.client.updateCollectionAliases({
          actions: orphaned.map((a) => ({ delete_alias: { alias_name: a.alias_name } })),
        }),
      );
    }
    try {
      return await this.client.deleteCollection(name);
    } catch (err) {
      if (httpStatus(err) === 404) return false;
      throw mapError(err, name);
    }
  }

  async setAlias(alias: string, index: string): Promise<void> {
    assertIndexName(alias);
    assertIndexName(index);
    this.assertOpen();
    if (await this.describe(alias)) {
      throw new VectorValidationError(`"${alias}" is an index; an alias cannot have the name of an index`);
    }
    if (!(await this.describe(index))) throw new VectorIndexNotFoundError(index);
    // One request, applied atomically by Qdrant: readers never see the alias missing.
    await this.call(index, () =>
      this.client.updateCollectionAliases({
        actions: [
          { delete_alias: { alias_name: alias } },
          { create_alias: { alias_name: alias, collection_name: index } },
        ],
      }),
    );
  }

  async deleteAlias(alias: string): Promise<boolean> {
    assertIndexName(alias);
    this.assertOpen();
    if (!(await this.aliasTarget(alias))) return false;
    await this.call(undefined, () =>
      this.client.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: alias } }] }),
    );
    return true;
  }

  async listAliases(): Promise<VectorAlias[]> {
    this.assertOpen();
    const { aliases } = await this.call(undefined, () => this.client.getAliases());
    return aliases
      .map((a) => ({ alias: a.alias_name, index: a.collection_name }))
      .sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
  }

  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    assertIndexName(name);
    if (!Array.isArray(points)) throw new VectorValidationError('points must be an array');
    const prepared = dedupePointsLastWins(
      points.map((p) => {
        if (!p || typeof p !== 'object')
          throw new VectorValidationError('each point must be an object {id, vector, payload?}');
        const id = canonicalPointId(p.id);
        assertVector(name, p.vector);
        return { id, vector: p.vector, payload: clonePayload(p.payload) };
      }),
    );
    this.assertOpen();
    // One read per call buys the embedded adapter's guarantee: a wrong-dimension point rejects the
    // whole batch before anything is written (Qdrant could apply the points before it).
    const params = await this.describeResolved(name);
    if (!params) throw new VectorIndexNotFoundError(name);
    if (params === 'unsupported') throw unsupportedCollection(name);
    for (const p of prepared) assertVector(name, p.vector, params.dim);
    for (let i = 0; i < prepared.length; i += this.batchSize) {
      const batch = prepared.slice(i, i + this.batchSize);
      await this.call(
        name,
        () => this.client.upsert(name, { wait: true, points: batch }),
        batch.map((p) => p.vector),
      );
    }
  }

  async delete(name: string, ids: VectorPointId[]): Promise<void> {
    assertIndexName(name);
    if (!Array.isArray(ids)) throw new VectorValidationError('ids must be an array');
    const points = ids.map(canonicalPointId);
    this.assertOpen();
    if (!points.length) {
      // Nothing to send; still report a missing index as the embedded adapter does.
      if (!(await this.describeResolved(name))) throw new VectorIndexNotFoundError(name);
      return;
    }
    await this.call(name, () => this.client.delete(name, { wait: true, points }));
  }

  async query(name: string, query: VectorQuery): Promise<VectorHit[]> {
    assertIndexName(name);
    if (!query || typeof query !== 'object')
      throw new VectorValidationError('query must be an object {vector, limit, filter?}');
    assertVector(name, query.vector);
    assertLimit(query.limit);
    if (query.ef !== undefined) assertLimit(query.ef, 'ef');
    const filter = toQdrantFilter(query.filter);
    this.assertOpen();
    const result = await this.call(
      name,
      () =>
        this.client.query(name, {
          query: query.vector,
          limit: query.limit,
          filter,
          params: query.ef === undefined ? undefined : { hnsw_ef: Math.max(query.ef, query.limit) },
          with_payload: true,
          with_vector: false,
        }),
      [query.vector],
    );
    return result.points.map((p) => ({
      id: p.id,
      score: p.score,
      payload: (p.payload ?? {}) as VectorPayload,
    }));
  }

  async scroll(name: string, request: VectorScrollRequest): Promise<VectorScrollPage> {
    assertIndexName(name);
    if (!request || typeof request !== 'object')
      throw new VectorValidationError('scroll request must be an object {limit, offset?, filter?}');
    assertLimit(request.limit);
    const offset =
      request.offset === undefined || request.offset === null ? undefined : canonicalPointId(request.offset);
    const filter = toQdrantFilter(request.filter);
    const withPayload = request.withPayload ?? true;
    const withVectors = request.withVectors ?? false;
    this.assertOpen();
    const page = await this.call(name, () =>
      this.client.scroll(name, {
        limit: request.limit,
        offset,
        filter,
        with_payload: withPayload,
        with_vector: withVectors,
      }),
    );
    return {
      points: page.points.map((p) => {
        const point: VectorScrollPage['points'][number] = { id: p.id };
        if (withPayload) point.payload = (p.payload ?? {}) as VectorPayload;
        if (withVectors && Array.isArray(p.vector) && p.vector.every((x) => typeof x === 'number'))
          point.vector = p.vector as number[];
        return point;
      }),
      nextOffset:
        page.next_page_offset === undefined || page.next_page_offset === null
          ? null
          : (page.next_page_offset as VectorPointId),
    };
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.call(undefined, () => this.client.getCollections());
  }

  async close(): Promise<void> {
    // The client holds no resources beyond keep-alive sockets, which undici closes when idle.
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed)
      throw new VectorStoreUnavailableError(`Qdrant vector store for ${this.options.url} is closed`);
  }

  /** `describe` of an index name or of the index an alias points at. */
  private async describeResolved(name: string): Promise<VectorIndexParams | 'unsupported' | null> {
    const params = await this.describe(name);
    if (params) return params;
    const target = await this.aliasTarget(name);
    return target ? this.describe(target) : null;
  }

  /** The collection an alias points at, or null when `name` is no alias. */
  private async aliasTarget(name: string): Promise<string | null> {
    const { aliases } = await this.call(undefined, () => this.client.getAliases());
    return aliases.find((a) => a.alias_name === name)?.collection_name ?? null;
  }

  /** Params of an existing collection, null when it does not exist, 'unsupported' for layouts this store does not manage. */
  private async describe(name: string): Promise<VectorIndexParams | 'unsupported' | null> {
    let info: Schemas['CollectionInfo'];
    try {
      info = await this.client.getCollection(name);
    } catch (err) {
      if (httpStatus(err) === 404) return null;
      throw mapError(err, name);
    }
    const vectors = info.config.params.vectors as Partial<Schemas['VectorParams']> | undefined;
    const distance = vectors?.distance ? FROM_QDRANT[vectors.distance] : undefined;
    if (!vectors || typeof vectors.size !== 'number' || !distance) return 'unsupported';
    return { dim: vectors.size, distance };
  }

  /**
   * Runs a client call with errors mapped to the port's typed errors. `vectors` are the vectors
   * sent, used to name the dimension mismatch when Qdrant reports one.
   */
  private async call<T>(index: string | undefined, fn: () => Promise<T>, vectors?: number[][]): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const status = httpStatus(err);
      if (index && vectors && (status === 400 || status === 422)) {
        const dimError = await this.dimensionError(index, errorText(err), vectors);
        if (dimError) throw dimError;
      }
      throw mapError(err, index);
    }
  }

  private async dimensionError(
    index: string,
    message: string,
    vectors: number[][],
  ): Promise<VectorDimensionError | null> {
    const m = /expected dim:\s*(\d+),\s*got\s*(\d+)/i.exec(message);
    if (m) return new VectorDimensionError(index, Number(m[1]), Number(m[2]));
    if (!/dimension/i.test(message)) return null;
    // Message format changed: compare with the collection's dimension ourselves.
    const params = await this.describe(index).catch(() => null);
    if (!params || params === 'unsupported') return null;
    const wrong = vectors.find((v) => v.length !== params.dim);
    return wrong ? new VectorDimensionError(index, params.dim, wrong.length) : null;
  }
}

/** Qdrant VectorStore for `url` (`VECTORSTORE_URL`), with an optional API key. */
export function createQdrantVectorStore(options: QdrantVectorStoreOptions): QdrantVectorStore {
  return new QdrantVectorStore(options);
}

function assertSameParams(
  name: string,
  existing: VectorIndexParams | 'unsupported',
  requested: VectorIndexParams,
): void {
  if (existing === 'unsupported') {
    throw new VectorIndexConflictError(
      name,
      { dim: Number.NaN, distance: 'unsupported collection layout' },
      requested,
    );
  }
  if (existing.dim !== requested.dim || existing.distance !== requested.distance) {
    throw new VectorIndexConflictError(name, existing, requested);
  }
}

function unsupportedCollection(name: string): VectorValidationError {
  return new VectorValidationError(
    `Qdrant collection "${name}" uses named vectors or a distance other than Cosine, Dot or Euclid; this store does not manage it`,
  );
}

/** HTTP status of a client error (ApiError and its subclasses carry one), if any. */
function httpStatus(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Qdrant's own message from an error body `{status: {error}}`, else the error message. */
function errorText(err: unknown): string {
  const data = (err as { data?: { status?: { error?: unknown } } } | null)?.data;
  const text = data?.status?.error;
  if (typeof text === 'string') return text;
  return err instanceof Error ? err.message : String(err);
}

/** Maps a client failure to the port's typed errors; anything that is not a client mistake is 503. */
function mapError(err: unknown, index: string | undefined): Error {
  if (err instanceof VectorStoreError) return err;
  const status = httpStatus(err);
  const text = errorText(err);
  if (status === 404 && index) return new VectorIndexNotFoundError(index);
  if (status === 400 || status === 422)
    return new VectorValidationError(`Qdrant rejected the request: ${text}`);
  if (status !== undefined) {
    // 401/403 (bad api key), 409, 429, 5xx: the dependency is not usable as configured.
    return new VectorStoreUnavailableError(`Qdrant answered ${status}: ${text}`, { cause: err });
  }
  // Connection refused, DNS, TLS, timeouts: fetch raises without an HTTP status.
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const detail = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return new VectorStoreUnavailableError(`Qdrant is unreachable: ${text}${detail}`, { cause: err });
}
