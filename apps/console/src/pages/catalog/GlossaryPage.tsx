import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, Loading, PageTitle } from '../../ui';
import { CatalogTabs } from './shared';

type Entry = { term: string; locale?: string; translation?: string; doNotTranslate?: boolean };

/** The glossary: terms with a fixed translation per locale, or kept verbatim. Saved as one list. */
export default function GlossaryPage() {
  const client = useQueryClient();
  const glossary = useQuery({ queryKey: ['i18n', 'glossary'], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/i18n/glossary')) as { entries: Entry[] } });
  const [entries, setEntries] = useState<Entry[]>([]);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (glossary.data) setEntries(glossary.data.entries);
  }, [glossary.data]);
  const save = useMutation({
    mutationFn: async (list: Entry[]) =>
      unwrap(
        await api.i18n.PUT('/api/v1/admin/i18n/glossary', {
          body: { entries: list.map((e) => ({ term: e.term.trim(), ...(e.locale ? { locale: e.locale.trim() } : {}), ...(e.doNotTranslate ? { doNotTranslate: true } : { translation: e.translation ?? '' }) })) },
        }),
      ),
    onSuccess: () => {
      setSaved(true);
      void client.invalidateQueries({ queryKey: ['i18n', 'glossary'] });
    },
  });
  const set = (i: number, patch: Partial<Entry>) => {
    setSaved(false);
    setEntries(entries.map((e, j) => (j === i ? { ...e, ...patch } : e)));
  };
  return (
    <>
      <PageTitle>{$t('catalog.glossary.title', 'Glossary')}</PageTitle>
      <CatalogTabs current="glossary" />
      {glossary.isPending ? <Loading /> : null}
      <ErrorNotice error={glossary.error} onRetry={() => void glossary.refetch()} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(entries);
        }}
      >
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('catalog.glossary.term', 'Term')}</th>
              <th scope="col">{$t('catalog.locale', 'Locale')}</th>
              <th scope="col">{$t('catalog.glossary.translation', 'Translation')}</th>
              <th scope="col">{$t('catalog.glossary.keep', 'Do not translate')}</th>
              <th scope="col">{$t('catalog.actions', 'Actions')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={i}>
                <td>
                  <input aria-label={$t('catalog.glossary.termN', 'Term {n}', { n: i + 1 })} value={e.term} required maxLength={200} onChange={(ev) => set(i, { term: ev.target.value })} />
                </td>
                <td>
                  <input aria-label={$t('catalog.glossary.localeN', 'Locale of term {n} (empty: every locale)', { n: i + 1 })} value={e.locale ?? ''} size={6} onChange={(ev) => set(i, { locale: ev.target.value })} />
                </td>
                <td>
                  <input aria-label={$t('catalog.glossary.translationN', 'Translation of term {n}', { n: i + 1 })} value={e.translation ?? ''} disabled={e.doNotTranslate} required={!e.doNotTranslate} onChange={(ev) => set(i, { translation: ev.target.value })} />
                </td>
                <td>
                  <input type="checkbox" aria-label={$t('catalog.glossary.keepN', 'Keep term {n} verbatim', { n: i + 1 })} checked={Boolean(e.doNotTranslate)} onChange={(ev) => set(i, { doNotTranslate: ev.target.checked })} />
                </td>
                <td>
                  <button type="button" onClick={() => setEntries(entries.filter((_, j) => j !== i))}>
                    {$t('catalog.glossary.remove', 'Remove term {n}', { n: i + 1 })}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ErrorNotice error={save.error} />
        {saved ? <p role="status">{$t('catalog.glossary.saved', 'Glossary saved.')}</p> : null}
        <div className="row">
          <button type="button" onClick={() => setEntries([...entries, { term: '' }])}>
            {$t('catalog.glossary.add', 'Add a term')}
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {$t('catalog.glossary.save', 'Save the glossary')}
          </button>
        </div>
      </form>
    </>
  );
}
