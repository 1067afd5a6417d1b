/** A locale-to-text map as pages and fragment markers hold it. */
export type LocaleMap = Readonly<Record<string, string>>;

/**
 * The locale chain of content reads (settings rule 10 with the base of catalog rule 2): the
 * requested locale, its base (`pt-BR` gives `pt`), the fallback locale, de-duplicated. Any
 * non-empty value comes after the chain (`pickText`).
 */
export function contentChain(requested: string, fallback: string): string[] {
  const chain: string[] = [];
  const add = (l: string) => {
    if (l && !chain.includes(l)) chain.push(l);
  };
  add(requested);
  const cut = requested.search(/[-_]/);
  if (cut > 0) add(requested.slice(0, cut));
  add(fallback);
  return chain;
}

/** The text of the first locale of `chain` with a non-empty string, then any non-empty value (in key order); undefined when none. */
export function pickText(map: LocaleMap | undefined, chain: readonly string[]): { locale: string; text: string } | undefined {
  if (!map) return undefined;
  for (const l of chain) {
    const v = Object.prototype.hasOwnProperty.call(map, l) ? map[l] : undefined;
    if (typeof v === 'string' && v !== '') return { locale: l, text: v };
  }
  for (const l of Object.keys(map)) {
    const v = map[l];
    if (typeof v === 'string' && v !== '') return { locale: l, text: v };
  }
  return undefined;
}
