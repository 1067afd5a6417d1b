import { $t, configureI18n } from '@flowplane/client';

/**
 * The console's strings: catalog namespace `console`, through the kit's `$t` (English defaults
 * inline). `?lang=<code>` sets the `lang` cookie the translator reads (and the platform's
 * Accept-Language decides without one); `<html lang>` follows the locale loaded.
 */
export { $t };

export async function startI18n(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const asked = params.get('lang');
  if (asked && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(asked)) {
    document.cookie = `lang=${encodeURIComponent(asked)}; path=/; max-age=${365 * 24 * 3600}; samesite=lax`;
    params.delete('lang');
    const qs = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`);
  }
  const translator = configureI18n({ ns: 'console', locale: asked ?? undefined });
  try {
    // A catalog that does not come within 3 s leaves the English defaults on screen.
    await Promise.race([translator.load(), new Promise((r) => setTimeout(r, 3000))]);
  } catch {
    // CatalogLoadError: $t keeps answering with the inline defaults.
  }
  if (translator.locale) document.documentElement.lang = translator.locale;
}
