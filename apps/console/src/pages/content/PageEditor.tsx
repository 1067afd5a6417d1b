import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, FlowplaneApiError, unwrap } from '../../api';
import { $t } from '../../i18n';
import { pageUnitText, unitStates } from '../../lib/content-state';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, fieldError, formatTime, Loading, PageTitle } from '../../ui';
import { sourceLocaleOf, useLocales } from '../catalog/shared';
import { ContentTabs, type PageView, type RunReport, RunSummary, UnitStatesTable } from './shared';

type Draft = { title: Record<string, string>; body: Record<string, string>; seoTitle: Record<string, string>; seoDescription: Record<string, string>; translationReady: boolean; reviewRequired: boolean; retranslate: boolean };

const PAGE_UNITS = ['title', 'body', 'seo.title', 'seo.description'];

function nonEmpty(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== ''));
}

function draftOf(p: PageView | undefined): Draft {
  return {
    title: { ...(p?.title ?? {}) },
    body: { ...(p?.body ?? {}) },
    seoTitle: { ...(p?.seo.title ?? {}) },
    seoDescription: { ...(p?.seo.description ?? {}) },
    translationReady: p?.translation.translationReady ?? false,
    reviewRequired: p?.translation.reviewRequired ?? false,
    retranslate: false,
  };
}

