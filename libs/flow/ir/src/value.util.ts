/** Small helpers for reading untrusted JSON-like values. */

/** A plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property check that is safe for keys such as `constructor` or `__proto__`. */
export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Defines an own enumerable property, even for `__proto__` (plain assignment would set the prototype). */
export function setOwn<T>(o: Record<string, T>, k: string, v: T): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Deep copy of JSON data, so converted documents never share objects with their source. */
export function cloneJson<T>(v: T): T {
  return structuredClone(v);
}
