import { useQuery } from '@tanstack/react-query';
import { $t, activeLocales, i18n, primary, setLanguage } from './i18n';

/** The language menu (active locales of the platform) and a notice when the asked one is not active. */
export function LanguagePicker() {
  const locales = useQuery({ queryKey: ['locales'], queryFn: () => activeLocales(), staleTime: 5 * 60_000 });
  const current = primary(i18n().locale || 'en');
  if (!locales.data?.length) return null;
  const active = locales.data.some((l) => primary(l.code) === current);
  return (
    <>
      <label className="lang">
        <span className="visually-hidden">{$t('language', 'Language')}</span>
        <select value={active ? locales.data.find((l) => primary(l.code) === current)!.code : ''} onChange={(e) => void setLanguage(e.target.value)}>
          {active ? null : <option value="">{current}</option>}
          {locales.data.map((l) => (
            <option key={l.code} value={l.code} lang={l.languageTag}>
              {l.name ?? l.code}
            </option>
          ))}
        </select>
      </label>
      {active ? null : (
        <p className="notice warn lang-notice" role="status">
          {$t('languageInactive', 'The language {lang} is not active on this platform: texts fall back to the default language.', { lang: current })}
        </p>
      )}
    </>
  );
}
