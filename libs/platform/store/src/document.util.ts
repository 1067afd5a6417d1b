/**
 * Value handling shared by both engines: id generation, the deep copy that keeps stored state
 * private, dotted-path access with MongoDB's array fan-out, and the EJSON-style encoding the
 * journal uses so Dates survive a round trip through JSON.
 */
import { randomBytes } from 'node:crypto';

/** A document as the engines handle it internally (the port's `StoreDocument` without the id constraint). */
export type Doc = Record<string, unknown>;

// ObjectId layout (4-byte seconds, 5 random bytes per process, 3-byte counter) so generated ids
// sort by creation time, like the ids MongoDB itself would hand out, while staying plain strings.
const PROCESS_UNIQUE = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

/** A new 24-hex-digit, time-ordered id string. */
export function newId(): string {
  counter = (counter + 1) & 0xffffff;
  const secs = Math.floor(Date.now() / 1000);
  return secs.toString(16).padStart(8, '0') + PROCESS_UNIQUE + counter.toString(16).padStart(6, '0');
}

/** True for `{...}` objects (not arrays, Dates or class instances). */
export function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy of a document value. Stored documents are treated as immutable values and every
 * document handed out is a fresh copy, so callers can never mutate stored state.
 */
export function cloneValue<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneValue(v[i]);
    return out as T;
  }
  const out: Doc = {};
  for (const k in v as Doc) out[k] = cloneValue((v as Doc)[k]);
  return out as T;
}

class UnsupportedValue extends TypeError {
  readonly path: string[] = [];
  constructor(readonly kind: string) {
    super(kind);
  }
}

function normalizeInner(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return v;
    case 'undefined':
      return null;
    case 'object': {
      if (v === null) return null;
      if (v instanceof Date) return new Date(v.getTime());
      if (Array.isArray(v)) {
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) out[i] = normalizeInner(v[i]);
        return out;
      }
      if (!isPlainObject(v)) throw new UnsupportedValue((v as object).constructor?.name ?? 'object');
      const out: Doc = {};
      for (const k in v) {
        try {
          out[k] = normalizeInner(v[k]);
        } catch (e) {
          // The path is only assembled on the way out of a failure, keeping the common case cheap.
          if (e instanceof UnsupportedValue) e.path.unshift(k);
          throw e;
        }
      }
      return out;
    }
    default:
      throw new UnsupportedValue(typeof v);
  }
}

/**
 * Copies a value supplied by a caller into storable form: plain objects, arrays, strings, numbers,
 * booleans, null and Dates. `undefined` becomes null, as the MongoDB driver serializes it; other
 * types (functions, Maps, class instances, bigint) are rejected so both engines accept the same data.
 */
export function normalizeValue(v: unknown): unknown {
  try {
    return normalizeInner(v);
  } catch (e) {
    if (e instanceof UnsupportedValue)
      throw new TypeError(`unsupported value at '${e.path.join('.') || '(root)'}': ${e.kind}`);
    throw e;
  }
}

/** `normalizeValue` for a whole document. */
export function normalizeDocument(doc: unknown): Doc {
  if (!isPlainObject(doc)) throw new TypeError('a document must be a plain object');
  return normalizeValue(doc) as Doc;
}

/** Splits a dotted path once; callers cache the result. */
export function splitPath(path: string): string[] {
  return path.split('.');
}

function isIndexSegment(seg: string): boolean {
  return seg.length > 0 && seg.length < 10 && /^\d+$/.test(seg);
}

/**
 * Every value a dotted path reaches, with MongoDB's rules: an array met before the end of the path
 * is traversed element by element (and a numeric segment also addresses a position). A missing
 * field contributes `undefined`. Arrays at the end of the path are returned whole.
 */
export function collectValues(doc: unknown, segs: readonly string[]): unknown[] {
  const out: unknown[] = [];
  collectInto(doc, segs, 0, out);
  return out;
}

function collectInto(cur: unknown, segs: readonly string[], i: number, out: unknown[]): void {
  if (i === segs.length) {
    out.push(cur);
    return;
  }
  if (Array.isArray(cur)) {
    const seg = segs[i];
    if (isIndexSegment(seg)) {
      const el = cur[Number(seg)] as unknown;
      if (el !== undefined) collectInto(el, segs, i + 1, out);
    }
    for (const el of cur) if (isPlainObject(el)) collectInto(el, segs, i, out);
    return;
  }
  if (cur !== null && typeof cur === 'object' && !(cur instanceof Date)) {
    collectInto((cur as Doc)[segs[i]], segs, i + 1, out);
    return;
  }
  out.push(undefined);
}

/** The value at a dotted path without array fan-out (`undefined` when absent). */
export function getPath(doc: unknown, segs: readonly string[]): unknown {
  let cur = doc;
  for (const seg of segs) {
    if (cur === null || typeof cur !== 'object' || cur instanceof Date) return undefined;
    cur = (cur as Doc)[seg];
  }
  return cur;
}

/** Sets a dotted path, creating intermediate objects. */
export function setPath(doc: Doc, segs: readonly string[], value: unknown): void {
  let cur: Doc = doc;
  for (let i = 0; i < segs.length - 1; i++) {
    const next = cur[segs[i]];
    if (isPlainObject(next)) {
      cur = next;
    } else {
      const created: Doc = {};
      cur[segs[i]] = created;
      cur = created;
    }
  }
  cur[segs[segs.length - 1]] = value;
}

// ---- EJSON-style encoding for the journal -------------------------------------------------

function needsEncoding(v: unknown): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case 'number':
      return !Number.isFinite(v);
    case 'object':
      if (v instanceof Date) return true;
      if (Array.isArray(v)) {
        for (const el of v) if (needsEncoding(el)) return true;
        return false;
      }
      for (const k in v) if (needsEncoding((v as Doc)[k])) return true;
      return false;
    default:
      return false;
  }
}

function encodeValue(v: unknown): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : { $numberDouble: String(v) };
    case 'object': {
      if (v instanceof Date) {
        const t = v.getTime();
        return { $date: Number.isNaN(t) ? null : new Date(t).toISOString() };
      }
      if (Array.isArray(v)) return v.map(encodeValue);
      const out: Doc = {};
      for (const k in v) out[k] = encodeValue((v as Doc)[k]);
      return out;
    }
    default:
      return v;
  }
}

/**
 * JSON text of a value with Dates as `{"$date": iso}` and non-finite numbers as
 * `{"$numberDouble": ...}` (EJSON relaxed form). Values without either skip the copying walk.
 */
export function encodeJson(v: unknown): string {
  return JSON.stringify(needsEncoding(v) ? encodeValue(v) : v);
}

function reviveInPlace(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = reviveInPlace(v[i]);
    return v;
  }
  const o = v as Doc;
  if ('$date' in o && Object.keys(o).length === 1) {
    return o.$date === null ? new Date(NaN) : new Date(o.$date as string);
  }
  if ('$numberDouble' in o && Object.keys(o).length === 1) return Number(o.$numberDouble);
  for (const k in o) o[k] = reviveInPlace(o[k]);
  return o;
}

/** Inverse of `encodeJson` for a parsed value: turns the EJSON wrappers back into Dates and numbers. */
export function decodeEjson<T = unknown>(parsed: unknown): T {
  return reviveInPlace(parsed) as T;
}
