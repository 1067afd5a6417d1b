import { useInfiniteQuery, useQueries } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { USAGE_FIELDS, USAGE_METRICS, usageBars, usageRange, type UsageField, type UsageGroup, type UsageMetric } from '../../lib/operations-usage';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { BarChart } from './BarChart';
import { RangePicker, type RangeChoice } from './RangePicker';

type ByAnswer = { field: string; from: string; to: string; groups: UsageGroup[] };

function fieldTitle(f: UsageField): string {
  switch (f) {
    case 'profileId':
      return $t('ops.usage.byProfile', 'By profile');
    case 'model':
      return $t('ops.usage.byModel', 'By model');
    case 'flowId':
      return $t('ops.usage.byFlow', 'By flow');
    default:
      return $t('ops.usage.byUser', 'By user');
  }
}

function metricLabel(m: UsageMetric): string {
  if (m === 'calls') return $t('ops.usage.calls', 'Calls');
  if (m === 'totalTokens') return $t('ops.usage.tokens', 'Tokens');
  return $t('ops.usage.cost', 'Cost');
}

/** Model usage and cost from the usage ledger, grouped by profile, model, flow and user over a chosen range. */
export default function UsagePage() {
  const [choice, setChoice] = useState<RangeChoice>({ preset: '24h' });
  const [metric, setMetric] = useState<UsageMetric>('calls');
  // The range is fixed when chosen (Refresh moves a preset's end to now).
  const [now, setNow] = useState(() => new Date());
  const range = usageRange(choice.preset, now, choice.from, choice.to);
  const by = useQueries({
    queries: USAGE_FIELDS.map((field) => ({
      queryKey: ['ops-usage', field, range?.from, range?.to],
      enabled: !!range,
      queryFn: async () => unwrap(await api.flows.GET('/api/v1/admin/llm/usage/by', { params: { query: { field, from: range!.from, to: range!.to } } })) as ByAnswer,
    })),
  });
  const error = by.find((q) => q.error)?.error;
  return (
    <>
      <PageTitle>{$t('ops.usage.title', 'LLM usage and cost')}</PageTitle>
      <RangePicker
        value={choice}
        onChange={(c) => {
          setNow(new Date());
          setChoice(c);
        }}
      />
      <div className="row">
        <label htmlFor="usage-metric">{$t('ops.usage.metric', 'Show')}</label>
        <select id="usage-metric" value={metric} onChange={(e) => setMetric(e.target.value as UsageMetric)}>
          {USAGE_METRICS.map((m) => (
            <option key={m} value={m}>
              {metricLabel(m)}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setNow(new Date())} disabled={by.some((q) => q.isFetching)}>
          {$t('ops.refresh', 'Refresh')}
        </button>
      </div>
      {by.some((q) => q.isPending) && range ? <Loading /> : null}
      <ErrorNotice error={error} onRetry={() => void Promise.all(by.map((q) => q.refetch()))} />
      <div className="charts">
        {USAGE_FIELDS.map((field, i) => {
          const data = by[i]?.data;
          return data ? <UsageChart key={field} field={field} metric={metric} groups={data.groups} /> : null;
        })}
      </div>
      {range ? <RecentCalls from={range.from} to={range.to} /> : null}
    </>
  );
}

type UsageRow = { usageId: string; providerId: string; model: string; profileId?: string | null; flowId?: string | null; userId?: string | null; kind?: string; totalTokens: number; latencyMs: number; usageSource: string; status: string; service?: string; cost?: number | null; currency?: string | null; recordedAt: string };

/** The calls of the range, newest first, paged with the ledger's cursor. */
function RecentCalls({ from, to }: { from: string; to: string }) {
  const rows = useInfiniteQuery({
    queryKey: ['ops-usage-rows', from, to],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.flows.GET('/api/v1/admin/llm/usage', { params: { query: { from, to, cursor: pageParam, limit: 25 } } })) as { items: UsageRow[]; nextCursor?: string },
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = rows.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="usage-rows-title">
      <h2 id="usage-rows-title">{$t('ops.usage.recent', 'Calls in this range')}</h2>
      <ErrorNotice error={rows.error} onRetry={() => void rows.refetch()} />
      {items.length ? (
        <table className="small">
          <thead>
            <tr>
              <th scope="col">{$t('ops.usage.at', 'Recorded')}</th>
              <th scope="col">{$t('ops.usage.model', 'Model')}</th>
              <th scope="col">{$t('ops.usage.profile', 'Profile')}</th>
              <th scope="col">{$t('ops.usage.flow', 'Flow')}</th>
              <th scope="col">{$t('ops.usage.user', 'User')}</th>
              <th scope="col">{$t('ops.usage.tokens', 'Tokens')}</th>
              <th scope="col">{$t('ops.usage.latency', 'Latency')}</th>
              <th scope="col">{$t('ops.usage.status', 'Status')}</th>
              <th scope="col">{$t('ops.usage.cost', 'Cost')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.usageId}>
                <td>
                  <time dateTime={r.recordedAt}>{formatTime(r.recordedAt)}</time>
                </td>
                <td>
                  {r.providerId}/{r.model}
                </td>
                <td>{r.profileId ?? '—'}</td>
                <td>{r.flowId ?? r.service ?? '—'}</td>
                <td>{r.userId ?? '—'}</td>
                <td>
                  {r.totalTokens}
                  {r.usageSource === 'estimated' ? ` ${$t('ops.usage.est', '(estimated)')}` : ''}
                </td>
                <td>{$t('ops.usage.ms', '{ms} ms', { ms: r.latencyMs })}</td>
                <td className={r.status === 'ok' ? undefined : 'status-failed'}>{r.status}</td>
                <td>{r.cost == null ? $t('ops.usage.unpriced', 'unpriced') : `${r.cost} ${r.currency ?? ''}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : rows.data ? (
        <p className="muted">{$t('ops.usage.empty', 'No model calls in this range.')}</p>
      ) : null}
      {rows.hasNextPage ? (
        <button type="button" onClick={() => void rows.fetchNextPage()} disabled={rows.isFetchingNextPage}>
          {$t('ops.more', 'Show more')}
        </button>
      ) : null}
    </section>
  );
}

function UsageChart({ field, metric, groups }: { field: UsageField; metric: UsageMetric; groups: UsageGroup[] }) {
  const bars = useMemo(() => usageBars(groups, metric, 12, { none: $t('ops.usage.none', '(none)'), other: $t('ops.usage.other', '(other)') }), [groups, metric]);
  const categories = useMemo(() => bars.map((b) => b.label), [bars]);
  const series = useMemo(() => [{ name: metricLabel(metric), values: bars.map((b) => b.value) }], [bars, metric]);
  const id = `usage-${field}`;
  if (!groups.length)
    return (
      <section className="chart-figure" aria-labelledby={`${id}-empty`}>
        <h2 id={`${id}-empty`} className="h3">
          {fieldTitle(field)}
        </h2>
        <p className="muted">{$t('ops.usage.empty', 'No model calls in this range.')}</p>
      </section>
    );
  return (
    <BarChart id={id} title={`${fieldTitle(field)} · ${metricLabel(metric)}`} categories={categories} series={series}>
      <table className="small" data-testid={`${id}-table`}>
        <thead>
          <tr>
            <th scope="col">{fieldTitle(field)}</th>
            <th scope="col">{$t('ops.usage.calls', 'Calls')}</th>
            <th scope="col">{$t('ops.usage.errors', 'Errors')}</th>
            <th scope="col">{$t('ops.usage.tokens', 'Tokens')}</th>
            <th scope="col">{$t('ops.usage.cost', 'Cost')}</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.key ?? ''}>
              <th scope="row">{g.key ?? $t('ops.usage.none', '(none)')}</th>
              <td>{g.calls}</td>
              <td>{g.errors}</td>
              <td>
                {g.totalTokens}
                {g.estimated ? <span className="small muted"> {$t('ops.usage.estimated', '({n} estimated)', { n: g.estimated })}</span> : null}
              </td>
              <td>
                {g.cost == null ? $t('ops.usage.unpriced', 'unpriced') : `${g.cost} ${g.currency ?? ''}`}
                {g.cost != null && g.unpriced ? <span className="small muted"> {$t('ops.usage.partlyUnpriced', '({n} unpriced)', { n: g.unpriced })}</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </BarChart>
  );
}
