/**
 * Filter evaluation for the embedded engine. The common shapes (equality, `$in`, range and
 * `$exists` on scalar operands) compile to small closures because building a mingo `Query` costs
 * about 20 µs, which would dominate an indexed point read; everything else goes to mingo, which
 * implements the full MongoDB query language. `filter.util.spec.ts` checks the fast path
 * against mingo on generated documents.
 */
import { Query } from 'mingo';
import { type Doc, collectValues, isPlainObject, normalizeValue, setPath, splitPath } from './document.util';
import type { Filter } from './store.port';

export type Matcher = (doc: Doc) => boolean;

/** True for an object whose keys are query operators (`{$gt: 1}`), as opposed to a literal sub-document. */
export function isOperatorObject(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  for (const k in v) return k.charCodeAt(0) === 36; // '$'
  return false;
}

/** A non-null scalar the fast path and the hash indexes can compare exactly. */
export function isScalarOperand(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Number.isNaN(v);
    case 'object':
      return v instanceof Date && !Number.isNaN(v.getTime());
    default:
      return false;
  }
}

function eqScalar(v: unknown, c: unknown): boolean {
  if (c instanceof Date) return v instanceof Date && v.getTime() === c.getTime();
  return v === c;
}

function anyEq(values: unknown[], c: unknown): boolean {
  for (const v of values) {
    if (eqScalar(v, c)) return true;
    if (Array.isArray(v)) for (const el of v) if (eqScalar(el, c)) return true;
  }
  return false;
}

function typeClass(v: unknown): number {
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (v instanceof Date) return 3;
  return 0;
}

function cmp(a: unknown, b: unknown): number {
  if (a instanceof Date) return a.getTime() - (b as Date).getTime();
  return (a as number | string) < (b as number | string)
    ? -1
    : (a as number | string) > (b as number | string)
      ? 1
      : 0;
}

const RANGE: Record<string, (c: number) => boolean> = {
  $gt: (c) => c > 0,
  $gte: (c) => c >= 0,
  $lt: (c) => c < 0,
  $lte: (c) => c <= 0,
};

function rangePredicate(segs: string[], op: string, operand: unknown): Matcher | undefined {
  const test = RANGE[op];
  const cls = typeClass(operand);
  if (cls === 0 || Number.isNaN(operand)) return undefined;
  const ok = (v: unknown) => typeClass(v) === cls && !Number.isNaN(v) && test(cmp(v, operand));
  return (doc) => {
    for (const v of collectValues(doc, segs)) {
      if (ok(v)) return true;
      if (Array.isArray(v)) for (const el of v) if (ok(el)) return true;
    }
    return false;
  };
}

function isNullish(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  return Array.isArray(v) && v.includes(null);
}

function fieldPredicate(path: string, cond: unknown): Matcher | undefined {
  const segs = splitPath(path);
  const dotted = segs.length > 1;
  if (isScalarOperand(cond)) {
    if (!dotted) {
      // Top-level field: no path walk, no allocation (the point-read hot path).
      return (doc) => {
        const v = doc[path];
        if (eqScalar(v, cond)) return true;
        if (Array.isArray(v)) for (const el of v) if (eqScalar(el, cond)) return true;
        return false;
      };
    }
    return (doc) => anyEq(collectValues(doc, segs), cond);
  }
  if (cond === null) return dotted ? undefined : (doc) => isNullish(doc[path]);
  if (!isOperatorObject(cond)) return undefined;
  const preds: Matcher[] = [];
  for (const op in cond) {
    const operand = cond[op];
    let p: Matcher | undefined;
    switch (op) {
      case '$eq':
      case '$ne': {
        if (isScalarOperand(operand)) p = (doc) => anyEq(collectValues(doc, segs), operand);
        else if (operand === null && !dotted) p = (doc) => isNullish(doc[path]);
        if (p && op === '$ne') {
          const inner = p;
          p = (doc) => !inner(doc);
        }
        break;
      }
      case '$in':
      case '$nin': {
        if (Array.isArray(operand) && operand.every(isScalarOperand)) {
          p = (doc) => {
            const values = collectValues(doc, segs);
            for (const c of operand) if (anyEq(values, c)) return true;
            return false;
          };
          if (op === '$nin') {
            const inner = p;
            p = (doc) => !inner(doc);
          }
        }
        break;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        p = rangePredicate(segs, op, operand);
        break;
      case '$exists':
        if (!dotted && typeof operand === 'boolean') p = (doc) => (doc[path] !== undefined) === operand;
        break;
      default:
        p = undefined;
    }
    if (!p) return undefined;
    preds.push(p);
  }
  if (preds.length === 1) return preds[0];
  return (doc) => preds.every((p) => p(doc));
}

/** Compiles a MongoDB filter into a predicate over stored documents. */
export function compileFilter(filter: Filter): Matcher {
  if (!isPlainObject(filter)) throw new TypeError('a filter must be a plain object');
  const preds: Matcher[] = [];
  for (const key in filter) {
    const p = key.charCodeAt(0) === 36 ? undefined : fieldPredicate(key, filter[key]);
    if (!p) return mingoMatcher(filter);
    preds.push(p);
  }
  if (preds.length === 0) return () => true;
  if (preds.length === 1) return preds[0];
  return (doc) => {
    for (const p of preds) if (!p(doc)) return false;
    return true;
  };
}

/** The full MongoDB query language through mingo (no fast path). */
export function mingoMatcher(filter: Filter): Matcher {
  const q = new Query(filter, {});
  return (doc) => q.test(doc);
}

/** The operand of an equality condition on a field when an exact index lookup can serve it. */
export function equalityOperand(cond: unknown): { value: unknown } | undefined {
  if (isScalarOperand(cond)) return { value: cond };
  if (
    isOperatorObject(cond) &&
    Object.keys(cond).length === 1 &&
    '$eq' in cond &&
    isScalarOperand(cond.$eq)
  ) {
    return { value: cond.$eq };
  }
  return undefined;
}

/** The operands of a `{$in: [...]}` condition whose members an index lookup can serve. */
export function inOperands(cond: unknown): unknown[] | undefined {
  if (
    isOperatorObject(cond) &&
    Object.keys(cond).length === 1 &&
    Array.isArray(cond.$in) &&
    cond.$in.every(isScalarOperand)
  ) {
    return cond.$in;
  }
  return undefined;
}

/**
 * The document an upsert starts from: the filter's equality conditions (`a: v`, `a: {$eq: v}`,
 * also inside `$and`) as fields, as MongoDB does before applying the update.
 */
export function upsertSeed(filter: Filter): Doc {
  const seed: Doc = {};
  const visit = (f: Filter) => {
    for (const key in f) {
      const cond = f[key];
      if (key === '$and' && Array.isArray(cond)) {
        for (const sub of cond) if (isPlainObject(sub)) visit(sub);
        continue;
      }
      if (key.charCodeAt(0) === 36) continue;
      if (isOperatorObject(cond)) {
        if ('$eq' in cond) setPath(seed, splitPath(key), normalizeValue(cond.$eq));
        continue;
      }
      setPath(seed, splitPath(key), normalizeValue(cond));
    }
  };
  visit(filter);
  return seed;
}

/** The `_id` a filter pins by equality, if any. */
export function filterId(filter: Filter): string | undefined {
  const id = filter._id;
  if (typeof id === 'string') return id;
  if (isOperatorObject(id) && typeof id.$eq === 'string') return id.$eq;
  return undefined;
}
