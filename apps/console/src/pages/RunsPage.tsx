import { type RunFrame, streamRun } from '@flowplane/client';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api';
import { currentToken } from '../auth/session';
import { $t } from '../i18n';
import { href, Link, useRoute } from '../router';
import { ErrorNotice, Loading, PageTitle } from '../ui';

const STATUSES = ['running', 'completed', 'rejected', 'failed', 'cancelled'] as const;
type RunStatus = (typeof STATUSES)[number];
type RunSummary = { runId: string; flowId: string; versionId: string; variant?: string; status: string; startedBy: string; startedAt: string; durationMs?: number; error?: Record<string, unknown> };

/** Runs: a list with flow and status filters (API cursors), and starting a run of a flow whose events are watched live. */
export default function RunsPage({ flowId }: { flowId?: string }) {
  const { route, navigate } = useRoute();
  const status = route.query.get('status') ?? '';
  const runs = useInfiniteQuery({
    queryKey: ['runs', flowId, status],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(await api.flows.GET('/api/v1/runs', { params: { query: { flowId, status: (STATUSES as readonly string[]).includes(status) ? (status as RunStatus) : undefined, cursor: pageParam, limit: 50 } } })) as { items: RunSummary[]; nextCursor?: string },
    getNextPageParam: (last) => last.nextCursor,
  });
  return (
    <>
      <PageTitle>{flowId ? $t('console.runs.titleOf', 'Runs of {flow}', { flow: flowId }) : $t('console.runs.title', 'Runs')}</PageTitle>
      {flowId ? <StartRun flowId={flowId} onEnded={() => void runs.refetch()} /> : <p className="muted">{$t('console.runs.pickFlow', 'Open a flow to start a run of it.')}</p>}
      <div className="row">
        <label htmlFor="status">{$t('console.runs.status', 'Status')}</label>
        <select id="status" value={status} onChange={(e) => navigate(href(flowId ? ['runs', flowId] : ['runs'], { status: e.target.value }), true)}>
          <option value="">{$t('console.runs.any', 'any')}</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      {runs.isPending ? <Loading /> : null}
      <ErrorNotice error={runs.error} onRetry={() => void runs.refetch()} />
      {runs.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('console.runs.run', 'Run')}</th>
              <th scope="col">{$t('console.runs.flow', 'Flow')}</th>
              <th scope="col">{$t('console.runs.status', 'Status')}</th>
              <th scope="col">{$t('console.runs.started', 'Started')}</th>
              <th scope="col">{$t('console.runs.duration', 'Duration')}</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.pages.flatMap((p) => p.items).map((r) => (
              <tr key={r.runId}>
                <td>
                  <code>{r.runId}</code>
                </td>
                <td>
                  <Link to={href(['flows', r.flowId])}>{r.flowId}</Link> <span className="muted small">{r.versionId}{r.variant ? ` · ${r.variant}` : ''}</span>
                </td>
                <td>
                  <span className={`status status-${r.status}`}>{r.status}</span>
                  {r.error && typeof r.error['message'] === 'string' ? <div className="small">{r.error['message']}</div> : null}
                </td>
                <td>
                  <time dateTime={r.startedAt}>{new Date(r.startedAt).toLocaleString()}</time>
                </td>
                <td>{r.durationMs !== undefined ? `${r.durationMs} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {runs.hasNextPage ? (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {$t('console.more', 'Show more')}
        </button>
      ) : null}
    </>
  );
}

function StartRun({ flowId, onEnded }: { flowId: string; onEnded: () => void }) {
  const [input, setInput] = useState('{\n  "name": "Ada"\n}');
  const [problem, setProblem] = useState<string>();
  const [frames, setFrames] = useState<RunFrame[]>([]);
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const flow = useQuery({ queryKey: ['flow', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: flowId } } })) as { published?: unknown } });
  useEffect(() => () => abort.current?.abort(), []);
  const start = async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch (e) {
      setProblem($t('console.runs.badJson', 'The input is not JSON: {reason}', { reason: (e as Error).message }));
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem($t('console.runs.notObject', 'The input must be a JSON object.'));
      return;
    }
    setProblem(undefined);
    setFrames([]);
    setError(undefined);
    setRunning(true);
    abort.current = new AbortController();
    try {
      const stream = await streamRun({ baseUrl: location.origin, token: () => currentToken(), flowId, input: parsed, signal: abort.current.signal });
      for await (const f of stream) setFrames((fs) => [...fs, f]);
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setError(e);
    } finally {
      setRunning(false);
      onEnded();
    }
  };
  return (
    <section aria-labelledby="start-title" className="card">
      <h2 id="start-title">{$t('console.runs.start', 'Start a run')}</h2>
      {flow.data && !flow.data.published ? <p className="notice warn">{$t('console.runs.notPublished', 'This flow is not published: publish a version first.')}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label htmlFor="run-input">{$t('console.runs.input', 'Input (JSON)')}</label>
        <textarea id="run-input" rows={5} value={input} onChange={(e) => setInput(e.target.value)} spellCheck={false} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'run-input-error' : undefined} />
        {problem ? (
          <p id="run-input-error" className="field-error">
            {problem}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={running}>
            {$t('console.runs.run', 'Run')}
          </button>
          {running ? (
            <button type="button" onClick={() => abort.current?.abort()}>
              {$t('console.runs.stopWatching', 'Stop watching')}
            </button>
          ) : null}
        </div>
      </form>
      <ErrorNotice error={error} />
      {frames.length ? (
        <ol className="events" aria-live="polite" aria-label={$t('console.runs.events', 'Run events')}>
          {frames.map((f) => (
            <li key={f.id}>
              <code>{f.event}</code> <span className="small">{JSON.stringify(f.data)}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
