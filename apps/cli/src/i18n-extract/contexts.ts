/**
 * Translator notes from `i18n-contexts.json` (client convention 5): an object mapping a key, or a
 * prefix glob ending in `*`, to a free-form note. The most specific match wins: an exact key beats
 * every glob, a longer prefix beats a shorter one (`*` alone matches every key).
 */
export interface ContextMap {
  /** The note for `key`, or undefined when nothing matches. */
  noteFor(key: string): string | undefined;
  readonly size: number;
}

/** Reads the parsed JSON of a contexts file; throws an Error naming the first bad entry. */
export function contextMap(json: unknown): ContextMap {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('the contexts file must hold a JSON object of key or "prefix*" to note');
  const exact = new Map<string, string>();
  const globs: Array<{ prefix: string; note: string }> = [];
  for (const [pattern, note] of Object.entries(json as Record<string, unknown>)) {
    if (typeof note !== 'string') throw new Error(`the note of ${JSON.stringify(pattern)} must be a string`);
    const star = pattern.indexOf('*');
    if (star === -1) exact.set(pattern, note);
    else if (star === pattern.length - 1) globs.push({ prefix: pattern.slice(0, -1), note });
    else throw new Error(`${JSON.stringify(pattern)}: a glob has one "*", at its end`);
  }
  // Longest prefix first: the first glob that matches is the most specific one.
  globs.sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    noteFor(key) {
      const note = exact.get(key);
      if (note !== undefined) return note;
      return globs.find((g) => key.startsWith(g.prefix))?.note;
    },
    size: exact.size + globs.length,
  };
}
