import murmurhash from 'murmurhash';

/**
 * Variant selection of deployments (assistant-deployments-profiles.md rules 7 and 13). It is a
 * contract: the deployments service (`POST /deployments/{id}/select`), the assistant and the
 * flow-runtime dispatcher must put one caller in the same bucket.
 *
 * - Weights are relative and normalised at selection (90+10 and 9+1 split alike); a variant of
 *   weight 0 (or negative, or not finite) is declared but never selected.
 * - Sticky: the value of the deployment's `stickyBy` field of the run `Meta` is hashed with
 *   MurmurHash3 x86 32-bit, seed 0, over its UTF-8 bytes; `hash / 2^32` is the caller's point in
 *   [0, 1), which falls into the variant whose cumulative normalised weight first exceeds it. The
 *   same value keeps its variant while the weights do not change.
 * - Without a sticky value (no `stickyBy`, or the field is absent or empty), a uniform random draw.
 */

/** Anything with a label and a relative weight. */
export interface WeightedVariant {
  label: string;
  weight: number;
}

/** Documented hash of sticky bucketing. */
export const STICKY_HASH = 'murmur3-x86-32, seed 0, UTF-8 bytes of the value; point = hash / 2^32';

const TWO_32 = 2 ** 32;

/** The caller's point in [0, 1) for a sticky value. */
export function stickyPoint(value: string): number {
  return (isAscii(value) ? murmur3Ascii(value) : murmurhash.v3(value, 0)) / TWO_32;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * MurmurHash3 x86 32-bit, seed 0, of an ASCII string read code unit by code unit (for ASCII the
 * code units are the UTF-8 bytes). The `murmurhash` package computes the same value (a test
 * checks it) but encodes every string with TextEncoder first, which halves the selection rate
 * (session ids are ASCII in practice).
 */
function murmur3Ascii(key: string): number {
  const len = key.length;
  const tail = len & 3;
  const blocks = len - tail;
  let h = 0;
  let k: number;
  let i = 0;
  for (; i < blocks; i += 4) {
    k = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 8) | (key.charCodeAt(i + 2) << 16) | (key.charCodeAt(i + 3) << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  k = 0;
  if (tail === 3) k ^= key.charCodeAt(i + 2) << 16;
  if (tail >= 2) k ^= key.charCodeAt(i + 1) << 8;
  if (tail >= 1) {
    k ^= key.charCodeAt(i);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The sticky value of a meta: `meta[stickyBy]` as a string, or undefined when absent or empty. */
export function stickyValueOf(meta: Readonly<Record<string, unknown>> | undefined, stickyBy: string | undefined): string | undefined {
  if (!stickyBy || !meta) return undefined;
  const v = meta[stickyBy];
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return undefined;
}

/**
 * A deployment's variants compiled for selection: build once per change of the variants, then
 * `select` in O(variants) without allocating.
 */
export class VariantSelector<T extends WeightedVariant> {
  private readonly eligible: T[];
  private readonly bounds: number[];

  constructor(variants: readonly T[]) {
    this.eligible = variants.filter((v) => Number.isFinite(v.weight) && v.weight > 0);
    const total = this.eligible.reduce((n, v) => n + v.weight, 0);
    let acc = 0;
    this.bounds = this.eligible.map((v) => (acc += v.weight / total));
  }

  /** Whether any variant can be selected (false when every weight is zero). */
  get hasEligible(): boolean {
    return this.eligible.length > 0;
  }

  /** The variant at a point in [0, 1). */
  at(point: number): T | undefined {
    const { bounds, eligible } = this;
    for (let i = 0; i < bounds.length; i++) if (point < bounds[i]) return eligible[i];
    return eligible[eligible.length - 1];
  }

  /** Sticky when `stickyValue` is given, otherwise a draw of `random`. Undefined when nothing is eligible. */
  select(stickyValue?: string, random: () => number = Math.random): T | undefined {
    return this.at(stickyValue === undefined ? random() : stickyPoint(stickyValue));
  }
}

/** One-off selection (builds a selector; cache `VariantSelector` on hot paths). */
export function selectVariant<T extends WeightedVariant>(variants: readonly T[], stickyValue?: string, random?: () => number): T | undefined {
  return new VariantSelector(variants).select(stickyValue, random);
}
