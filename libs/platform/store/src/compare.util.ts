/**
 * MongoDB's cross-type ordering (null < numbers < strings < objects < arrays < booleans < Dates)
 * and its sort rules for arrays (ascending sorts by the smallest element, descending by the
 * largest), so the embedded engine returns the same order the MongoDB adapter would.
 */
import { type Doc, collectValues, splitPath } from './document.util';
import type { Sort } from './store.port';

function typeRank(v: unknown): number {
  if (v === null || v === undefined) return 1;
  switch (typeof v) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    case 'object':
      if (v instanceof Date) return 9;
      if (v instanceof RegExp) return 11;
      return Array.isArray(v) ? 5 : 4;
    default:
      return 12;
  }
}

/** Total order over stored values following MongoDB's BSON comparison. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
      return 0;
    case 2: {
      const x = a as number;
      const y = b as number;
      // MongoDB orders NaN below every other number.
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
      if (Number.isNaN(y)) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 8:
      return a === b ? 0 : a ? 1 : -1;
    case 9: {
      const x = (a as Date).getTime();
      const y = (b as Date).getTime();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    case 4: {
      const ka = Object.keys(a as Doc);
      const kb = Object.keys(b as Doc);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const av = (a as Doc)[ka[i]];
        const bv = (b as Doc)[kb[i]];
        const tr = typeRank(av) - typeRank(bv);
        if (tr !== 0) return tr < 0 ? -1 : 1;
        if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
        const c = compareValues(av, bv);
        if (c !== 0) return c;
      }
      return ka.length - kb.length;
    }
    default:
      return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }
}

const EMPTY_ARRAY_KEY = Symbol('empty-array');

// The value a document sorts by for one field: arrays contribute their smallest element
// ascending and their largest descending; an empty array sorts before null.
function sortKey(doc: Doc, segs: readonly string[], dir: 1 | -1): unknown {
  const values = collectValues(doc, segs);
  let best: unknown = undefined;
  let have = false;
  const consider = (v: unknown) => {
    if (!have || compareValues(v, best) * dir < 0) {
      best = v;
      have = true;
    }
  };
  for (const v of values) {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        if (values.length === 1) return EMPTY_ARRAY_KEY;
        continue;
      }
      for (const el of v) consider(el);
    } else {
      consider(v);
    }
  }
  return best;
}

function compareKeys(a: unknown, b: unknown): number {
  if (a === EMPTY_ARRAY_KEY || b === EMPTY_ARRAY_KEY) {
    if (a === b) return 0;
    return a === EMPTY_ARRAY_KEY ? -1 : 1;
  }
  return compareValues(a, b);
}

/** Sorts documents (in place) by a sort specification, precomputing the keys once per document. */
export function sortDocuments(docs: Doc[], sort: Sort): Doc[] {
  const fields = Object.entries(sort).map(
    ([path, dir]) => ({ segs: splitPath(path), dir: dir === -1 ? -1 : 1 }) as const,
  );
  if (fields.length === 0) return docs;
  const keyed = docs.map((d, i) => ({ d, i, k: fields.map((f) => sortKey(d, f.segs, f.dir)) }));
  keyed.sort((x, y) => {
    for (let j = 0; j < fields.length; j++) {
      const c = compareKeys(x.k[j], y.k[j]);
      if (c !== 0) return c * fields[j].dir;
    }
    return x.i - y.i;
  });
  for (let i = 0; i < keyed.length; i++) docs[i] = keyed[i].d;
  return docs;
}
