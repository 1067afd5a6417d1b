import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, FlowplaneApiError, unwrap } from '../../api';
import { $t } from '../../i18n';
import { fragmentUnits, fragmentUnitText, unitStates } from '../../lib/content-state';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { sourceLocaleOf, useLocales } from '../catalog/shared';
import { ContentTabs, type FragmentView, type RunReport, RunSummary, UnitStatesTable } from './shared';

/** One fragment: its JSON (localized leaves as {"_i18n": {...}} markers), flags, the state of every marked leaf. */
export default function FragmentEditor({ fragmentKey }: { fragmentKey: string }) {
  const client = useQueryClient();
  const { route } = useRoute();
  const locales = useLocales();
  const source = sourceLocaleOf(locales.data);
  const fragment = useQuery({
    queryKey: ['content', 'fragment', fragmentKey],
    queryFn: async () => {
      try {
        return unwrap(await api.i18n.GET('/api/v1/admin/content/fragments/{key}', { params: { path: { key: fragmentKey } } })) as unknown as FragmentView;
      } catch (e) {
        if (e instanceof FlowplaneApiError && e.status === 404 && route.query.get('new')) return null;
        throw e;
      }
    },
  });
  const [text, setText] = useState('{}');
  const [ready, setReady] = useState(false);
  const [review, setReview] = useState(false);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    if (fragment.data === undefined) return;
    setText(JSON.stringify(fragment.data?.data ?? {}, null, 2));
    setReady(fragment.data?.translation.translationReady ?? false);
    setReview(fragment.data?.translation.reviewRequired ?? false);
  }, [fragment.data]);
  const save = useMutation({
    mutationFn: async (data: unknown) => unwrap(await api.i18n.PUT('/api/v1/admin/content/fragments/{key}', { params: { path: { key: fragmentKey } }, body: { data: data as never, translationReady: ready, reviewRequired: review } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['content'] }),
  });
  const translate = useMutation({
    mutationFn: async () => unwrap(await api.i18n.POST('/api/v1/admin/content/translations/run', { body: { fragments: [fragmentKey] } })) as unknown as RunReport,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['content'] }),
  });
  if (fragment.isPending || locales.isPending) return <Loading />;
  if (fragment.error) return <ErrorNotice error={fragment.error} onRetry={() => void fragment.refetch()} />;
  const f = fragment.data ?? undefined;
  const codes = [...new Set([source, ...(locales.data ?? []).filter((l) => l.active).map((l) => l.code)])];
  const states = f ? unitStates(f.translation, fragmentUnits(f.data), codes, source, (u, l) => fragmentUnitText(f.data, u, l)) : [];
  const details = save.error instanceof FlowplaneApiError && save.error.status === 400 ? save.error.details : undefined;
  return (
    <>
      <PageTitle>{$t('content.fragment.title', 'Fragment {key}', { key: fragmentKey })}</PageTitle>
      <ContentTabs current="" />
      <p className="crumbs">
        <Link to={href(['content'])}>{$t('content.title', 'Content')}</Link>
        {f ? ` · ${$t('content.updatedAt', 'updated {at}', { at: formatTime(f.updatedAt) })}` : ''}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          let data: unknown;
          try {
            data = JSON.parse(text);
          } catch (err) {
            setProblem($t('content.fragment.badJson', 'Not valid JSON: {reason}', { reason: err instanceof Error ? err.message : String(err) }));
            return;
          }
          if (!data || typeof data !== 'object' || Array.isArray(data)) {
            setProblem($t('content.fragment.notObject', 'The data must be a JSON object.'));
            return;
          }
          setProblem(undefined);
          save.mutate(data);
        }}
      >
        <div className="row">
          <input id="ff-ready" type="checkbox" checked={ready} onChange={(e) => setReady(e.target.checked)} />
          <label htmlFor="ff-ready">{$t('content.ready', 'Ready for translation')}</label>
          <input id="ff-review" type="checkbox" checked={review} onChange={(e) => setReview(e.target.checked)} />
          <label htmlFor="ff-review">{$t('content.reviewRequired', 'Hold translations for review')}</label>
        </div>
        <label htmlFor="ff-data">{$t('content.fragment.data', 'Data (JSON; a localized leaf is an object whose only key is _i18n, mapping locale to text)')}</label>
        <textarea id="ff-data" rows={14} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={problem || details ? true : undefined} aria-describedby={problem || details ? 'ff-data-error' : undefined} />
        {problem || details ? (
          <div id="ff-data-error" className="field-error">
            {problem ?? (details ?? []).map((d) => `${d.field}: ${d.problems.join('; ')}`).join(' · ')}
          </div>
        ) : null}
        {save.error && !details ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess && !save.isPending ? <p role="status">{$t('content.saved', 'Saved.')}</p> : null}
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending}>
            {$t('content.save', 'Save')}
          </button>
          <button type="button" disabled={!f || translate.isPending} onClick={() => translate.mutate()}>
            {$t('content.translateNow', 'Translate now')}
          </button>
        </div>
      </form>
      <ErrorNotice error={translate.error} />
      {translate.data ? <RunSummary report={translate.data} /> : null}
      {states.length ? <UnitStatesTable states={states} codes={codes} /> : null}
    </>
  );
}
