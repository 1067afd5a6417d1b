import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { CatalogTabs } from './shared';

type Entry = { status: 'held' | 'rejected'; candidate: string; by?: string; review?: Record<string, unknown>; at: string; released: boolean; readersSee: { text: string; locale: string | null } };
type Item = { ns: string; key: string; context?: string; source: { locale: string; text: string | null }; entries: Record<string, Entry> };

/** Held and rejected machine translations, each beside its source and what readers see now. */
export default function ReviewPage() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const pending = useQuery({
    queryKey: ['i18n', 'pending', cursor],
    queryFn: async () => unwrap(await api.i18n.GET('/api/v1/admin/i18n/translations/pending', { params: { query: cursor ? { cursor } : {} } })) as unknown as { items: Item[]; nextCursor: string | null },
  });
  const cells = (pending.data?.items ?? []).flatMap((item) => Object.entries(item.entries).map(([locale, entry]) => ({ item, locale, entry })));
  return (
    <>
      <PageTitle>{$t('catalog.review.title', 'Review queue')}</PageTitle>
      <CatalogTabs current="review" />
      {pending.isPending ? <Loading /> : null}
      <ErrorNotice error={pending.error} onRetry={() => void pending.refetch()} />
      {pending.data && cells.length === 0 ? <p>{$t('catalog.review.empty', 'Nothing waits for review.')}</p> : null}
      {cells.map(({ item, locale, entry }) => (
        <ReviewCard key={`${item.ns}|${item.key}|${locale}`} item={item} locale={locale} entry={entry} />
      ))}
      <nav className="row" aria-label={$t('catalog.pages', 'Pages of keys')}>
        {cursors.length > 1 ? (
          <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
            {$t('catalog.previous', 'Previous')}
          </button>
        ) : null}
        {pending.data?.nextCursor ? (
          <button type="button" onClick={() => setCursors((c) => [...c, pending.data?.nextCursor ?? undefined])}>
            {$t('catalog.next', 'Next')}
          </button>
        ) : null}
      </nav>
    </>
  );
}

function ReviewCard({ item, locale, entry }: { item: Item; locale: string; entry: Entry }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(entry.candidate);
  const id = `rv-${item.ns}-${item.key}-${locale}`.replace(/[^\w-]/g, '_');
  const done = () => void client.invalidateQueries({ queryKey: ['i18n'] });
  const approve = useMutation({
    mutationFn: async (edited?: string) => unwrap(await api.i18n.POST('/api/v1/admin/i18n/translations/pending/approve', { body: { ns: item.ns, key: item.key, locale, ...(edited !== undefined ? { text: edited } : {}) } })),
    onSuccess: done,
  });
  const reject = useMutation({
    mutationFn: async () => unwrap(await api.i18n.POST('/api/v1/admin/i18n/translations/pending/reject', { body: { ns: item.ns, key: item.key, locale } })),
    onSuccess: done,
  });
  const reason = typeof entry.review?.['reason'] === 'string' ? (entry.review['reason'] as string) : undefined;
  return (
    <section className="card review" aria-labelledby={id}>
      <h2 id={id}>
        <code>{item.key}</code> → {locale}
        {item.ns ? <span className="muted small"> {$t('catalog.inNs', 'namespace {ns}', { ns: item.ns })}</span> : null}
      </h2>
      <p className="muted small">
        {entry.status === 'held' ? $t('catalog.review.held', 'Held by the review gate') : $t('catalog.review.rejected', 'Rejected: blocks re-translation until the source or the note changes')}
        {reason ? ` · ${$t('catalog.review.reason', 'reason: {reason}', { reason })}` : ''}
        {entry.by ? ` · ${entry.by}` : ''} · <time dateTime={entry.at}>{formatTime(entry.at)}</time>
        {entry.released ? ` · ${$t('catalog.review.released', 'released: the source or note changed since')}` : ''}
      </p>
      {item.context ? <p className="small">{$t('catalog.note', 'Note: {note}', { note: item.context })}</p> : null}
      <div className="side-by-side">
        <div>
          <h3>{$t('catalog.review.source', 'Source ({locale})', { locale: item.source.locale })}</h3>
          <p className="cell-text" lang={item.source.locale}>
            {item.source.text ?? ''}
          </p>
        </div>
        <div>
          <h3>{$t('catalog.review.candidate', 'Candidate ({locale})', { locale })}</h3>
          {editing ? (
            <textarea aria-label={$t('catalog.review.editLabel', 'Edited text in {locale}', { locale })} lang={locale} rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          ) : (
            <p className="cell-text candidate" lang={locale}>
              {entry.candidate}
            </p>
          )}
        </div>
        <div>
          <h3>{$t('catalog.review.readers', 'Readers see now')}</h3>
          <p className="cell-text" lang={entry.readersSee.locale ?? undefined}>
            {entry.readersSee.text}
          </p>
        </div>
      </div>
      <ErrorNotice error={approve.error ?? reject.error} />
      <div className="row">
        {editing ? (
          <>
            <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate(text)}>
              {$t('catalog.review.approveEdited', 'Approve the edited text')}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              {$t('catalog.cancel', 'Cancel')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate(undefined)}>
              {$t('catalog.review.approve', 'Approve')}
            </button>
            <button type="button" onClick={() => setEditing(true)}>
              {$t('catalog.review.edit', 'Edit, then approve')}
            </button>
            {entry.status === 'held' ? (
              <button type="button" disabled={reject.isPending} onClick={() => reject.mutate()}>
                {$t('catalog.review.reject', 'Reject')}
              </button>
            ) : null}
          </>
        )}
      </div>
    </section>
  );
}
