/**
 * The VectorStore port (ARCHITECTURE §2): named indexes of fixed-dimension vectors with JSON
 * payloads, nearest-neighbour queries with payload filters, and id-ordered scrolling. The search
 * service is written once against it; the embedded adapter (hnswlib) and the Qdrant adapter
 * behave the same for everything below, which `vector-store.contract.ts` checks.
 */

/** Backend ids as selected by `SEARCH_BACKEND`. */
export type VectorBackend = 'embedded' | 'vectordb';

/**
 * Similarity used by an index, and the meaning of `VectorHit.score` (the same numbers Qdrant reports):
 * - `cosine`: cosine similarity in [-1, 1], higher is better. Vectors are stored normalised.
 * - `dot`: dot product, higher is better.
 * - `euclid`: Euclidean (L2, not squared) distance, LOWER is better; hits are still best first.
 */
export type VectorDistance = 'cosine' | 'dot' | 'euclid';

/**
 * A point id. Qdrant accepts only unsigned integers and UUIDs, so both adapters accept exactly
 * those: a non-negative safe integer or a hyphenated UUID string (returned lower-cased). Callers
 * with other keys map them, for example with `pointIdFromKey` (a deterministic UUID v5).
 */
export type VectorPointId = string | number;

/** JSON payload stored with a point; it round-trips through JSON. */
export type VectorPayload = Record<string, unknown>;

export interface VectorIndexParams {
  /** Vector length, a positive integer. */
  dim: number;
  distance: VectorDistance;
}

export interface VectorIndexInfo extends VectorIndexParams {
  name: string;
  /** Number of points currently stored. */
  count: number;
}

export interface VectorPoint {
  id: VectorPointId;
  vector: number[];
  /** Replaces the whole stored payload on upsert; absent means `{}`. */
  payload?: VectorPayload;
}

export interface VectorHit {
  id: VectorPointId;
  /** See `VectorDistance` for what the number means per distance. */
  score: number;
  payload: VectorPayload;
}

/** A value a `match` can compare with: Qdrant keywords, integers and booleans (non-integer numbers are matched exactly too). */
export type VectorScalar = string | number | boolean;

/** Exact value; on an array payload field it matches when any element equals it. */
export interface VectorMatchValue {
  value: VectorScalar;
}
/** Any of the listed strings or integers. */
export interface VectorMatchAny {
  any: string[] | number[];
}
/** None of the listed strings or integers (a missing field does not match). */
export interface VectorMatchExcept {
  except: string[] | number[];
}
export type VectorMatch = VectorMatchValue | VectorMatchAny | VectorMatchExcept;

/** Numeric bounds; at least one is required. */
export interface VectorRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** A point on the globe, in degrees: the shape of a geo payload value and of a radius centre. */
export interface VectorGeoPoint {
  lon: number;
  lat: number;
}

/** Within `radius` metres (great-circle distance) of `center`. */
export interface VectorGeoRadius {
  center: VectorGeoPoint;
  radius: number;
}

/**
 * Condition on one payload field; `key` is a dotted path (`a.b`, `items[].kind`). Exactly one of
 * `match`, `range`, `geo_radius` (the field holds `{lon, lat}` objects).
 */
export interface VectorFieldCondition {
  key: string;
  match?: VectorMatch;
  range?: VectorRange;
  geo_radius?: VectorGeoRadius;
}
/** The field is missing, null or an empty array. */
export interface VectorIsEmptyCondition {
  is_empty: { key: string };
}
/** The field exists and is null. */
export interface VectorIsNullCondition {
  is_null: { key: string };
}
/** The point id is one of these. */
export interface VectorHasIdCondition {
  has_id: VectorPointId[];
}
/** `key` is an array of objects and at least one element satisfies `filter` on its own. */
export interface VectorNestedCondition {
  nested: { key: string; filter: VectorClauseFilter };
}
export type VectorCondition =
  | VectorFieldCondition
  | VectorIsEmptyCondition
  | VectorIsNullCondition
  | VectorHasIdCondition
  | VectorNestedCondition
  | VectorClauseFilter;

/**
 * Qdrant-style boolean filter: every `must` matches, at least one `should` matches (when any are
 * given), no `must_not` matches, and at least `min_should.min_count` of its conditions match.
 * A single condition may be given instead of an array, as Qdrant allows.
 */
export interface VectorClauseFilter {
  must?: VectorCondition | VectorCondition[];
  should?: VectorCondition | VectorCondition[];
  must_not?: VectorCondition | VectorCondition[];
  min_should?: { conditions: VectorCondition[]; min_count: number };
}

