import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { handoffActions, handoffFilter, HANDOFF_STATUSES, type HandoffStatus } from '../../lib/assistant-handoffs';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';

type Handoff = { id: string; chatId: string; sessionId: string; userId?: string; email: string; phone?: string; reason?: string; priority: string; status: HandoffStatus; transcript: string; contactedAt?: string; contactedBy?: string; notes?: string; createdAt: string; updatedAt: string };

function statusLabel(s: string): string {
  switch (s) {
    case 'pending':
      return $t('assistant.handoffs.pending', 'Pending');
    case 'contacted':
      return $t('assistant.handoffs.contacted', 'Contacted');
    case 'resolved':
      return $t('assistant.handoffs.resolved', 'Resolved');
    case 'dismissed':
      return $t('assistant.handoffs.dismissed', 'Dismissed');
    default:
      return $t('assistant.handoffs.all', 'All');
  }
}

function actionLabel(s: HandoffStatus): string {
  if (s === 'contacted') return $t('assistant.handoffs.markContacted', 'Mark contacted');
  if (s === 'resolved') return $t('assistant.handoffs.markResolved', 'Resolve');
  return $t('assistant.handoffs.markDismissed', 'Dismiss');
}

/** Handoff requests by status (API cursor), with notes and the contacted, resolved and dismissed actions. */
export function HandoffsPage() {
  const { route, navigate } = useRoute();
  const status = handoffFilter(route.query.get('status'));
  const handoffs = useInfiniteQuery({
    queryKey: ['assistant-handoffs', status],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.assistant.GET('/api/v1/assistant/handoffs', { params: { query: { status, cursor: pageParam, limit: 25 } } })) as { items: Handoff[]; nextCursor?: string },
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = handoffs.data?.pages.flatMap((p) => p.items) ?? [];
  // Said at the page level: the card leaves a filtered list once its status changes.
  const [done, setDone] = useState<string>();
  return (
    <>
      <PageTitle>{$t('assistant.handoffs.title', 'Handoffs to a human')}</PageTitle>
      <div className="row">
        <label htmlFor="handoff-status">{$t('assistant.handoffs.status', 'Status')}</label>
        <select id="handoff-status" value={status} onChange={(e) => navigate(href(['assistant', 'handoffs'], { status: e.target.value }), true)}>
          {[...HANDOFF_STATUSES, 'all' as const].map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
      </div>
      <p role="status" className="small">
        {done ?? ''}
      </p>
      {handoffs.isPending ? <Loading /> : null}
      <ErrorNotice error={handoffs.error} onRetry={() => void handoffs.refetch()} />
      {handoffs.data && !items.length ? <p className="muted">{$t('assistant.handoffs.none', 'No handoffs with this status.')}</p> : null}
      {items.map((h) => (
        <HandoffCard key={h.id} handoff={h} onDone={(u) => setDone($t('assistant.handoffs.saved', 'Marked {status}: {email}.', { status: statusLabel(u.status), email: u.email }))} />
      ))}
      {handoffs.hasNextPage ? (
        <button type="button" onClick={() => void handoffs.fetchNextPage()} disabled={handoffs.isFetchingNextPage}>
          {$t('assistant.more', 'Show more')}
        </button>
      ) : null}
    </>
  );
}

function HandoffCard({ handoff: h, onDone }: { handoff: Handoff; onDone: (updated: Handoff) => void }) {
  const client = useQueryClient();
  const [notes, setNotes] = useState(h.notes ?? '');
  const update = useMutation({
    mutationFn: async (status: HandoffStatus) => unwrap(await api.assistant.PATCH('/api/v1/assistant/handoffs/{id}', { params: { path: { id: h.id } }, body: { status, ...(notes.trim() ? { notes } : {}) } })) as Handoff,
    onSuccess: (updated) => {
      onDone(updated);
      void client.invalidateQueries({ queryKey: ['assistant-handoffs'] });
    },
  });
  const actions = handoffActions(update.data?.status ?? h.status);
  const shown = update.data ?? h;
  const notesId = `notes-${h.id}`;
  return (
    <article className="card handoff" aria-labelledby={`handoff-${h.id}`}>
      <h2 id={`handoff-${h.id}`} className="h3">
        {h.email} <span className={`status status-${shown.status}`}>{statusLabel(shown.status)}</span>
      </h2>
      <dl className="facts">
        <dt>{$t('assistant.handoffs.priority', 'Priority')}</dt>
        <dd>{h.priority}</dd>
        {h.reason ? (
          <>
            <dt>{$t('assistant.handoffs.reason', 'Reason')}</dt>
            <dd>{h.reason}</dd>
          </>
        ) : null}
        {h.phone ? (
          <>
            <dt>{$t('assistant.handoffs.phone', 'Phone')}</dt>
            <dd>{h.phone}</dd>
          </>
        ) : null}
        <dt>{$t('assistant.handoffs.requested', 'Requested')}</dt>
        <dd>
          <time dateTime={h.createdAt}>{formatTime(h.createdAt)}</time>
        </dd>
        {shown.contactedAt ? (
          <>
            <dt>{$t('assistant.handoffs.contactedAt', 'Contacted')}</dt>
            <dd>
              <time dateTime={shown.contactedAt}>{formatTime(shown.contactedAt)}</time> {shown.contactedBy ? `(${shown.contactedBy})` : ''}
            </dd>
          </>
        ) : null}
        {h.chatId ? (
          <>
            <dt>{$t('assistant.handoffs.chat', 'Chat')}</dt>
            <dd>
              <Link to={href(['assistant', 'chats', h.chatId])}>
                <code>{h.sessionId}</code>
              </Link>
            </dd>
          </>
        ) : null}
      </dl>
      {h.transcript ? (
        <details>
          <summary>{$t('assistant.handoffs.transcript', 'Transcript at request time')}</summary>
          <pre className="code">{h.transcript}</pre>
        </details>
      ) : null}
      {actions.length ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
          }}
        >
          <label htmlFor={notesId}>{$t('assistant.handoffs.notes', 'Notes')}</label>
          <textarea id={notesId} rows={2} value={notes} onChange={(e) => setNotes(e.target.value)} maxLength={4000} />
          <div className="row">
            {actions.map((a) => (
              <button key={a} type="button" className={a === 'contacted' ? 'primary' : undefined} disabled={update.isPending} onClick={() => update.mutate(a)}>
                {actionLabel(a)}
              </button>
            ))}
          </div>
        </form>
      ) : shown.notes ? (
        <p>
          <strong>{$t('assistant.handoffs.notes', 'Notes')}:</strong> {shown.notes}
        </p>
      ) : null}
      <ErrorNotice error={update.error} />
    </article>
  );
}
