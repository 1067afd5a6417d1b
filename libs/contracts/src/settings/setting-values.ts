import type { SettingField } from './setting-field';

/**
 * Value rules of module settings shared by the profiles service (which stores and serves them) and
 * the public-settings reader (which resolves locales from a cached snapshot). Framework-free.
 */

/** A localized setting value: locale to text. */
export type LocalizedText = Record<string, string>;

/** Source locale when `I18N_SOURCE_LOCALE` (and `I18N_FALLBACK_LOCALE`) are unset. */
export const DEFAULT_SOURCE_LOCALE = 'en';

/**
 * Shape of a locale key in a localized value: a language tag or URL code such as `en`, `pl-PL`,
 * `zh_Hant`. Any such string is accepted (localization.md rule 4); dots and dollars never are,
 * because locale keys become field names in the store.
 */
export const LOCALE_PATTERN = /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/;

/**
 * Default deny (localization.md, settings rule 2): a setting is readable without a token, and
 * expandable as a `[[ module.key ]]` token, only when it is declared public and not sensitive.
 */
export function isPublicSetting(field: Pick<SettingField, 'public' | 'sensitive'>): boolean {
  return field.public === true && field.sensitive !== true;
}

/** True for a plain object whose values are all strings (a stored or submitted localized value). */
export function isLocalizedText(value: unknown): value is LocalizedText {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === 'string');
}

/**
 * The lookup order for a localized value: the requested locale, its base language (`pl-PL` gives
 * `pl`), then the source locale. De-duplicated; an empty or absent request means the source language.
 */
export function localeChain(requested: string | undefined, sourceLocale: string): string[] {
  const chain: string[] = [];
  const add = (l: string | undefined) => {
    if (l && !chain.includes(l)) chain.push(l);
  };
  if (requested) {
    add(requested);
    add(requested.split(/[-_]/)[0]);
  }
  add(sourceLocale);
  return chain;
}

/** The text chosen for a locale and the locale it was found under. */
export interface ResolvedText {
  value: string;
  locale: string;
}

/**
 * Picks the text for `requested` from a localized value (localization.md, settings rule 8): the
 * requested locale (then its base), the source locale, then any non-empty value (lowest locale key
 * first, so every engine and replica picks the same one). Empty strings never count.
 */
export function resolveLocalizedText(
  value: LocalizedText,
  requested: string | undefined,
  sourceLocale: string,
): ResolvedText | undefined {
  for (const locale of localeChain(requested, sourceLocale)) {
    const text = value[locale];
    if (typeof text === 'string' && text !== '') return { value: text, locale };
  }
  for (const locale of Object.keys(value).sort()) {
    const text = value[locale];
    if (typeof text === 'string' && text !== '') return { value: text, locale };
  }
  return undefined;
}

/**
 * What `GET /internal/public-settings` answers: every public, non-sensitive setting that has a
 * value, effective (stored, else env, else default). Localized settings carry their whole
 * locale map so a reader resolves any locale from one fetch.
 */
export interface PublicSettingsSnapshot {
  /** The locale a plain (non-map) localized value is written in. */
  sourceLocale: string;
  /** module to key to value; localized values are locale maps. */
  settings: Record<string, Record<string, PublicSettingValue>>;
}

/** One value of a public settings snapshot. */
export type PublicSettingValue =
  | { localized: false; value: unknown }
  | { localized: true; value: LocalizedText };

/** Renders a setting value as text for token expansion; undefined for unset or empty values. */
export function settingValueAsText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text === '' ? undefined : text;
}
