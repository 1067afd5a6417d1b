import { compileCondition } from './condition.compiler';
import type { CompiledCondition } from './condition.port';

/**
 * Compiled conditions are immutable and pure, so one compiled instance per source text can be
 * shared by every flow version that uses it; the LRU bound keeps a long-lived runtime from growing
 * without limit as versions come and go.
 */

/** Default number of distinct condition sources the shared cache keeps. */
export const DEFAULT_CONDITION_CACHE_SIZE = 1024;

/**
 * A bounded least-recently-used cache of compiled conditions keyed by source text. A hit only stamps
 * the entry (no Map reordering on the hot path); the scan for the oldest stamp happens on eviction,
 * which follows a compile and costs less than it.
 */
export class ConditionCache {
  private readonly entries = new Map<string, { compiled: CompiledCondition; used: number }>();
  private readonly blank = compileCondition(undefined);
  private clock = 0;

  constructor(readonly capacity: number = DEFAULT_CONDITION_CACHE_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ConditionCache capacity must be a positive integer, got ${capacity}`);
  }

  /** Number of sources currently cached. */
  get size(): number {
    return this.entries.size;
  }

  /** The compiled form of `source`, compiling it on a miss. */
  get(source: string | undefined | null): CompiledCondition {
    if (typeof source !== 'string') return source === undefined || source === null ? this.blank : compileCondition(source);
    const hit = this.entries.get(source);
    if (hit) {
      hit.used = ++this.clock;
      return hit.compiled;
    }
    const compiled = compileCondition(source);
    if (this.entries.size >= this.capacity) this.evictOldest();
    this.entries.set(source, { compiled, used: ++this.clock });
    return compiled;
  }

  /** Drops every cached condition. */
  clear(): void {
    this.entries.clear();
  }

  private evictOldest(): void {
    let oldest: string | undefined;
    let stamp = Infinity;
    for (const [key, entry] of this.entries) {
      if (entry.used < stamp) {
        stamp = entry.used;
        oldest = key;
      }
    }
    if (oldest !== undefined) this.entries.delete(oldest);
  }
}

const shared = new ConditionCache();

/** `compileCondition` through a process-wide LRU cache, for reuse across runs of a flow version. */
export function compileConditionCached(source: string | undefined | null): CompiledCondition {
  return shared.get(source);
}
