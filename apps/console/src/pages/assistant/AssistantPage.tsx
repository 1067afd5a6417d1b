import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { lazy } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { sourceLinks } from '../../lib/assistant-transcript';
import { href, Link } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { HandoffsPage } from './Handoffs';
import { KnowledgePage, TemplatesPage } from './Knowledge';
import { TryChatPage } from './TryChat';

// The charts (echarts) load only when the stats are opened.
const StatsPage = lazy(() => import('./Stats'));

type ChatItem = { id: string; sessionId: string; userId?: string; flowId: string; versionHash: string; variantLabel: string; messageCount: number; lastActivityAt: string; expiresAt: string; handoffId?: string };
type ChatMessage = { role: 'user' | 'assistant'; content: string; at: string; sources?: unknown[]; actions?: unknown[]; runId?: string; status?: string; rating?: 'up' | 'down' };
type ChatDetail = ChatItem & { messages: ChatMessage[]; runIds: string[]; createdAt: string };

const SECTIONS = [
  { id: 'chats', label: () => $t('assistant.nav.chats', 'Chats') },
  { id: 'handoffs', label: () => $t('assistant.nav.handoffs', 'Handoffs') },
  { id: 'templates', label: () => $t('assistant.nav.templates', 'Templates') },
  { id: 'knowledge', label: () => $t('assistant.nav.knowledge', 'Knowledge') },
  { id: 'stats', label: () => $t('assistant.nav.stats', 'Stats') },
  { id: 'try', label: () => $t('assistant.nav.try', 'Try it') },
] as const;

/** The assistant area: `/assistant/<section>[/<id>]`. */
export default function AssistantPage({ section, id }: { section?: string; id?: string }) {
  const current = SECTIONS.some((s) => s.id === section) ? section! : 'chats';
  return (
    <>
      <nav aria-label={$t('assistant.nav.label', 'Assistant sections')} className="subnav">
        {SECTIONS.map((s) => (
          <Link key={s.id} to={href(['assistant', s.id])} ariaCurrent={current === s.id}>
            {s.label()}
          </Link>
        ))}
      </nav>
      {current === 'chats' && id ? <ChatPage chatId={id} /> : null}
      {current === 'chats' && !id ? <ChatsPage /> : null}
      {current === 'handoffs' ? <HandoffsPage /> : null}
      {current === 'templates' ? <TemplatesPage /> : null}
      {current === 'knowledge' ? <KnowledgePage /> : null}
      {current === 'stats' ? <StatsPage /> : null}
      {current === 'try' ? <TryChatPage /> : null}
    </>
  );
}

/** Chats, newest activity first, paged with the API cursor. */
function ChatsPage() {
  const chats = useInfiniteQuery({
    queryKey: ['assistant-chats'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.assistant.GET('/api/v1/assistant/chats', { params: { query: { cursor: pageParam, limit: 50 } } })) as { items: ChatItem[]; nextCursor?: string },
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = chats.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle>{$t('assistant.chats.title', 'Assistant chats')}</PageTitle>
      {chats.isPending ? <Loading /> : null}
      <ErrorNotice error={chats.error} onRetry={() => void chats.refetch()} />
      {chats.data && !items.length ? <p className="muted">{$t('assistant.chats.none', 'No chats yet.')}</p> : null}
      {items.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('assistant.chats.session', 'Session')}</th>
              <th scope="col">{$t('assistant.chats.user', 'User')}</th>
              <th scope="col">{$t('assistant.chats.variant', 'Variant')}</th>
              <th scope="col">{$t('assistant.chats.messages', 'Messages')}</th>
              <th scope="col">{$t('assistant.chats.last', 'Last activity')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id}>
                <td>
                  <Link to={href(['assistant', 'chats', c.id])}>
                    <code>{c.sessionId}</code>
                  </Link>
                  {c.handoffId ? <span className="small muted"> · {$t('assistant.chats.handoff', 'handoff')}</span> : null}
                </td>
                <td>{c.userId ?? $t('assistant.chats.anonymous', 'anonymous')}</td>
                <td>{c.variantLabel}</td>
                <td>{c.messageCount}</td>
                <td>
                  <time dateTime={c.lastActivityAt}>{formatTime(c.lastActivityAt)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {chats.hasNextPage ? (
        <button type="button" onClick={() => void chats.fetchNextPage()} disabled={chats.isFetchingNextPage}>
          {$t('assistant.more', 'Show more')}
        </button>
      ) : null}
    </>
  );
}

/** One transcript: the turns as text, sources as links (http(s) only), ratings. */
function ChatPage({ chatId }: { chatId: string }) {
  const chat = useQuery({ queryKey: ['assistant-chat', chatId], queryFn: async () => unwrap(await api.assistant.GET('/api/v1/assistant/chats/{id}', { params: { path: { id: chatId } } })) as ChatDetail });
  return (
    <>
      <p className="crumbs">
        <Link to={href(['assistant', 'chats'])}>{$t('assistant.chats.back', 'All chats')}</Link>
      </p>
      <PageTitle>{$t('assistant.chat.title', 'Chat {session}', { session: chat.data?.sessionId ?? chatId })}</PageTitle>
      {chat.isPending ? <Loading /> : null}
      <ErrorNotice error={chat.error} onRetry={() => void chat.refetch()} />
      {chat.data ? (
        <>
          <p className="muted">
            {$t('assistant.chat.meta', 'Flow {flow}, variant {variant}, started {started}', { flow: chat.data.flowId, variant: chat.data.variantLabel, started: formatTime(chat.data.createdAt) })}
            {chat.data.handoffId ? ` · ${$t('assistant.chat.hasHandoff', 'a handoff was requested')}` : ''}
          </p>
          <ol className="transcript">
            {chat.data.messages.map((m, i) => (
              <li key={i} className={`turn turn-${m.role}`}>
                <div className="turn-head">
                  <strong>{m.role === 'user' ? $t('assistant.chat.user', 'User') : $t('assistant.chat.assistant', 'Assistant')}</strong>{' '}
                  <time className="small muted" dateTime={m.at}>
                    {formatTime(m.at)}
                  </time>
                  {m.status === 'rejected' ? <span className="status status-rejected"> · {$t('assistant.chat.rejected', 'refused')}</span> : null}
                  {m.rating ? <span className="small"> · {m.rating === 'up' ? $t('assistant.chat.up', 'rated helpful') : $t('assistant.chat.down', 'rated unhelpful')}</span> : null}
                  {m.runId ? (
                    <>
                      {' '}
                      · <Link to={href(['run', m.runId])}>{$t('assistant.chat.run', 'run')}</Link>
                    </>
                  ) : null}
                </div>
                {/* Model output and user text are shown as text, never as HTML. */}
                <p className="turn-text">{m.content}</p>
                <Sources sources={m.sources} />
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}

export function Sources({ sources }: { sources: unknown }) {
  const links = sourceLinks(sources);
  if (!links.length) return null;
  return (
    <ul className="sources" aria-label={$t('assistant.chat.sources', 'Sources')}>
      {links.map((l, i) => (
        <li key={i}>
          {l.href ? (
            <a href={l.href} target="_blank" rel="noopener noreferrer nofollow">
              {l.label}
            </a>
          ) : (
            l.label
          )}
        </li>
      ))}
    </ul>
  );
}
