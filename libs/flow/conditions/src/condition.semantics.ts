/**
 * Value semantics of the condition language: field access, loose equality, ordering with
 * string-to-number auto-parse, truthiness. Pure functions on `unknown`, none of which throw by
 * themselves (a throwing getter or proxy trap in a packet can; the evaluator catches that).
 */

const hasOwn = Object.prototype.hasOwnProperty;

/** A canonical array index segment (`0`, `12`, not `01`): such a segment indexes arrays. */
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * What a string must look like to be auto-parsed as a number: optional sign, digits with an optional
 * fraction (or a bare fraction), optional exponent, surrounding whitespace ignored. No hex, no
 * `Infinity`, no empty string.
 */
const NUMERIC = /^\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*$/;

/** The array index a path segment denotes, or -1 when it is not a canonical index. */
export function segmentIndex(segment: string): number {
  if (!INDEX.test(segment)) return -1;
  const n = Number(segment);
  return Number.isSafeInteger(n) ? n : -1;
}

/**
 * One step of a path: an own property of a plain object, or an element of an array when the segment
 * is a canonical index. Anything else (primitives, missing keys, inherited properties such as
 * `constructor`, `length` of an array) is null, as is an `undefined` value.
 */
export function readField(value: unknown, key: string, index: number): unknown {
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    if (index < 0 || index >= value.length) return null;
    const element: unknown = value[index];
    return element === undefined ? null : element;
  }
  if (!hasOwn.call(value, key)) return null;
  const field: unknown = (value as Record<string, unknown>)[key];
  return field === undefined ? null : field;
}

/** A whole value as a condition sees it: `undefined` is null. */
export function normalize(value: unknown): unknown {
  return value === undefined ? null : value;
}

/** The number a string denotes under the auto-parse rule, or NaN. */
export function parseNumeric(text: string): number {
  return NUMERIC.test(text) ? Number(text) : NaN;
}

/**
 * Loose equality: identical primitives (strings exactly, booleans, null) and the same object
 * reference are equal; numbers compare by value (1 == 1.0, NaN equals nothing); a number and a
 * numeric string compare as numbers ("10" == 10, "1e1" == 10); every other pair of different types
 * is unequal (true != "true", 0 != null, "" != null, 1 != true).
 */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' || ta === 'bigint') {
    if (tb === 'number' || tb === 'bigint') return (a as number) == (b as number);
    if (tb === 'string') return parseNumeric(b as string) == (a as number);
    return false;
  }
  if (ta === 'string' && (tb === 'number' || tb === 'bigint')) return parseNumeric(a as string) == (b as number);
  return false;
}

/**
 * Ordering: negative, zero or positive, or NaN when the pair is not ordered (so every comparison
 * operator is false). Two strings compare lexicographically by UTF-16 code unit ("2024-01-02" >
 * "2024-01-01"); a string beside a number is auto-parsed ("10" > 9) and is unordered when it does not
 * parse; numbers compare by value; anything else (booleans, null, objects) is unordered.
 */
export function order(a: unknown, b: unknown): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'string' && tb === 'string') return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  const x = ta === 'number' || ta === 'bigint' ? (a as number) : ta === 'string' ? parseNumeric(a as string) : NaN;
  const y = tb === 'number' || tb === 'bigint' ? (b as number) : tb === 'string' ? parseNumeric(b as string) : NaN;
  return x < y ? -1 : x > y ? 1 : x == y ? 0 : NaN;
}

