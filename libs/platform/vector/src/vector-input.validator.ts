/**
 * Input checks shared by both adapters. They run before anything reaches hnswlib or Qdrant, so
 * both backends reject the same inputs with the same typed errors (and nothing is half-written).
 */
import { v5 as uuidV5 } from 'uuid';
import { VectorDimensionError, VectorValidationError } from './vector-store.errors';
import type { VectorDistance, VectorIndexParams, VectorPayload, VectorPointId } from './vector-store.port';

const DISTANCES: readonly VectorDistance[] = ['cosine', 'dot', 'euclid'];

// Portable across the embedded adapter (the name is a directory) and Qdrant (the name is a URL
// path segment): no separators, no leading dot, bounded length.
const INDEX_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

// Any 128-bit hyphenated UUID, whatever its version: Qdrant parses all of them.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Fixed namespace so the same key maps to the same point id in every process and release.
export const POINT_ID_NAMESPACE = '6f0c1f8e-3a57-4d2b-9a64-0c6de6b1f1a2';

/** Largest accepted index dimension (Qdrant's limit is 65,536). */
export const MAX_VECTOR_DIM = 65_536;

/** Throws `VectorValidationError` unless `name` is a portable index name (letters, digits, `_ . -`, at most 128). */
export function assertIndexName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !INDEX_NAME.test(name)) {
    throw new VectorValidationError(
      `invalid vector index name ${JSON.stringify(name)}: use 1-128 letters, digits, "_", "." or "-", not starting with "." or "-"`,
    );
  }
}

/** Throws `VectorValidationError` unless `params` has a positive integer `dim` and a known `distance`. */
export function assertIndexParams(params: unknown): asserts params is VectorIndexParams {
  const p = params as Partial<VectorIndexParams> | null;
  if (!p || typeof p !== 'object')
    throw new VectorValidationError('index params must be an object {dim, distance}');
  if (typeof p.dim !== 'number' || !Number.isInteger(p.dim) || p.dim < 1 || p.dim > MAX_VECTOR_DIM) {
    throw new VectorValidationError(
      `index dim must be an integer between 1 and ${MAX_VECTOR_DIM}, got ${String(p.dim)}`,
    );
  }
  if (!DISTANCES.includes(p.distance as VectorDistance)) {
    throw new VectorValidationError(
      `index distance must be one of ${DISTANCES.join(', ')}, got ${String(p.distance)}`,
    );
  }
}

/** Returns the canonical form of a point id (UUIDs lower-cased); throws `VectorValidationError` for ids Qdrant would reject. */
export function canonicalPointId(id: unknown): VectorPointId {
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id) && id >= 0) return id;
  } else if (typeof id === 'string' && UUID.test(id)) {
    return id.toLowerCase();
  }
  throw new VectorValidationError(
    `invalid point id ${JSON.stringify(id)}: use a non-negative safe integer or a UUID (map other keys with pointIdFromKey)`,
  );
}

/** Deterministic UUID (v5) for an arbitrary string key, for callers whose document ids are not integers or UUIDs. */
export function pointIdFromKey(key: string): string {
  return uuidV5(key, POINT_ID_NAMESPACE);
}

/** Total order of point ids used by scroll: integers ascending, then UUID strings (Qdrant's order). */
export function comparePointIds(a: VectorPointId, b: VectorPointId): number {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Throws `VectorValidationError` unless `vector` is an array of finite numbers, and `VectorDimensionError` unless its length is `dim` (when given). */
export function assertVector(index: string, vector: unknown, dim?: number): asserts vector is number[] {
  if (!Array.isArray(vector)) throw new VectorValidationError('vector must be an array of numbers');
  for (const x of vector) {
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new VectorValidationError('vector components must be finite numbers');
  }
  if (dim !== undefined && vector.length !== dim) throw new VectorDimensionError(index, dim, vector.length);
}

/** Throws `VectorValidationError` unless `limit` is a positive integer. */
export function assertLimit(limit: unknown, what = 'limit'): asserts limit is number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new VectorValidationError(`${what} must be a positive integer, got ${String(limit)}`);
  }
}

/** A JSON round-tripped copy of a payload, as both backends store it; throws `VectorValidationError` for non-objects. */
export function clonePayload(payload: unknown): VectorPayload {
  if (payload === undefined || payload === null) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    throw new VectorValidationError('payload must be a JSON object');
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch (err) {
    throw new VectorValidationError(`payload is not JSON-serialisable: ${(err as Error).message}`);
  }
  return JSON.parse(json) as VectorPayload;
}

/** A map key for a canonical point id that keeps `1` and `"1"`-like strings apart. */
export function pointIdKey(id: VectorPointId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/** Keeps the last occurrence of each id (Qdrant applies a batch in order, so a repeated id ends with its last version). */
export function dedupePointsLastWins<T extends { id: VectorPointId }>(points: T[]): T[] {
  const byKey = new Map<string, T>();
  for (const p of points) {
    const key = pointIdKey(p.id);
    byKey.delete(key);
    byKey.set(key, p);
  }
  return [...byKey.values()];
}
