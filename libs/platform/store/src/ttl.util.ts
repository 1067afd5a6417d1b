/**
 * TTL semantics shared by both engines. ARCHITECTURE §2: TTL is never trusted for correctness
 * (MongoDB's reaper runs every 60 s), so every filter-taking operation also excludes expired
 * documents. A document expires when the indexed field holds a Date (or an array with a Date)
 * at or before `now - expireAfterSeconds`; other values never expire, like MongoDB's TTL monitor.
 */
import { type Doc, collectValues, splitPath } from './document.util';
import type { Filter, IndexSpec } from './store.port';

/** One TTL index reduced to what expiry needs. */
export interface TtlRule {
  readonly field: string;
  readonly segs: readonly string[];
  readonly expireAfterSeconds: number;
}

/** The TTL rule of an index spec, or undefined when it has none. */
export function ttlRuleOf(spec: IndexSpec): TtlRule | undefined {
  if (spec.expireAfterSeconds === undefined) return undefined;
  const fields = Object.keys(spec.keys);
  if (fields.length !== 1) throw new TypeError('a TTL index must have exactly one key');
  if (!Number.isFinite(spec.expireAfterSeconds) || spec.expireAfterSeconds < 0) {
    throw new TypeError('expireAfterSeconds must be a non-negative number');
  }
  return { field: fields[0], segs: splitPath(fields[0]), expireAfterSeconds: spec.expireAfterSeconds };
}

function dateExpired(v: unknown, rule: TtlRule, now: number): boolean {
  return v instanceof Date && v.getTime() + rule.expireAfterSeconds * 1000 <= now;
}

/** True when any TTL rule says the document has expired at `now` (ms since epoch). */
export function isExpired(doc: Doc, rules: readonly TtlRule[], now: number): boolean {
  for (const rule of rules) {
    for (const v of collectValues(doc, rule.segs)) {
      if (dateExpired(v, rule, now)) return true;
      if (Array.isArray(v)) for (const el of v) if (dateExpired(el, rule, now)) return true;
    }
  }
  return false;
}

/**
 * `filter` narrowed to documents that have not expired at `now`, for engines that evaluate
 * filters server-side. `$lte` on a Date only matches Dates (type bracketing), so `$not` keeps
 * documents whose field is missing or not a Date, exactly like `isExpired`.
 */
export function withLiveFilter(filter: Filter, rules: readonly TtlRule[], now: number): Filter {
  if (rules.length === 0) return filter;
  const live = rules.map((r) => ({
    [r.field]: { $not: { $lte: new Date(now - r.expireAfterSeconds * 1000) } },
  }));
  const parts = Object.keys(filter).length === 0 ? live : [filter, ...live];
  return parts.length === 1 ? parts[0] : { $and: parts };
}

/** A filter matching the documents that have expired at `now` under any rule (for reaping). */
export function expiredFilter(rules: readonly TtlRule[], now: number): Filter {
  const parts = rules.map((r) => ({ [r.field]: { $lte: new Date(now - r.expireAfterSeconds * 1000) } }));
  return parts.length === 1 ? parts[0] : { $or: parts };
}
