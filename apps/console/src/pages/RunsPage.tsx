import { type RunFrame, streamRun } from '@flowplane/client';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api';
import { currentToken } from '../auth/session';
import { $t } from '../i18n';
import { href, Link, useRoute } from '../router';
import { formatMs, runTimeline, type TimelineEvent, type UsageRow } from '../lib/run-timeline';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../ui';

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
      <PageTitle>{flowId ? $t('runs.titleOf', 'Runs of {flow}', { flow: flowId }) : $t('runs.title', 'Runs')}</PageTitle>
      {flowId ? <StartRun flowId={flowId} onEnded={() => void runs.refetch()} /> : <p className="muted">{$t('runs.pickFlow', 'Open a flow to start a run of it.')}</p>}
      <div className="row">
        <label htmlFor="status">{$t('runs.status', 'Status')}</label>
        <select id="status" value={status} onChange={(e) => navigate(href(flowId ? ['runs', flowId] : ['runs'], { status: e.target.value }), true)}>
          <option value="">{$t('runs.any', 'any')}</option>
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
              <th scope="col">{$t('runs.run', 'Run')}</th>
              <th scope="col">{$t('runs.flow', 'Flow')}</th>
              <th scope="col">{$t('runs.status', 'Status')}</th>
              <th scope="col">{$t('runs.started', 'Started')}</th>
              <th scope="col">{$t('runs.duration', 'Duration')}</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.pages.flatMap((p) => p.items).map((r) => (
              <tr key={r.runId}>
                <td>
                  <Link to={href(['run', r.runId])}>
                    <code>{r.runId}</code>
                  </Link>
                </td>
                <td>
                  <Link to={href(['flows', r.flowId])}>{r.flowId}</Link> <span className="muted small">{r.versionId}{r.variant ? ` · ${r.variant}` : ''}</span>
                </td>
                <td>
                  <span className={`status status-${r.status}`}>{r.status}</span>
                  {r.error && typeof r.error['message'] === 'string' ? <div className="small">{r.error['message']}</div> : null}
                </td>
                <td>
                  <time dateTime={r.startedAt}>{formatTime(r.startedAt)}</time>
                </td>
                <td>{r.durationMs !== undefined ? `${r.durationMs} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {runs.hasNextPage ? (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {$t('more', 'Show more')}
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
  const [runId, setRunId] = useState<string>();
  const abort = useRef<AbortController | undefined>(undefined);
  const flow = useQuery({ queryKey: ['flow', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: flowId } } })) as { published?: unknown } });
  useEffect(() => () => abort.current?.abort(), []);
  const start = async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch (e) {
      setProblem($t('runs.badJson', 'The input is not JSON: {reason}', { reason: (e as Error).message }));
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setProblem($t('runs.notObject', 'The input must be a JSON object.'));
      return;
    }
    setProblem(undefined);
    setFrames([]);
    setRunId(undefined);
    setError(undefined);
    setRunning(true);
    abort.current = new AbortController();
    try {
      const stream = await streamRun({ baseUrl: location.origin, token: () => currentToken(), flowId, input: parsed, signal: abort.current.signal });
      setRunId(stream.runId);
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
      <h2 id="start-title">{$t('runs.start', 'Start a run')}</h2>
      {flow.data && !flow.data.published ? <p className="notice warn">{$t('runs.notPublished', 'This flow is not published: publish a version first.')}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label htmlFor="run-input">{$t('runs.input', 'Input (JSON)')}</label>
        <textarea id="run-input" rows={5} value={input} onChange={(e) => setInput(e.target.value)} spellCheck={false} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'run-input-error' : undefined} />
        {problem ? (
          <p id="run-input-error" className="field-error">
            {problem}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={running}>
            {$t('runs.runNow', 'Run')}
          </button>
          {running ? (
            <button type="button" onClick={() => abort.current?.abort()}>
              {$t('runs.stopWatching', 'Stop watching')}
            </button>
          ) : null}
        </div>
      </form>
      <ErrorNotice error={error} />
      {runId ? (
        <p>
          <Link to={href(['run', runId])}>{$t('runs.openRun', 'Open run {id}', { id: runId })}</Link>
        </p>
      ) : null}
      {frames.length ? (
        <ol className="events" aria-live="polite" aria-label={$t('runs.events', 'Run events')}>
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

type RunDetail = { runId: string; flowId: string; versionId: string; variant?: string; status: string; startedBy: string; startedAt: string; durationMs?: number; output?: unknown; error?: Record<string, unknown>; timeline: TimelineEvent[] };

/** One run: status, output or error, and its timeline per node with durations, tokens and cost. */
export function RunPage({ runId }: { runId: string }) {
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: async () => unwrap(await api.flows.GET('/api/v1/runs/{runId}', { params: { path: { runId } } })) as unknown as RunDetail,
    // A run still going is asked again each second while this page is open.
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1000 : false),
  });
  const usage = useQuery({
    queryKey: ['run-usage', runId, run.data?.status],
    queryFn: async () => (unwrap(await api.flows.GET('/api/v1/admin/llm/usage', { params: { query: { runId, limit: 200 } } })) as { items: UsageRow[] }).items,
    enabled: Boolean(run.data),
  });
  const t = run.data ? runTimeline(run.data.timeline, usage.data ?? []) : undefined;
  return (
    <>
      <p className="crumbs">
        <Link to={href(['runs'])}>{$t('nav.runs', 'Runs')}</Link>
        {run.data ? (
          <>
            {' / '}
            <Link to={href(['runs', run.data.flowId])}>{run.data.flowId}</Link>
          </>
        ) : null}
      </p>
      <PageTitle>{$t('run.title', 'Run {id}', { id: runId })}</PageTitle>
      {run.isPending ? <Loading /> : null}
      <ErrorNotice error={run.error} onRetry={() => void run.refetch()} />
      {run.data && t ? (
        <>
          <dl className="diff">
            <dt>{$t('runs.status', 'Status')}</dt>
            <dd>
              <span className={`status status-${run.data.status}`}>{run.data.status}</span>
            </dd>
            <dt>{$t('flow.version', 'Version')}</dt>
            <dd>
              <code>{run.data.versionId}</code>
              {run.data.variant ? ` · ${run.data.variant}` : ''}
            </dd>
            <dt>{$t('runs.started', 'Started')}</dt>
            <dd>
              <time dateTime={run.data.startedAt}>{formatTime(run.data.startedAt)}</time> · {run.data.startedBy}
            </dd>
            <dt>{$t('runs.duration', 'Duration')}</dt>
            <dd>{run.data.durationMs !== undefined ? `${run.data.durationMs} ms` : '—'}</dd>
          </dl>
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title">{$t('run.timeline', 'Timeline')}</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">{$t('run.node', 'Node')}</th>
                  <th scope="col">{$t('run.start', 'Start')}</th>
                  <th scope="col">{$t('runs.duration', 'Duration')}</th>
                  <th scope="col">{$t('runs.status', 'Status')}</th>
                  <th scope="col">{$t('run.port', 'Port')}</th>
                  <th scope="col">{$t('run.notes', 'Notes')}</th>
                </tr>
              </thead>
              <tbody>
                {t.steps.map((s, i) => (
                  <tr key={i}>
                    <td>
                      <code>{s.nodeId}</code> {s.name && s.name !== s.nodeId ? <span className="muted small">{s.name}</span> : null}
                    </td>
                    <td>+{formatMs(s.startMs)}</td>
                    <td>{s.durationMs !== undefined ? formatMs(s.durationMs) : '—'}</td>
                    <td>
                      <span className={`status status-${s.status}`}>{s.status}</span>
                    </td>
                    <td>{s.port ?? '—'}</td>
                    <td className="small">{[s.error, ...s.warnings, s.chunks ? $t('run.chunks', '{n, plural, one {# streamed chunk} other {# streamed chunks}}', { n: s.chunks }) : ''].filter(Boolean).join(' · ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          {t.usage.length ? (
            <section aria-labelledby="usage-title">
              <h2 id="usage-title">{$t('run.usage', 'Model usage')}</h2>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{$t('run.node', 'Node')}</th>
                    <th scope="col">{$t('run.calls', 'Calls')}</th>
                    <th scope="col">{$t('run.tokens', 'Tokens (prompt + completion)')}</th>
                    <th scope="col">{$t('run.cost', 'Cost')}</th>
                  </tr>
                </thead>
                <tbody>
                  {t.usage.map((u) => (
                    <tr key={u.nodeId}>
                      <td>
                        <code>{u.nodeId || '—'}</code>
                      </td>
                      <td>{u.calls}</td>
                      <td>
                        {u.totalTokens} ({u.promptTokens} + {u.completionTokens})
                      </td>
                      <td>
                        {u.cost !== undefined ? `${u.cost.toFixed(6)} ${u.currency ?? ''}` : '—'}
                        {u.unpriced ? ` · ${$t('run.unpriced', '{n} unpriced', { n: u.unpriced })}` : ''}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          ) : null}
          <section aria-labelledby="output-title">
            <h2 id="output-title">{run.data.error ? $t('run.error', 'Error') : $t('run.output', 'Output')}</h2>
            <pre className="code" tabIndex={0}>
              {JSON.stringify(run.data.error ?? run.data.output ?? null, null, 2)}
            </pre>
          </section>
        </>
      ) : null}
    </>
  );
}
