import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, Loading, PageTitle } from '../../ui';
import { CatalogTabs } from './shared';

type Item = { ns: string; locale: string; keys: number; translated: number; machine: number; human: number; stale: number; pending: number; percent: { translated: number } };

/** Coverage per namespace and locale: a bar each (a native <meter>), and the counts beside it as text. */
export default function CoveragePage() {
  const coverage = useQuery({ queryKey: ['i18n', 'coverage'], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/i18n/coverage')) as { items: Item[] } });
  const byNs = new Map<string, Item[]>();
  for (const it of coverage.data?.items ?? []) byNs.set(it.ns, [...(byNs.get(it.ns) ?? []), it]);
  return (
    <>
      <PageTitle>{$t('catalog.coverage.title', 'Coverage')}</PageTitle>
      <CatalogTabs current="coverage" />
      {coverage.isPending ? <Loading /> : null}
      <ErrorNotice error={coverage.error} onRetry={() => void coverage.refetch()} />
      {[...byNs.entries()].map(([ns, items]) => (
        <table key={ns} className="coverage">
          <caption>{ns ? $t('catalog.inNs', 'namespace {ns}', { ns }) : $t('catalog.defaultNs', 'default namespace')}</caption>
          <thead>
            <tr>
              <th scope="col">{$t('catalog.locale', 'Locale')}</th>
              <th scope="col">{$t('catalog.coverage.translated', 'Translated')}</th>
              <th scope="col">{$t('catalog.coverage.counts', 'Keys, machine, human, stale, pending')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((it) => (
              <tr key={it.locale}>
                <th scope="row">{it.locale}</th>
                <td>
                  <meter min={0} max={100} value={it.percent.translated} aria-label={$t('catalog.coverage.bar', '{locale} in {ns}: {percent}% translated', { locale: it.locale, ns: ns || '-', percent: it.percent.translated })} />{' '}
                  {it.percent.translated}%
                </td>
                <td className="small">
                  {$t('catalog.coverage.line', '{translated} of {keys} · {machine} machine · {human} human · {stale} stale · {pending} pending', it)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </>
  );
}
