/**
 * Document ids of the search service to point ids and back (flows-compile-search-hub.md, rule 9).
 * Qdrant takes only unsigned integers and UUIDs as point ids, so:
 * - a decimal string of a non-negative safe integer without leading zeros (`"42"`) becomes the number 42;
 * - a UUID passes through (lower-cased);
 * - any other string becomes the UUID v5 of that string in `POINT_ID_NAMESPACE`
 *   (`6f0c1f8e-3a57-4d2b-9a64-0c6de6b1f1a2`, fixed forever: changing it orphans every stored point).
 * Whenever the point id does not print back as the original (`"doc-1"`, an upper-case UUID), the
 * original is kept in the payload under `_id` and restored by `documentFromPoint`.
 */
import { canonicalPointId, pointIdFromKey } from './vector-input.validator';
import { VectorValidationError } from './vector-store.errors';
import type { VectorPayload, VectorPointId } from './vector-store.port';

/** Payload key holding the original document id when the point id differs from it. */
export const ORIGINAL_ID_KEY = '_id';

/** Longest accepted document id, in characters. */
export const MAX_DOCUMENT_ID_LENGTH = 512;

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The document id as text: numbers (non-negative safe integers) print in decimal; anything else is a 400. */
export function documentIdText(id: unknown): string {
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id) && id >= 0) return String(id);
    throw new VectorValidationError(`document id ${String(id)} must be a string or a non-negative integer`);
  }
  if (typeof id !== 'string' || id === '') throw new VectorValidationError('document id must be a non-empty string');
  if (id.length > MAX_DOCUMENT_ID_LENGTH) {
    throw new VectorValidationError(`document id is longer than ${MAX_DOCUMENT_ID_LENGTH} characters`);
  }
  return id;
}

/** The point id of a document id (see the module comment for the rules). */
export function pointIdForDocument(id: unknown): VectorPointId {
  const text = documentIdText(id);
  if (DECIMAL.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  if (UUID.test(text)) return canonicalPointId(text);
  return pointIdFromKey(text);
}

/** Point id and payload of a document: `_id` is set only when the point id does not print back as the original id. */
export function documentToPoint(
  id: unknown,
  payload: VectorPayload | undefined,
): { id: VectorPointId; payload: VectorPayload } {
  const text = documentIdText(id);
  const pointId = pointIdForDocument(text);
  const out: VectorPayload = { ...(payload ?? {}) };
  if (String(pointId) !== text) out[ORIGINAL_ID_KEY] = text;
  else delete out[ORIGINAL_ID_KEY];
  return { id: pointId, payload: out };
}

/** The document id and user payload of a stored point: `_id` restored as the id and removed from the payload. */
export function documentFromPoint(
  id: VectorPointId,
  payload: VectorPayload | undefined,
): { id: string; payload: VectorPayload } {
  // Copied key by key rather than spread and `delete`d: a delete turns the object into a slow
  // dictionary, which every later read and the response's JSON.stringify then pay for.
  const rest: VectorPayload = {};
  let original: unknown;
  if (payload) {
    for (const k of Object.keys(payload)) {
      if (k === ORIGINAL_ID_KEY) original = payload[k];
      // As a spread copies it: an own property, not the prototype.
      else if (k === '__proto__') Object.defineProperty(rest, k, { value: payload[k], enumerable: true, writable: true, configurable: true });
      else rest[k] = payload[k];
    }
  }
  return { id: typeof original === 'string' ? original : String(id), payload: rest };
}
