import { createHash } from 'node:crypto';

/**
 * Canonical JSON of a value, in the manner of RFC 8785 (JCS): object keys sorted by UTF-16 code
 * units, no whitespace, numbers and strings as JSON.stringify writes them. Values JSON cannot carry are
 * treated as JSON.stringify treats them (undefined fields dropped, toJSON honoured, NaN → null).
 */
export function canonicalJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('the value has no JSON representation');
  return write(JSON.parse(json) as unknown);
}

/** Content hash of a document for immutable versions: hex sha256 of its canonical JSON, independent of key order. */
export function canonicalHash(doc: unknown): string {
  return createHash('sha256').update(canonicalJson(doc), 'utf8').digest('hex');
}

function write(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(write).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + write(o[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}
