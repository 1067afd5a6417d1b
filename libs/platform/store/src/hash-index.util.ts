/**
 * Secondary indexes of the embedded engine: a hash map from an exact key to the ids holding it.
 * Equality reads on indexed fields become one map lookup, and unique, sparse and compound indexes
 * are enforced on the same structure. Keys follow MongoDB's multikey rules: an array field
 * contributes one key per element, a missing field indexes as null (unless the index is sparse).
 */
import { type Doc, collectValues, encodeJson, splitPath } from './document.util';
import type { IndexSpec } from './store.port';

/** An index definition with its defaults filled in. */
export interface IndexDefinition {
  readonly name: string;
  readonly keys: Record<string, 1 | -1>;
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly expireAfterSeconds?: number;
}

/** MongoDB's default index name (`email_1`, `tenant_1_createdAt_-1`). */
export function defaultIndexName(keys: Record<string, 1 | -1>): string {
  return Object.entries(keys)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
}

/** Validates an index spec and fills in its defaults. */
export function defineIndex(spec: IndexSpec): IndexDefinition {
  const fields = Object.keys(spec.keys ?? {});
  if (fields.length === 0) throw new TypeError('an index needs at least one key');
  for (const f of fields) {
    if (spec.keys[f] !== 1 && spec.keys[f] !== -1) throw new TypeError(`index key '${f}' must be 1 or -1`);
  }
  if (spec.expireAfterSeconds !== undefined && fields.length !== 1)
    throw new TypeError('a TTL index must have exactly one key');
  return {
    name: spec.name ?? defaultIndexName(spec.keys),
    keys: { ...spec.keys },
    unique: spec.unique === true,
    sparse: spec.sparse === true,
    ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
  };
}

/** True when two definitions describe the same index (so re-creating it is a no-op). */
export function sameIndex(a: IndexDefinition, b: IndexDefinition): boolean {
  return (
    a.name === b.name &&
    JSON.stringify(a.keys) === JSON.stringify(b.keys) &&
    a.unique === b.unique &&
    a.sparse === b.sparse &&
    a.expireAfterSeconds === b.expireAfterSeconds
  );
}

/**
 * An index key. Strings, numbers and booleans are used as they are, so a lookup with the
 * caller's own string needs no new string (and V8 reuses its cached hash); the other values are
 * encoded as strings starting with NUL plus a type letter. A string that itself starts with NUL
 * gets a second NUL, so the two kinds never collide.
 */
export type IndexKey = string | number | boolean;

/** The exact-match key of one indexed value. */
export function valueToken(v: unknown): IndexKey {
  switch (typeof v) {
    case 'string':
      return v.charCodeAt(0) === 0 ? '\0\0' + v : v;
    case 'number':
    case 'boolean':
      return v;
    case 'undefined':
      return '\0z';
    case 'object':
      if (v === null) return '\0z';
      if (v instanceof Date) return '\0d' + v.getTime();
      return '\0o' + encodeJson(v);
    default:
      return '\0x' + String(v);
  }
}

// Compound keys are the JSON of their parts; JSON cannot tell NaN from Infinity, so those are spelled out.
function compoundKey(parts: IndexKey[]): string {
  for (const p of parts) {
    if (typeof p === 'number' && !Number.isFinite(p)) return JSON.stringify(parts.map((q) => (typeof q === 'number' && !Number.isFinite(q) ? '\0n' + q : q)));
  }
  return JSON.stringify(parts);
}

const NULL_KEY = '\0z';
const EMPTY_ARRAY_KEY = '\0u';

type Entry = string | Set<string>;

export class HashIndex {
  readonly fields: string[];
  private readonly segs: string[][];
  private readonly single: string | undefined;
  /** A compound index over top-level fields only. */
  private readonly topLevel: boolean;
  private readonly map = new Map<IndexKey, Entry>();

  constructor(readonly def: IndexDefinition) {
    this.fields = Object.keys(def.keys);
    this.segs = this.fields.map(splitPath);
    this.single = this.fields.length === 1 && this.segs[0].length === 1 ? this.fields[0] : undefined;
    this.topLevel = this.fields.length > 1 && this.segs.every((segs) => segs.length === 1);
  }

