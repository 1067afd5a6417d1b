import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { href, Link } from '../../router';

export type LocaleView = { code: string; language?: string; languageTag: string; name?: string; active: boolean; isDefault: boolean; isFallback: boolean; isSource: boolean };

/** The locale registry (every locale, active or not). */
export function useLocales() {
  return useQuery({ queryKey: ['i18n', 'locales'], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/i18n/locales')) as LocaleView[] });
}

/** The source locale: the registry's flag, else the fallback, else `en`. */
export function sourceLocaleOf(locales: LocaleView[] | undefined): string {
  return locales?.find((l) => l.isSource)?.code ?? locales?.find((l) => l.isFallback)?.code ?? 'en';
}

/** The sub-navigation of the Languages area. */
export function CatalogTabs({ current }: { current: string }) {
  const tabs: Array<[string, string]> = [
    ['keys', $t('catalog.tab.keys', 'Keys')],
    ['coverage', $t('catalog.tab.coverage', 'Coverage')],
    ['review', $t('catalog.tab.review', 'Review queue')],
    ['glossary', $t('catalog.tab.glossary', 'Glossary')],
    ['files', $t('catalog.tab.files', 'Import and export')],
    ['locales', $t('catalog.tab.locales', 'Locales')],
  ];
  return (
    <nav className="tabs" aria-label={$t('catalog.tabs', 'Languages sections')}>
      {tabs.map(([id, label]) => (
        <Link key={id} to={href(id === 'keys' ? ['languages'] : ['languages', id])} ariaCurrent={current === id}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
