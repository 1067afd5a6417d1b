import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, FlowplaneApiError, unwrap } from '../../api';
import { $t } from '../../i18n';
import { href, Link } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { ContentTabs } from './shared';

type Item = { type: 'page' | 'fragment'; id: string; unit: string; locale: string; candidate: string; source: string; current: string | null; sourceChanged: boolean; at: string };

/** Held content translations: source, candidate and what readers see now, side by side; approve (edited or forced), reject, preview. */
export default function ContentReviewPage() {
  const pending = useQuery({ queryKey: ['content', 'pending'], queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/content/translations/pending')) as unknown as { items: Item[] } });
  return (
    <>
      <PageTitle>{$t('content.review.title', 'Content review queue')}</PageTitle>
      <ContentTabs current="review" />
      {pending.isPending ? <Loading /> : null}
      <ErrorNotice error={pending.error} onRetry={() => void pending.refetch()} />
      {pending.data && pending.data.items.length === 0 ? <p>{$t('content.review.empty', 'No translation waits for review.')}</p> : null}
      {(pending.data?.items ?? []).map((it) => (
        <PendingCard key={`${it.type}|${it.id}|${it.unit}|${it.locale}`} item={it} />
      ))}
    </>
  );
}

function PendingCard({ item }: { item: Item }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.candidate);
  const [force, setForce] = useState(false);
  const id = `cr-${item.type}-${item.id}-${item.unit}-${item.locale}`.replace(/[^\w-]/g, '_');
  const done = () => void client.invalidateQueries({ queryKey: ['content'] });
  const approve = useMutation({
    mutationFn: async (edited?: string) => unwrap(await api.i18n.POST('/api/v1/admin/content/translations/approve', { body: { type: item.type, id: item.id, locale: item.locale, unit: item.unit, ...(edited !== undefined ? { text: edited } : {}), ...(force ? { force: true } : {}) } })),
    onSuccess: done,
  });
  const reject = useMutation({
    mutationFn: async () => unwrap(await api.i18n.POST('/api/v1/admin/content/translations/reject', { body: { type: item.type, id: item.id, locale: item.locale, unit: item.unit } })),
    onSuccess: done,
  });
  const stale = item.sourceChanged || (approve.error instanceof FlowplaneApiError && approve.error.status === 409);
  const isHtml = item.type === 'page' && item.unit === 'body';
  return (
    <section className="card review" aria-labelledby={id}>
      <h2 id={id}>
        {item.type === 'page' ? $t('content.review.page', 'Page {id}', { id: item.id }) : $t('content.review.fragment', 'Fragment {id}', { id: item.id })} · <code>{item.unit}</code> → {item.locale}
      </h2>
      <p className="muted small">
        <time dateTime={item.at}>{formatTime(item.at)}</time>
        {item.sourceChanged ? ` · ${$t('content.review.sourceChanged', 'the source was edited after this candidate was made')}` : ''}
        {item.type === 'page' ? (
          <>
            {' · '}
            <Link to={href(['content', 'pages', item.id, 'preview'], { locale: item.locale })}>{$t('content.review.preview', 'Preview the page in {locale}', { locale: item.locale })}</Link>
          </>
        ) : null}
      </p>
      <div className="side-by-side">
        <div>
          <h3>{$t('content.review.source', 'Source')}</h3>
          <pre className={isHtml ? 'code' : 'cell-text'}>{item.source}</pre>
        </div>
        <div>
          <h3>{$t('content.review.candidate', 'Candidate')}</h3>
          {editing ? (
            <textarea aria-label={$t('content.review.editLabel', 'Edited {unit} in {locale}', { unit: item.unit, locale: item.locale })} lang={item.locale} rows={isHtml ? 8 : 3} value={text} onChange={(e) => setText(e.target.value)} />
          ) : (
            <pre className={isHtml ? 'code candidate' : 'cell-text candidate'} lang={item.locale}>
              {item.candidate}
            </pre>
          )}
        </div>
        <div>
          <h3>{$t('content.review.current', 'Readers see now')}</h3>
          <pre className={isHtml ? 'code' : 'cell-text'}>{item.current ?? ''}</pre>
        </div>
      </div>
      {stale ? (
        <div className="row">
          <input id={`${id}-force`} type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
          <label htmlFor={`${id}-force`}>{$t('content.review.force', 'Approve although the source moved')}</label>
        </div>
      ) : null}
      <ErrorNotice error={approve.error ?? reject.error} />
      <div className="row">
        {editing ? (
          <>
            <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate(text)}>
              {$t('content.review.approveEdited', 'Approve the edited text')}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              {$t('content.cancel', 'Cancel')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate(undefined)}>
              {$t('content.review.approve', 'Approve')}
            </button>
            <button type="button" onClick={() => setEditing(true)}>
              {$t('content.review.edit', 'Edit, then approve')}
            </button>
            <button type="button" disabled={reject.isPending} onClick={() => reject.mutate()}>
              {$t('content.review.reject', 'Reject')}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
