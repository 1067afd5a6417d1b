import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { usageRange } from '../../lib/operations-usage';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { BarChart } from '../operations/BarChart';
import { RangePicker, type RangeChoice } from '../operations/RangePicker';

type VariantStats = { variantLabel: string; chats: number; turns: number; handoffs: number; up: number; down: number; p50FirstTokenMs?: number | null; p95FirstTokenMs?: number | null; tokens: number; cost?: number | null; currency?: string | null };

/** Per-variant stats of the assistant (chats, turns, handoffs, ratings, time to first token, tokens and cost) over a range. */
export default function StatsPage() {
  const [choice, setChoice] = useState<RangeChoice>({ preset: '7d' });
  const [now] = useState(() => new Date());
  const range = usageRange(choice.preset, now, choice.from, choice.to);
  const stats = useQuery({
    queryKey: ['assistant-stats', range?.from, range?.to],
    enabled: !!range,
    queryFn: async () => unwrap(await api.assistant.GET('/api/v1/admin/assistant/stats', { params: { query: { from: range!.from, to: range!.to } } })) as { from: string; to: string; variants: VariantStats[] },
  });
  const variants = stats.data?.variants;
  const categories = useMemo(() => (variants ?? []).map((v) => v.variantLabel), [variants]);
  const counts = useMemo(
    () => [
      { name: $t('assistant.stats.chats', 'Chats'), values: (variants ?? []).map((v) => v.chats) },
      { name: $t('assistant.stats.turns', 'Turns'), values: (variants ?? []).map((v) => v.turns) },
      { name: $t('assistant.stats.handoffs', 'Handoffs'), values: (variants ?? []).map((v) => v.handoffs) },
      { name: $t('assistant.stats.up', 'Helpful'), values: (variants ?? []).map((v) => v.up) },
      { name: $t('assistant.stats.down', 'Unhelpful'), values: (variants ?? []).map((v) => v.down) },
    ],
    [variants],
  );
  const latency = useMemo(
    () => [
      { name: $t('assistant.stats.p50', 'p50 first token (ms)'), values: (variants ?? []).map((v) => v.p50FirstTokenMs ?? 0) },
      { name: $t('assistant.stats.p95', 'p95 first token (ms)'), values: (variants ?? []).map((v) => v.p95FirstTokenMs ?? 0) },
    ],
    [variants],
  );
  return (
    <>
      <PageTitle>{$t('assistant.stats.title', 'Assistant stats per variant')}</PageTitle>
      <RangePicker value={choice} onChange={setChoice} />
      {stats.isPending && range ? <Loading /> : null}
      <ErrorNotice error={stats.error} onRetry={() => void stats.refetch()} />
      {stats.data ? (
        <p className="muted">{$t('assistant.stats.range', 'From {from} to {to}', { from: formatTime(stats.data.from), to: formatTime(stats.data.to) })}</p>
      ) : null}
      {variants && !variants.length ? <p className="muted">{$t('assistant.stats.none', 'No chats in this range.')}</p> : null}
      {variants?.length ? (
        <div className="charts">
          <BarChart id="stats-counts" title={$t('assistant.stats.countsTitle', 'Chats, turns, handoffs and ratings')} categories={categories} series={counts}>
            <StatsTable variants={variants} />
          </BarChart>
          <BarChart id="stats-latency" title={$t('assistant.stats.latencyTitle', 'Time to first token')} categories={categories} series={latency}>
            <p className="visually-hidden">{$t('assistant.stats.latencyAlt', 'The table above lists the same times.')}</p>
          </BarChart>
        </div>
      ) : null}
    </>
  );
}

function StatsTable({ variants }: { variants: VariantStats[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{$t('assistant.stats.variant', 'Variant')}</th>
          <th scope="col">{$t('assistant.stats.chats', 'Chats')}</th>
          <th scope="col">{$t('assistant.stats.turns', 'Turns')}</th>
          <th scope="col">{$t('assistant.stats.handoffs', 'Handoffs')}</th>
          <th scope="col">{$t('assistant.stats.up', 'Helpful')}</th>
          <th scope="col">{$t('assistant.stats.down', 'Unhelpful')}</th>
          <th scope="col">{$t('assistant.stats.p50', 'p50 first token (ms)')}</th>
          <th scope="col">{$t('assistant.stats.p95', 'p95 first token (ms)')}</th>
          <th scope="col">{$t('assistant.stats.tokens', 'Tokens')}</th>
          <th scope="col">{$t('assistant.stats.cost', 'Cost')}</th>
        </tr>
      </thead>
      <tbody>
        {variants.map((v) => (
          <tr key={v.variantLabel}>
            <th scope="row">{v.variantLabel}</th>
            <td>{v.chats}</td>
            <td>{v.turns}</td>
            <td>{v.handoffs}</td>
            <td>{v.up}</td>
            <td>{v.down}</td>
            <td>{v.p50FirstTokenMs ?? '—'}</td>
            <td>{v.p95FirstTokenMs ?? '—'}</td>
            <td>{v.tokens}</td>
            <td>{v.cost == null ? $t('assistant.stats.unpriced', 'unpriced') : `${v.cost} ${v.currency ?? ''}`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
