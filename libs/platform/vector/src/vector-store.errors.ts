/**
 * Typed errors of the VectorStore port. Every adapter throws these (never a driver error), so the
 * search service maps them to HTTP once: `status` is the response code ARCHITECTURE §5 prescribes.
 */

/** Base class: `code` is stable for logs and tests, `status` is the HTTP status a service answers with. */
export abstract class VectorStoreError extends Error {
  abstract readonly code: string;
  abstract readonly status: 400 | 404 | 503;
}

/** The named index does not exist (→ 404). */
export class VectorIndexNotFoundError extends VectorStoreError {
  readonly code = 'VECTOR_INDEX_NOT_FOUND';
  readonly status = 404;
  constructor(readonly index: string) {
    super(`vector index "${index}" does not exist`);
    this.name = 'VectorIndexNotFoundError';
  }
}

/** `createIndex` found the index with another dimension or distance (→ 400, as the spec's "400 from the backend"). */
export class VectorIndexConflictError extends VectorStoreError {
  readonly code = 'VECTOR_INDEX_CONFLICT';
  readonly status = 400;
  constructor(
    readonly index: string,
    readonly existing: { dim: number; distance: string },
    readonly requested: { dim: number; distance: string },
  ) {
    super(
      `vector index "${index}" already exists with dim ${existing.dim} and distance ${existing.distance}; ` +
        `requested dim ${requested.dim} and distance ${requested.distance}`,
    );
    this.name = 'VectorIndexConflictError';
  }
}

/** A vector's length differs from the index dimension (→ 400). */
export class VectorDimensionError extends VectorStoreError {
  readonly code = 'VECTOR_DIMENSION_MISMATCH';
  readonly status = 400;
  constructor(
    readonly index: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`vector index "${index}" expects vectors of dimension ${expected}, got ${actual}`);
    this.name = 'VectorDimensionError';
  }
}

/** A filter is malformed or uses a clause this port does not support (→ 400). */
export class VectorFilterError extends VectorStoreError {
  readonly code = 'VECTOR_FILTER_INVALID';
  readonly status = 400;
  constructor(
    message: string,
    /** Where in the filter the problem is, for example `must[1].range.gt`. */
    readonly path: string,
  ) {
    super(path ? `invalid vector filter at ${path}: ${message}` : `invalid vector filter: ${message}`);
    this.name = 'VectorFilterError';
  }
}

/** Any other invalid input: index name, point id, non-finite vector component, limit (→ 400). */
export class VectorValidationError extends VectorStoreError {
  readonly code = 'VECTOR_INPUT_INVALID';
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'VectorValidationError';
  }
}

/** The backend cannot be reached, refused the call, failed, or the store is closed (→ 503). */
export class VectorStoreUnavailableError extends VectorStoreError {
  readonly code = 'VECTOR_STORE_UNAVAILABLE';
  readonly status = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VectorStoreUnavailableError';
  }
}
