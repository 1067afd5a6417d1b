import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { ContentTabs, type FragmentView, type PageView, reasonLabel, type RunReport, RunSummary, stateLabel, type Translation } from './shared';

const PAGE = 25;

function Flags({ t }: { t: Translation }) {
  return (
    <>
      {t.translationReady ? $t('content.flag.ready', 'ready') : $t('content.flag.notReady', 'not ready')}
      {t.reviewRequired ? ` · ${$t('content.flag.review', 'review required')}` : ''}
      {t.pending.length ? ` · ${$t('content.flag.pending', '{count} held', { count: t.pending.length })}` : ''}
    </>
  );
}

function LocaleStates({ t }: { t: Translation }) {
  return (
    <ul className="inline-list">
      {Object.entries(t.locales).map(([l, s]) => (
        <li key={l} className={`unit-${s}`}>
          {l}: {stateLabel(s)}
        </li>
      ))}
    </ul>
  );
}

/** Pages and fragments with their readiness, review flag and per-locale state; a new page; the sweep's last report. */
export default function ContentListPage() {
  const [pageCursors, setPageCursors] = useState<Array<string | undefined>>([undefined]);
  const [fragCursors, setFragCursors] = useState<Array<string | undefined>>([undefined]);
  const pc = pageCursors[pageCursors.length - 1];
  const fc = fragCursors[fragCursors.length - 1];
  const pages = useQuery({ queryKey: ['content', 'pages', pc], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/content/pages', { params: { query: { limit: PAGE, ...(pc ? { cursor: pc } : {}) } } })) as unknown as { items: PageView[]; nextCursor: string | null } });
  const fragments = useQuery({ queryKey: ['content', 'fragments', fc], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/content/fragments', { params: { query: { limit: PAGE, ...(fc ? { cursor: fc } : {}) } } })) as unknown as { items: FragmentView[]; nextCursor: string | null } });
  return (
    <>
      <PageTitle>{$t('content.title', 'Content')}</PageTitle>
      <ContentTabs current="list" />
      <NewRecord />
      <LastSweep />
      <h2>{$t('content.pages', 'Pages')}</h2>
      {pages.isPending ? <Loading /> : null}
      <ErrorNotice error={pages.error} onRetry={() => void pages.refetch()} />
      {pages.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('content.slug', 'Slug')}</th>
              <th scope="col">{$t('content.flags', 'Flags')}</th>
              <th scope="col">{$t('content.locales', 'Locales')}</th>
              <th scope="col">{$t('content.updated', 'Updated')}</th>
            </tr>
          </thead>
          <tbody>
            {pages.data.items.map((p) => (
              <tr key={p.slug}>
                <td>
                  <Link to={href(['content', 'pages', p.slug])}>{p.slug}</Link>
                  {p.seededFrom ? <div className="muted small">{$t('content.seeded', 'seeded, not edited')}</div> : null}
                </td>
                <td>
                  <Flags t={p.translation} />
                </td>
                <td>
                  <LocaleStates t={p.translation} />
                </td>
                <td>
                  {p.updatedAt ? <time dateTime={p.updatedAt}>{formatTime(p.updatedAt)}</time> : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager cursors={pageCursors} next={pages.data?.nextCursor} set={setPageCursors} label={$t('content.pagesOfPages', 'Pages of the page list')} />
      <h2>{$t('content.fragments', 'Fragments')}</h2>
      {fragments.isPending ? <Loading /> : null}
      <ErrorNotice error={fragments.error} onRetry={() => void fragments.refetch()} />
      {fragments.data ? (
        fragments.data.items.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">{$t('content.key', 'Key')}</th>
                <th scope="col">{$t('content.flags', 'Flags')}</th>
                <th scope="col">{$t('content.locales', 'Locales')}</th>
                <th scope="col">{$t('content.updated', 'Updated')}</th>
              </tr>
            </thead>
            <tbody>
              {fragments.data.items.map((f) => (
                <tr key={f.key}>
                  <td>
                    <Link to={href(['content', 'fragments', f.key])}>{f.key}</Link>
                  </td>
                  <td>
                    <Flags t={f.translation} />
                  </td>
                  <td>
                    <LocaleStates t={f.translation} />
                  </td>
                  <td>
                    {f.updatedAt ? <time dateTime={f.updatedAt}>{formatTime(f.updatedAt)}</time> : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>{$t('content.noFragments', 'No fragments yet.')}</p>
        )
      ) : null}
      <Pager cursors={fragCursors} next={fragments.data?.nextCursor} set={setFragCursors} label={$t('content.pagesOfFragments', 'Pages of the fragment list')} />
    </>
  );
}

function Pager({ cursors, next, set, label }: { cursors: Array<string | undefined>; next: string | null | undefined; set: (f: (c: Array<string | undefined>) => Array<string | undefined>) => void; label: string }) {
  if (cursors.length <= 1 && !next) return null;
  return (
    <nav className="row" aria-label={label}>
      {cursors.length > 1 ? (
        <button type="button" onClick={() => set((c) => c.slice(0, -1))}>
          {$t('content.previous', 'Previous')}
        </button>
      ) : null}
      {next ? (
        <button type="button" onClick={() => set((c) => [...c, next])}>
          {$t('content.next', 'Next')}
        </button>
      ) : null}
    </nav>
  );
}

function NewRecord() {
  const { navigate } = useRoute();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string>();
  if (!open)
    return (
      <div className="row">
        <button type="button" className="primary" onClick={() => setOpen(true)}>
          {$t('content.new', 'New page or fragment')}
        </button>
      </div>
    );
  return (
    <form
      className="card"
      aria-labelledby="new-content-title"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const id = String(f.get('id') ?? '').trim();
        const kind = String(f.get('kind') ?? 'page');
        if (kind === 'page' && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) {
          setProblem($t('content.badSlug', 'A slug is lowercase letters and digits joined by "-".'));
          return;
        }
        navigate(href(['content', kind === 'page' ? 'pages' : 'fragments', id], { new: '1' }));
      }}
    >
      <h2 id="new-content-title">{$t('content.new', 'New page or fragment')}</h2>
      <label htmlFor="nc-kind">{$t('content.kind', 'Kind')}</label>
      <select id="nc-kind" name="kind" defaultValue="page">
        <option value="page">{$t('content.kind.page', 'page')}</option>
        <option value="fragment">{$t('content.kind.fragment', 'fragment')}</option>
      </select>
      <label htmlFor="nc-id">{$t('content.slugOrKey', 'Slug or key')}</label>
      <input id="nc-id" name="id" required aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'nc-id-error' : undefined} />
      {problem ? (
        <p id="nc-id-error" className="field-error">
          {problem}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="primary">
          {$t('content.open', 'Open the editor')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {$t('content.cancel', 'Cancel')}
        </button>
      </div>
    </form>
  );
}

type LastSweep = { enabled: boolean; quietMinutes: number; budget: number | null; last: { startedAt: string; finishedAt: string; budget: number | null; report: RunReport } | null };

/** The sweep's settings and last report with its reason; and a run of everything now. */
function LastSweep() {
  const client = useQueryClient();
  const sweep = useQuery({ queryKey: ['content', 'last-sweep'], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/content/translations/last-sweep')) as unknown as LastSweep });
  const run = useMutation({
    mutationFn: async (dryRun: boolean) => unwrap(await api.i18n.POST('/api/v1/admin/content/translations/run', { body: { dryRun } })) as unknown as RunReport,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['content'] }),
  });
  return (
    <section className="card" aria-labelledby="sweep-title">
      <h2 id="sweep-title">{$t('content.sweep.title', 'Translation sweep')}</h2>
      <ErrorNotice error={sweep.error} onRetry={() => void sweep.refetch()} />
      {sweep.data ? (
        <>
          <p>
            {sweep.data.enabled
              ? $t('content.sweep.enabled', 'On: records unedited for {quiet} minutes are translated, at most {budget} translations a sweep.', { quiet: sweep.data.quietMinutes, budget: sweep.data.budget ?? '∞' })
              : $t('content.sweep.disabled', 'Off (quiet period 0 or automatic translation disabled).')}
          </p>
          {sweep.data.last ? (
            <>
              <p className="last-sweep">
                {$t('content.sweep.last', 'Last sweep {at}: {reason}', { at: formatTime(sweep.data.last.finishedAt), reason: reasonLabel(sweep.data.last.report.reason) })}
              </p>
              <RunSummary report={sweep.data.last.report} />
            </>
          ) : (
            <p className="last-sweep">{$t('content.sweep.never', 'No sweep has run yet.')}</p>
          )}
        </>
      ) : null}
      <div className="row">
        <button type="button" disabled={run.isPending} onClick={() => run.mutate(true)}>
          {$t('content.sweep.dryRun', 'What would be translated')}
        </button>
        <button type="button" disabled={run.isPending} onClick={() => run.mutate(false)}>
          {$t('content.sweep.runAll', 'Translate every ready record now')}
        </button>
      </div>
      <ErrorNotice error={run.error} />
      {run.data ? <RunSummary report={run.data} /> : null}
    </section>
  );
}
