import type { Locale } from './locale.entity';

/**
 * URL prefixes that are country codes rather than language subtags, mapped to the language
 * (catalog rule 10). An admin overrides any of them by setting the locale's `language`.
 */
export const LANGUAGE_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  cz: 'cs',
  ee: 'et',
  se: 'sv',
  dk: 'da',
  gr: 'el',
  jp: 'ja',
  kr: 'ko',
  ua: 'uk',
  cn: 'zh',
  si: 'sl',
  rs: 'sr',
  by: 'be',
  al: 'sq',
  am: 'hy',
  ge: 'ka',
  il: 'he',
  vn: 'vi',
  at: 'de',
  br: 'pt',
});

/** The canonical BCP 47 form of `tag` (ICU's own check, `Intl.getCanonicalLocales`), or undefined when it is not one. */
export function canonicalLanguageTag(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.replace(/_/g, '-'));
    return canonical;
  } catch {
    return undefined;
  }
}

/**
 * The language of a locale, never empty: its own `language`, else the alias of its code (the part
 * before `-`/`_` mapped, region kept: `cz-CZ` gives `cs-CZ`), else the code itself in canonical form.
 */
export function languageTag(locale: Pick<Locale, 'code' | 'language'>): string {
  if (locale.language) return locale.language;
  const code = locale.code;
  const [base, ...rest] = code.split(/[-_]/);
  const alias = LANGUAGE_ALIASES[base.toLowerCase()];
  const candidate = alias ? [alias, ...rest].join('-') : code;
  return canonicalLanguageTag(candidate) ?? canonicalLanguageTag(alias ?? '') ?? code;
}
