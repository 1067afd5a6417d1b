import type { VectorDistance, VectorPayload } from '@flowplane/platform/vector';

/** A document to index: exactly one of `text` (embedded) or `vector`. */
export interface SearchDocument {
  id: string | number;
  text?: string;
  vector?: number[];
  payload?: VectorPayload;
}

/** A nearest-neighbour query: exactly one of `text` or `vector`. */
export interface SearchQuery {
  text?: string;
  vector?: number[];
  /** Default `search.default_limit`; capped at SEARCH_MAX_LIMIT. */
  limit?: number;
  /** Exact-match shortcut: every key must equal its value. */
  payload?: Record<string, unknown>;
  /** Qdrant filter (must/should/must_not with match and range, ...). */
  filter?: Record<string, unknown>;
}

export interface SearchHit {
  /** The document id as it was given (restored from payload._id when hashed). */
  id: string;
  score: number;
  payload: VectorPayload;
}

export interface SearchResult {
  index: string;
  hits: SearchHit[];
  /** The limit applied (after the default and the cap). */
  limit: number;
  /** True when fewer than `limit` points matched: there is nothing more to find. */
  exhausted: boolean;
}

export interface SearchIndexView {
  /** Logical name (prefix stripped). */
  name: string;
  dim: number;
  distance: VectorDistance;
  /** Points stored. */
  points: number;
}

/** Logical index names: no dots (the service keeps `<name>.g<generation>` for rebuilds). */
export const INDEX_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
