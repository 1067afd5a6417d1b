import type { MessageParams } from './format';
import { createTranslator, type PublicLocale, type Translator, type TranslatorOptions } from './translator';

export { clearFormatCache, formatMessage, type MessageParams } from './format';
export { CatalogLoadError, createTranslator, detectLocale, type FetchLike, type PublicLocale, type Translator, type TranslatorOptions } from './translator';

/** The translator behind the bound `$t`, `setLanguage` and `activeLocales` (the page's own origin until configured). */
let shared: Translator | undefined;

/** Sets up the shared translator (base URL, locale, namespace, fetch) and returns it; call `load()` on it. */
export function configureI18n(options: TranslatorOptions = {}): Translator {
  shared = createTranslator(options);
  return shared;
}

/** The shared translator (created with defaults on first use). */
export function i18n(): Translator {
  shared ??= createTranslator();
  return shared;
}

/** `$t(key, default, params?)` of the shared translator: catalog value, else the default, else the key. */
export function $t(key: string, fallback?: string, params?: MessageParams): string {
  return (shared ??= createTranslator()).t(key, fallback, params);
}

/** Convention 3 on the shared translator: sets the `lang` cookie and reloads (in Node: switches locale and loads). */
export function setLanguage(code: string): Promise<void> {
  return i18n().setLanguage(code);
}

/** The active locales from the shared translator's platform. */
export function activeLocales(): Promise<PublicLocale[]> {
  return i18n().activeLocales();
}
