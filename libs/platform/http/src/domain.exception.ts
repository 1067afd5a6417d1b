/**
 * Base of every domain exception: a stable code plus the HTTP status the global filter maps it to.
 * Services subclass it (for example `ProfilesException` with a `ProfilesExceptionCode` enum).
 */
export class DomainException extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Extra top-level fields of the error body (spec-defined bodies such as the 409 route conflict). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Error codes of the platform ports, mapped to HTTP statuses by the global filter. */
export const PORT_ERROR_STATUS: Record<string, number> = {
  DUPLICATE_KEY: 409,
  STORE_UNAVAILABLE: 503,
  BUS_UNAVAILABLE: 503,
  VECTOR_STORE_UNAVAILABLE: 503,
  VECTOR_INDEX_NOT_FOUND: 404,
  VECTOR_INDEX_CONFLICT: 400,
  VECTOR_DIMENSION_MISMATCH: 400,
  VECTOR_FILTER_INVALID: 400,
  VECTOR_INPUT_INVALID: 400,
  SERVICE_UNAVAILABLE: 503,
};
