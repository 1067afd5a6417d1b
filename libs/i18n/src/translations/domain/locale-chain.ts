/**
 * Catalog rule 2: the lookup chain of `locale`, most specific first and de-duplicated: the locale,
 * its base (split on `-` or `_`: pl-PL gives pl), the fallback locale, the default locale. An empty
 * locale starts at the fallback.
 */
export function localeChain(locale: string, fallback: string, defaultLocale: string): string[] {
  const chain: string[] = [];
  const add = (l: string) => {
    if (l && !chain.includes(l)) chain.push(l);
  };
  add(locale);
  const cut = locale.search(/[-_]/);
  if (cut > 0) add(locale.slice(0, cut));
  add(fallback);
  add(defaultLocale);
  return chain;
}