  /** The keys a document has in this index, or null when a sparse index leaves it out. */
  keysOf(doc: Doc): IndexKey[] | null {
    if (this.single !== undefined) {
      // Fast path for the common top-level scalar field.
      const v = doc[this.single];
      if (v === undefined) return this.def.sparse ? null : [NULL_KEY];
      if (!Array.isArray(v)) return [valueToken(v)];
    } else if (this.topLevel) {
      // Fast path for a compound index of top-level scalars: one key, no fan-out to compute.
      const tokens: IndexKey[] = new Array<IndexKey>(this.fields.length);
      let present = false;
      let scalars = true;
      for (let i = 0; i < tokens.length; i++) {
        const v = doc[this.fields[i]];
        if (Array.isArray(v)) {
          scalars = false;
          break;
        }
        if (v !== undefined) present = true;
        tokens[i] = valueToken(v);
      }
      if (scalars) return !present && this.def.sparse ? null : [compoundKey(tokens)];
    }
    let present = false;
    const perField: IndexKey[][] = this.segs.map((segs) => {
      const tokens = new Set<IndexKey>();
      for (const v of collectValues(doc, segs)) {
        if (v !== undefined) present = true;
        if (Array.isArray(v)) {
          if (v.length === 0) tokens.add(EMPTY_ARRAY_KEY);
          for (const el of v) tokens.add(valueToken(el));
        } else {
          tokens.add(valueToken(v));
        }
      }
      return [...tokens];
    });
    if (!present && this.def.sparse) return null;
    if (perField.length === 1) return perField[0];
    let keys: IndexKey[][] = [[]];
    for (const tokens of perField) keys = keys.flatMap((prefix) => tokens.map((t) => [...prefix, t]));
    return keys.map(compoundKey);
  }

  /**
   * True when `b` certainly has the keys of `a` in this index: every indexed field is top-level
   * and holds the same scalar (or an equal Date) in both. False means "compare the keys".
   */
  sameValues(a: Doc, b: Doc): boolean {
    for (const segs of this.segs) {
      if (segs.length !== 1) return false;
      const x = a[segs[0]];
      const y = b[segs[0]];
      if (x === y && (x === null || typeof x !== 'object')) continue;
      if (x instanceof Date && y instanceof Date && x.getTime() === y.getTime()) continue;
      return false;
    }
    return true;
  }

  /** The lookup key for equality on every field of the index, in index field order. */
  lookupKey(values: unknown[]): IndexKey {
    const tokens = values.map(valueToken);
    return tokens.length === 1 ? tokens[0] : compoundKey(tokens);
  }

  add(id: string, keys: IndexKey[] | null): void {
    if (!keys) return;
    for (const k of keys) {
      const e = this.map.get(k);
      if (e === undefined) this.map.set(k, id);
      else if (typeof e === 'string') {
        if (e !== id) this.map.set(k, new Set([e, id]));
      } else e.add(id);
    }
  }

  remove(id: string, keys: IndexKey[] | null): void {
    if (!keys) return;
    for (const k of keys) {
      const e = this.map.get(k);
      if (e === undefined) continue;
      if (typeof e === 'string') {
        if (e === id) this.map.delete(k);
      } else {
        e.delete(id);
        if (e.size === 1) this.map.set(k, e.values().next().value as string);
      }
    }
  }

  /** The ids stored under a key. */
  lookup(key: IndexKey): Iterable<string> {
    const e = this.map.get(key);
    if (e === undefined) return [];
    return typeof e === 'string' ? [e] : e;
  }

  /** Another document's id already holding one of `keys`, with the key, if any. */
  conflict(keys: IndexKey[] | null, selfId: string): { id: string; key: IndexKey } | undefined {
    if (!keys) return undefined;
    for (const k of keys) {
      const e = this.map.get(k);
      if (e === undefined) continue;
      if (typeof e === 'string') {
        if (e !== selfId) return { id: e, key: k };
      } else {
        for (const id of e) if (id !== selfId) return { id, key: k };
      }
    }
    return undefined;
  }

  clear(): void {
    this.map.clear();
  }
}

/** True when two key lists of one document are the same (in the order keysOf gives them). */
export function sameKeys(a: IndexKey[] | null, b: IndexKey[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