/** One page: a tab per locale (title, HTML body as text, SEO), readiness and review flags, the state of every unit, translate now. */
export default function PageEditor({ slug }: { slug: string }) {
  const client = useQueryClient();
  const { route } = useRoute();
  const locales = useLocales();
  const source = sourceLocaleOf(locales.data);
  const page = useQuery({
    queryKey: ['content', 'page', slug],
    queryFn: async () => {
      try {
        return unwrap(await api.i18n.GET('/api/v1/admin/content/pages/{slug}', { params: { path: { slug } } })) as unknown as PageView;
      } catch (e) {
        if (e instanceof FlowplaneApiError && e.status === 404 && route.query.get('new')) return null;
        throw e;
      }
    },
  });
  const [draft, setDraft] = useState<Draft>(draftOf(undefined));
  const [tab, setTab] = useState<string>('');
  useEffect(() => {
    if (page.data !== undefined) setDraft(draftOf(page.data ?? undefined));
  }, [page.data]);
  const codes = [...new Set([source, ...(locales.data ?? []).filter((l) => l.active).map((l) => l.code)])];
  const current = tab || source;
  const save = useMutation({
    mutationFn: async (d: Draft) =>
      unwrap(
        await api.i18n.PUT('/api/v1/admin/content/pages/{slug}', {
          params: { path: { slug } },
          body: { title: nonEmpty(d.title), body: nonEmpty(d.body), seo: { title: nonEmpty(d.seoTitle), description: nonEmpty(d.seoDescription) }, translationReady: d.translationReady, reviewRequired: d.reviewRequired, ...(d.retranslate ? { retranslate: true } : {}) },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['content'] }),
  });
  const translate = useMutation({
    mutationFn: async () => unwrap(await api.i18n.POST('/api/v1/admin/content/translations/run', { body: { pages: [slug] } })) as unknown as RunReport,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['content'] }),
  });
  if (page.isPending || locales.isPending) return <Loading />;
  if (page.error) return <ErrorNotice error={page.error} onRetry={() => void page.refetch()} />;
  const p = page.data ?? undefined;
  const states = p ? unitStates(p.translation, PAGE_UNITS, codes, source, (u, l) => pageUnitText(p, u, l)) : [];
  const set = (field: 'title' | 'body' | 'seoTitle' | 'seoDescription', value: string) => setDraft({ ...draft, [field]: { ...draft[field], [current]: value } });
  const err = (f: string) => fieldError(save.error, f);
  const fieldProblem = ['title', 'body', 'seo'].some((f) => save.error && err(f));
  return (
    <>
      <PageTitle>{$t('content.page.title', 'Page {slug}', { slug })}</PageTitle>
      <ContentTabs current="" />
      <p className="crumbs">
        <Link to={href(['content'])}>{$t('content.title', 'Content')}</Link>
        {p ? ` · ${$t('content.updatedAt', 'updated {at}', { at: formatTime(p.updatedAt) })}` : ` · ${$t('content.page.new', 'new page')}`}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(draft);
        }}
      >
        <fieldset>
          <legend>{$t('content.flags', 'Flags')}</legend>
          <div className="row">
            <input id="pf-ready" type="checkbox" checked={draft.translationReady} onChange={(e) => setDraft({ ...draft, translationReady: e.target.checked })} />
            <label htmlFor="pf-ready">{$t('content.ready', 'Ready for translation')}</label>
            <input id="pf-review" type="checkbox" checked={draft.reviewRequired} onChange={(e) => setDraft({ ...draft, reviewRequired: e.target.checked })} />
            <label htmlFor="pf-review">{$t('content.reviewRequired', 'Hold translations for review')}</label>
            <input id="pf-retranslate" type="checkbox" checked={draft.retranslate} onChange={(e) => setDraft({ ...draft, retranslate: e.target.checked })} />
            <label htmlFor="pf-retranslate">{$t('content.retranslate', 'Translate again on the next run')}</label>
          </div>
        </fieldset>
        <div
          role="tablist"
          aria-label={$t('content.localeTabs', 'Locales')}
          className="tabs"
          onKeyDown={(e) => {
            // Arrow keys move between the locale tabs (the WAI-ARIA tabs pattern).
            const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
            if (!step) return;
            e.preventDefault();
            const next = codes[(codes.indexOf(current) + step + codes.length) % codes.length];
            setTab(next);
            document.getElementById(`tab-${next}`)?.focus();
          }}
        >
          {codes.map((c) => (
            <button key={c} type="button" role="tab" id={`tab-${c}`} aria-selected={c === current} aria-controls="locale-panel" tabIndex={c === current ? 0 : -1} onClick={() => setTab(c)}>
              {c}
              {c === source ? ` (${$t('content.source', 'source')})` : ''}
            </button>
          ))}
        </div>
        <div role="tabpanel" id="locale-panel" aria-labelledby={`tab-${current}`} className="card">
          <label htmlFor="pe-title">{$t('content.field.title', 'Title')}</label>
          <input id="pe-title" lang={current} className="wide" maxLength={1000} value={draft.title[current] ?? ''} onChange={(e) => set('title', e.target.value)} aria-invalid={err('title') ? true : undefined} aria-describedby={err('title') ? 'pe-title-error' : undefined} />
          {err('title') ? <p id="pe-title-error" className="field-error">{err('title')}</p> : null}
          <label htmlFor="pe-body">{$t('content.field.body', 'Body (HTML)')}</label>
          <textarea id="pe-body" lang={current} rows={10} value={draft.body[current] ?? ''} onChange={(e) => set('body', e.target.value)} spellCheck={false} aria-invalid={err('body') ? true : undefined} aria-describedby={err('body') ? 'pe-body-error' : undefined} />
          {err('body') ? <p id="pe-body-error" className="field-error">{err('body')}</p> : null}
          <label htmlFor="pe-seo-title">{$t('content.field.seoTitle', 'SEO title')}</label>
          <input id="pe-seo-title" lang={current} className="wide" maxLength={1000} value={draft.seoTitle[current] ?? ''} onChange={(e) => set('seoTitle', e.target.value)} />
          <label htmlFor="pe-seo-description">{$t('content.field.seoDescription', 'SEO description')}</label>
          <textarea id="pe-seo-description" lang={current} rows={2} maxLength={5000} value={draft.seoDescription[current] ?? ''} onChange={(e) => set('seoDescription', e.target.value)} />
          {p && current !== source ? (
            <p>
              <Link to={href(['content', 'pages', slug, 'preview'], { locale: current })}>{$t('content.previewIn', 'Preview as readers of {locale} would see it', { locale: current })}</Link>
            </p>
          ) : null}
        </div>
        {save.error && !fieldProblem ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess && !save.isPending ? <p role="status">{$t('content.saved', 'Saved.')}</p> : null}
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending}>
            {$t('content.save', 'Save')}
          </button>
          <button type="button" disabled={!p || translate.isPending} onClick={() => translate.mutate()}>
            {$t('content.translateNow', 'Translate now')}
          </button>
        </div>
      </form>
      <ErrorNotice error={translate.error} />
      {translate.data ? <RunSummary report={translate.data} /> : null}
      {p ? <UnitStatesTable states={states} codes={codes} /> : null}
      {p?.translation.pending.length ? (
        <p>
          <Link to={href(['content', 'review'])}>{$t('content.pendingLink', '{count} translations wait for review', { count: p.translation.pending.length })}</Link>
        </p>
      ) : null}
    </>
  );
}
