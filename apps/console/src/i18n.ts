import { $t, activeLocales, configureI18n, i18n, setLanguage } from '@flowplane/client';

/**
 * The console's strings: catalog namespace `console`, through the kit's `$t` (English defaults
 * inline). `?lang=<code>` sets the `lang` cookie; without a cookie the browser's language decides
 * (the kit reads navigator.language; index.html's own `lang="en"` is lifted before it looks), then
 * the platform's default. `<html lang>` follows the locale loaded.
 */
export { $t, activeLocales, i18n, setLanguage };

const LANG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export async function startI18n(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const asked = params.get('lang');
  if (asked && LANG.test(asked)) {
    document.cookie = `lang=${encodeURIComponent(asked)}; path=/; max-age=${365 * 24 * 3600}; samesite=lax`;
    params.delete('lang');
    const qs = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`);
  }
  // The page's static lang="en" would otherwise win over the browser's language.
  document.documentElement.removeAttribute('lang');
  const translator = configureI18n({ ns: 'console', locale: asked && LANG.test(asked) ? asked : undefined });
  try {
    // A catalog that does not come within 3 s leaves the English defaults on screen.
    await Promise.race([translator.load(), new Promise((r) => setTimeout(r, 3000))]);
  } catch {
    // CatalogLoadError: $t keeps answering with the inline defaults.
  }
  // The catalogs are per language (`pl`, `en`), so the page says the language, not the region.
  document.documentElement.lang = primary(translator.locale || 'en');
}

/** The primary subtag of a locale code (`pl-PL` → `pl`). */
export function primary(code: string): string {
  return code.split('-')[0].toLowerCase();
}
