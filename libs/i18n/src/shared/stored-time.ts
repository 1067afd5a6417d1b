/**
 * A stored time as a Date, or undefined when absent or unreadable. Records are expected to carry
 * their times, but one written by an older version or by hand may not, and `new Date(undefined)` is
 * an Invalid Date that every formatter (`toISOString`) throws on.
 */
export function storedTime(v: unknown): Date | undefined {
  if (!(v instanceof Date) && typeof v !== 'string' && typeof v !== 'number') return undefined;
  const d = new Date(v);
  return Number.isFinite(d.getTime()) ? d : undefined;
}

/** The readable ones of the given times; the others left out rather than kept as Invalid Date. */
export function storedTimes<K extends string>(given: Record<K, unknown>): Partial<Record<K, Date>> {
  const out: Partial<Record<K, Date>> = {};
  for (const k of Object.keys(given) as K[]) {
    const d = storedTime(given[k]);
    if (d) out[k] = d;
  }
  return out;
}

/** A record's time for a response: null when the record was stored without one. */
export function isoOrNull(d: Date | undefined): string | null {
  return d ? d.toISOString() : null;
}
