/** Nest injection token of the service's document store (a `Store`). */
export const STORE = Symbol('STORE');
/** Nest injection token of the service's vector store (a `VectorStore`). */
export const VECTOR_STORE = Symbol('VECTOR_STORE');
/** Nest injection token of the validated `ServiceConfig`. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
/** Nest injection token of the `ServiceContext`. */
export const SERVICE_CONTEXT = Symbol('SERVICE_CONTEXT');
/** API prefix of every public route; `/healthz`, `/readyz`, `/metrics`, `/openapi.json` and `/internal/*` sit outside it. */
export const API_PREFIX = 'api/v1';