/**
 * Payload equality shorthand: `{kind: 'faq', 'meta.lang': 'en'}`: every key (dotted for nested
 * payload) must equal its string, number or boolean value. Same as `{must: [{key, match: {value}}...]}`.
 * An object whose keys are all `must`/`should`/`must_not`/`min_should` with object or array values
 * is read as a `VectorClauseFilter` instead.
 */
export type VectorPayloadEquality = Record<string, unknown>;

/**
 * Either form. The embedded backend rejects conditions it does not evaluate (geo, full-text,
 * datetime ranges, has_vector...) with `VectorFilterError`; Qdrant receives them as written.
 */
export type VectorFilter = VectorClauseFilter | VectorPayloadEquality;

export interface VectorQuery {
  vector: number[];
  /** Maximum number of hits, a positive integer. */
  limit: number;
  filter?: VectorFilter;
  /**
   * Search depth (HNSW `ef`): candidates kept while walking the graph; more is slower and finds more
   * of the true neighbours. Never below `limit`. Absent: the adapter's default (embedded 64,
   * Qdrant its collection setting). Sent to Qdrant as `params.hnsw_ef`.
   */
  ef?: number;
}

export interface VectorScrollRequest {
  /** Page size, a positive integer. */
  limit: number;
  /** `nextOffset` of the previous page; absent or null starts at the beginning. */
  offset?: VectorPointId | null;
  filter?: VectorFilter;
  /** Include payloads (default true). */
  withPayload?: boolean;
  /** Include vectors (default false); cosine indexes return them normalised. */
  withVectors?: boolean;
}

export interface VectorScrolledPoint {
  id: VectorPointId;
  payload?: VectorPayload;
  vector?: number[];
}

export interface VectorScrollPage {
  /** Points in id order: integers ascending, then UUIDs in string order (Qdrant's order). */
  points: VectorScrolledPoint[];
  /** Id to pass as `offset` for the next page, or null after the last page. */
  nextOffset: VectorPointId | null;
}

/** A second name of an index (Qdrant collection alias); every point operation accepts it in place of the index name. */
export interface VectorAlias {
  alias: string;
  /** The index (collection) the alias points at. */
  index: string;
}

export interface VectorStore {
  /** Which adapter this is, for `/search/status` and readiness. */
  readonly backend: VectorBackend;
  /** Creates the index; a no-op when it exists with the same params, `VectorIndexConflictError` when they differ. */
  createIndex(name: string, params: VectorIndexParams): Promise<void>;
  /**
   * Index metadata, or null when it does not exist. `name` may be an alias: the info then describes
   * the index it points at (`info.name` is that index's name).
   */
  getIndex(name: string): Promise<VectorIndexInfo | null>;
  /** All indexes (not aliases), sorted by name. */
  listIndexes(): Promise<VectorIndexInfo[]>;
  /** Removes the index, all its points and every alias pointing at it; resolves false when no index has this name (an alias name is not an index). */
  deleteIndex(name: string): Promise<boolean>;
  /**
   * Points `alias` at `index` in one atomic step (creates it, or moves it from its previous index):
   * a query through the alias sees either the old index or the new one, never neither. `index`
   * must be an index, not another alias (404 otherwise); `alias` must not be an index name (400).
   */
  setAlias(alias: string, index: string): Promise<void>;
  /** Removes an alias (never the index); resolves false when it did not exist. */
  deleteAlias(alias: string): Promise<boolean>;
  /** Every alias, sorted by alias name. */
  listAliases(): Promise<VectorAlias[]>;
  // Point operations below accept an alias wherever they take an index name.
  /** Inserts or fully replaces points (vector and payload); the batch is validated before anything is written. */
  upsert(name: string, points: VectorPoint[]): Promise<void>;
  /** Removes points by id; unknown ids are ignored. */
  delete(name: string, ids: VectorPointId[]): Promise<void>;
  /** Nearest neighbours of `vector` among points matching `filter`, best first. */
  query(name: string, query: VectorQuery): Promise<VectorHit[]>;
  /** One page of points in id order; follow `nextOffset` to visit every (matching) point exactly once. */
  scroll(name: string, request: VectorScrollRequest): Promise<VectorScrollPage>;
  /** Resolves when the backend is usable; rejects with `VectorStoreUnavailableError` otherwise (for /readyz). */
  ping(): Promise<void>;
  /** Flushes pending writes and releases files or connections; later calls reject with `VectorStoreUnavailableError`. */
  close(): Promise<void>;
}

/** True when a higher score is a better hit for `distance` (false only for `euclid`, whose score is a distance). */
export function higherScoreIsBetter(distance: VectorDistance): boolean {
  return distance !== 'euclid';
}
