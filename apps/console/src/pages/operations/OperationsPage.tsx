import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy } from 'react';
import { api, FlowplaneApiError, unwrap } from '../../api';
import { $t } from '../../i18n';
import { healthRows } from '../../lib/operations-health';
import { href, Link } from '../../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../../ui';
import { SearchPage } from './Search';

// The charts (echarts) load only when usage is opened.
const UsagePage = lazy(() => import('./Usage'));

const SECTIONS = [
  { id: 'health', label: () => $t('ops.nav.health', 'Health and bus') },
  { id: 'schedules', label: () => $t('ops.nav.schedules', 'Scheduler') },
  { id: 'subscriptions', label: () => $t('ops.nav.subscriptions', 'Event sources') },
  { id: 'usage', label: () => $t('ops.nav.usage', 'LLM usage') },
  { id: 'search', label: () => $t('ops.nav.search', 'Search') },
  { id: 'hub', label: () => $t('ops.nav.hub', 'Realtime hub') },
  { id: 'mail', label: () => $t('ops.nav.mail', 'Mail outbox') },
] as const;

/** The operations area: `/operations/<section>`. Every view asks once when opened (Refresh asks again); none holds a long-lived request. */
export default function OperationsPage({ section }: { section?: string }) {
  const current = SECTIONS.some((s) => s.id === section) ? section! : 'health';
  return (
    <>
      <nav aria-label={$t('ops.nav.label', 'Operations sections')} className="subnav">
        {SECTIONS.map((s) => (
          <Link key={s.id} to={href(['operations', s.id])} ariaCurrent={current === s.id}>
            {s.label()}
          </Link>
        ))}
      </nav>
      {current === 'health' ? <HealthPage /> : null}
      {current === 'schedules' ? <SchedulesPage /> : null}
      {current === 'subscriptions' ? <SubscriptionsPage /> : null}
      {current === 'usage' ? <UsagePage /> : null}
      {current === 'search' ? <SearchPage /> : null}
      {current === 'hub' ? <HubPage /> : null}
      {current === 'mail' ? <MailPage /> : null}
    </>
  );
}

function Refresh({ onClick, busy }: { onClick: () => void; busy: boolean }) {
  return (
    <button type="button" onClick={onClick} disabled={busy}>
      {$t('ops.refresh', 'Refresh')}
    </button>
  );
}

type ConsumerGroup = { groupId: string; topic: string; lag: number; partitions: Array<{ partition: number; committed: number | null; end: number; lag: number }> };
type SystemService = { service: string; status: 'up' | 'down'; version?: string; uptimeSeconds?: number; adapters?: Record<string, string>; reason?: string; consumers?: ConsumerGroup[]; consumersError?: string };
type Probe = { probeId: string; ok: boolean; acknowledged: Record<string, number>; missing: string[]; elapsedMs: number };

/** Service health (the gateway's aggregate; its 503 still lists every service), versions and adapters, and the bus: lag, consumers, a probe. */
function HealthPage() {
  const health = useQuery({
    queryKey: ['ops-health'],
    retry: false,
    queryFn: async () => {
      const r = await api.gateway.GET('/api/v1/health');
      if (r.response.ok) return r.data as unknown;
      // 503 NOT_READY carries the per-service state too: show it rather than only the error.
      const e = FlowplaneApiError.fromBody(r.response, r.error);
      if (r.response.status === 503 && healthRows(e.body).length) return e.body;
      throw e;
    },
  });
  const system = useQuery({ queryKey: ['ops-system'], queryFn: async () => unwrap(await api.gateway.GET('/api/v1/admin/system')) as unknown as { services: SystemService[] } });
  const probe = useMutation({ mutationFn: async () => unwrap(await api.gateway.POST('/api/v1/admin/system/bus-probe', { params: { query: { timeoutMs: '3000' } } })) as unknown as Probe });
  const rows = healthRows(health.data);
  const info = new Map((system.data?.services ?? []).map((s) => [s.service, s]));
  const down = rows.filter((r) => !r.up).length;
  return (
    <>
      <PageTitle>{$t('ops.health.title', 'Service health')}</PageTitle>
      <div className="row">
        <Refresh busy={health.isFetching || system.isFetching} onClick={() => void Promise.all([health.refetch(), system.refetch()])} />
        {health.data ? (
          <span role="status" className={down ? 'status status-failed' : 'status status-completed'}>
            {down ? $t('ops.health.down', '{count} services not ready', { count: down }) : $t('ops.health.ok', 'All services ready')}
          </span>
        ) : null}
      </div>
      {health.isPending ? <Loading /> : null}
      <ErrorNotice error={health.error} onRetry={() => void health.refetch()} />
      <ErrorNotice error={system.error} onRetry={() => void system.refetch()} />
      {rows.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('ops.health.service', 'Service')}</th>
              <th scope="col">{$t('ops.health.status', 'Status')}</th>
              <th scope="col">{$t('ops.health.checks', 'Checks')}</th>
              <th scope="col">{$t('ops.health.busLag', 'Bus lag')}</th>
              <th scope="col">{$t('ops.health.consumers', 'Bus consumers')}</th>
              <th scope="col">{$t('ops.health.version', 'Version')}</th>
              <th scope="col">{$t('ops.health.uptime', 'Uptime')}</th>
              <th scope="col">{$t('ops.health.adapters', 'Adapters')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const s = info.get(r.service);
              return (
                <tr key={r.service}>
                  <th scope="row">{r.service}</th>
                  <td>
                    <span className={r.up ? 'status status-completed' : 'status status-failed'}>{r.up ? $t('ops.health.up', 'up') : $t('ops.health.notReady', 'down: {reason}', { reason: r.reason ?? '' })}</span>
                  </td>
                  <td className="small">
                    {Object.entries(r.checks)
                      .map(([k, v]) => `${k}: ${v}`)
                      .join(', ') || '—'}
                  </td>
                  <td>{r.busLag ?? '—'}</td>
                  <td>{r.busConsumers ?? '—'}</td>
                  <td>{s?.version ?? '—'}</td>
                  <td>{s?.uptimeSeconds !== undefined ? $t('ops.health.seconds', '{n} s', { n: s.uptimeSeconds }) : '—'}</td>
                  <td className="small">
                    {s?.adapters
                      ? Object.entries(s.adapters)
                          .map(([k, v]) => `${k}: ${v}`)
                          .join(', ')
                      : '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <ConsumerGroups services={system.data?.services ?? []} />
      <section className="card" aria-labelledby="probe-title">
        <h2 id="probe-title">{$t('ops.bus.title', 'Bus round trip')}</h2>
        <p className="muted">{$t('ops.bus.help', 'Publishes a probe event and reports which services consumed it and answered. Dead-letter topics are not listed by the API yet.')}</p>
        <button type="button" onClick={() => probe.mutate()} disabled={probe.isPending}>
          {probe.isPending ? $t('ops.bus.running', 'Probing…') : $t('ops.bus.probe', 'Probe the bus')}
        </button>
        <div role="status">
          {probe.data ? (
            <p className={probe.data.ok ? 'status-completed' : 'status-failed'}>
              {probe.data.ok
                ? $t('ops.bus.ok', 'Every service answered in {ms} ms.', { ms: probe.data.elapsedMs })
                : $t('ops.bus.missing', 'No answer from: {services}', { services: probe.data.missing.join(', ') })}
            </p>
          ) : null}
        </div>
        {probe.data ? (
          <ul className="plain small">
            {Object.entries(probe.data.acknowledged).map(([s, ms]) => (
              <li key={s}>{$t('ops.bus.ack', '{service}: {ms} ms', { service: s, ms })}</li>
            ))}
          </ul>
        ) : null}
        <ErrorNotice error={probe.error} />
      </section>
    </>
  );
}

/**
 * Every consumer group of every service with its lag, per partition on hover: what has been
 * published and not yet processed (on Kafka, read from the broker's committed offsets).
 */
function ConsumerGroups({ services }: { services: SystemService[] }) {
  // One row per group and topic. Standalone runs one in-process bus for every service, so each
  // service reports every group: the row names all of them.
  const byGroup = new Map<string, ConsumerGroup & { services: string[] }>();
  for (const s of services) {
    for (const c of s.consumers ?? []) {
      const key = `${c.groupId}\u0000${c.topic}`;
      const row = byGroup.get(key);
      if (row) row.services.push(s.service);
      else byGroup.set(key, { ...c, services: [s.service] });
    }
  }
  const rows = [...byGroup.values()];
  const reporting = services.filter((s) => s.consumers?.length).length;
  const shared = reporting > 1 && rows.every((r) => r.services.length === reporting);
  const failed = services.filter((s) => s.consumersError);
  if (!rows.length && !failed.length) return null;
  return (
    <section className="card" aria-labelledby="groups-title">
      <h2 id="groups-title">{$t('ops.groups.title', 'Consumer groups')}</h2>
      {failed.map((s) => (
        <p key={s.service} className="status-failed small">
          {$t('ops.groups.error', '{service}: {reason}', { service: s.service, reason: s.consumersError ?? '' })}
        </p>
      ))}
      {rows.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('ops.groups.group', 'Group')}</th>
              <th scope="col">{$t('ops.groups.service', 'Reported by')}</th>
              <th scope="col">{$t('ops.groups.topic', 'Topic')}</th>
              <th scope="col">{$t('ops.groups.lag', 'Lag')}</th>
              <th scope="col">{$t('ops.groups.partitions', 'Partitions (committed / end)')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.groupId} ${r.topic}`}>
                <th scope="row">
                  <code>{r.groupId}</code>
                </th>
                <td className="small">{shared ? $t('ops.groups.shared', 'every service (one in-process bus)') : r.services.join(', ')}</td>
                <td>
                  <code>{r.topic}</code>
                </td>
                <td className={r.lag > 0 ? 'status-failed' : undefined}>{r.lag}</td>
                <td className="small">{r.partitions.map((p) => `p${p.partition} ${p.committed ?? '—'}/${p.end}`).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

type Schedule = { id: string; cron: string; topic: string; payload: Record<string, unknown>; enabled: boolean; nextRunAt?: string; lastFiredAt?: string; source: 'seed' | 'operator' };

/** Scheduler entries with their next and last firing; an entry can be switched off and on. */
function SchedulesPage() {
  const client = useQueryClient();
  const schedules = useQuery({ queryKey: ['ops-schedules'], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/schedules')) as Schedule[] });
  const toggle = useMutation({
    mutationFn: async (s: Schedule) => unwrap(await api.flows.PUT('/api/v1/flows/schedules/{id}', { params: { path: { id: s.id } }, body: { cron: s.cron, topic: s.topic, payload: s.payload, enabled: !s.enabled } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['ops-schedules'] }),
  });
  return (
    <>
      <PageTitle>{$t('ops.schedules.title', 'Scheduler entries')}</PageTitle>
      <div className="row">
        <Refresh busy={schedules.isFetching} onClick={() => void schedules.refetch()} />
        <span className="muted small">{$t('ops.schedules.utc', 'Cron expressions are five fields, in UTC.')}</span>
      </div>
      {schedules.isPending ? <Loading /> : null}
      <ErrorNotice error={schedules.error} onRetry={() => void schedules.refetch()} />
      <ErrorNotice error={toggle.error} />
      {schedules.data && !schedules.data.length ? <p className="muted">{$t('ops.schedules.none', 'No scheduler entries.')}</p> : null}
      {schedules.data?.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('ops.schedules.id', 'Entry')}</th>
              <th scope="col">{$t('ops.schedules.cron', 'Cron')}</th>
              <th scope="col">{$t('ops.schedules.topic', 'Topic')}</th>
              <th scope="col">{$t('ops.schedules.next', 'Next run')}</th>
              <th scope="col">{$t('ops.schedules.last', 'Last fired')}</th>
              <th scope="col">{$t('ops.schedules.enabled', 'Enabled')}</th>
            </tr>
          </thead>
          <tbody>
            {schedules.data.map((s) => (
              <tr key={s.id}>
                <th scope="row">
                  <code>{s.id}</code> <span className="small muted">{s.source}</span>
                </th>
                <td>
                  <code>{s.cron}</code>
                </td>
                <td>
                  <code>{s.topic}</code>
                </td>
                <td>{s.enabled && s.nextRunAt ? <time dateTime={s.nextRunAt}>{formatTime(s.nextRunAt)}</time> : '—'}</td>
                <td>{s.lastFiredAt ? <time dateTime={s.lastFiredAt}>{formatTime(s.lastFiredAt)}</time> : '—'}</td>
                <td>
                  <label className="visually-hidden" htmlFor={`schedule-${s.id}`}>
                    {$t('ops.schedules.toggle', 'Enabled: {id}', { id: s.id })}
                  </label>
                  <input id={`schedule-${s.id}`} type="checkbox" checked={s.enabled} disabled={toggle.isPending} onChange={() => toggle.mutate(s)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

type Deployment = { id: string; kind: string; disabled: boolean; variants: Array<{ label: string; flowId: string; weight: number }> };
type Subscription = { flowId: string; versionId: string; topic: string; groupId: string; state: string; processed: number; failedRuns: number; lastError?: string; lastEventAt?: string; lag?: number; deploymentId?: string; filtered?: number };

/** Event-source subscriptions: the flows of the subscriber deployments, each flow's subscriptions with state and lag. */
function SubscriptionsPage() {
  const deployments = useQuery({ queryKey: ['ops-subscriber-deployments'], queryFn: async () => unwrap(await api.deployments.GET('/api/v1/deployments')) as Deployment[] });
  const flowIds = [...new Set((deployments.data ?? []).filter((d) => d.kind === 'subscriber').flatMap((d) => d.variants.map((v) => v.flowId)))].sort();
  const subs = useQueries({
    queries: flowIds.map((flowId) => ({
      queryKey: ['ops-subscriptions', flowId],
      queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}/subscriptions', { params: { path: { id: flowId } } })) as Subscription[],
    })),
  });
  const rows = subs.flatMap((q) => q.data ?? []);
  const failed = subs.find((q) => q.error)?.error;
  return (
    <>
      <PageTitle>{$t('ops.subs.title', 'Event-source subscriptions')}</PageTitle>
      <div className="row">
        <Refresh busy={deployments.isFetching || subs.some((q) => q.isFetching)} onClick={() => void deployments.refetch().then(() => Promise.all(subs.map((q) => q.refetch())))} />
      </div>
      {deployments.isPending ? <Loading /> : null}
      <ErrorNotice error={deployments.error} onRetry={() => void deployments.refetch()} />
      <ErrorNotice error={failed} />
      {deployments.data && !flowIds.length ? <p className="muted">{$t('ops.subs.none', 'No subscriber deployments: no flow consumes events.')}</p> : null}
      {rows.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('ops.subs.topic', 'Topic')}</th>
              <th scope="col">{$t('ops.subs.flow', 'Flow')}</th>
              <th scope="col">{$t('ops.subs.group', 'Group')}</th>
              <th scope="col">{$t('ops.subs.state', 'State')}</th>
              <th scope="col">{$t('ops.subs.lag', 'Lag')}</th>
              <th scope="col">{$t('ops.subs.processed', 'Processed')}</th>
              <th scope="col">{$t('ops.subs.failed', 'Failed runs')}</th>
              <th scope="col">{$t('ops.subs.lastEvent', 'Last event')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={`${s.flowId}/${s.groupId}/${s.topic}`}>
                <th scope="row">
                  <code>{s.topic}</code>
                </th>
                <td>
                  <Link to={href(['flows', s.flowId])}>{s.flowId}</Link> <span className="small muted">{s.versionId}</span>
                </td>
                <td>
                  <code>{s.groupId}</code>
                </td>
                <td>
                  <span className={s.state === 'failed' ? 'status status-failed' : 'status'}>{s.state}</span>
                  {s.lastError ? <div className="small status-failed">{s.lastError}</div> : null}
                </td>
                <td>{s.lag ?? '—'}</td>
                <td>{s.processed}</td>
                <td>{s.failedRuns}</td>
                <td>{s.lastEventAt ? <time dateTime={s.lastEventAt}>{formatTime(s.lastEventAt)}</time> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

type HubInfo = { status: string; connections: number; rooms: number; distributed: boolean; replicaId: string; coord: { kind: string; state: string; since: string; reconnects: number; lastError?: string }; limits?: Record<string, number>; caller?: { sub: string; connections: number } };

/** The hub of this replica: connections, rooms, coordinator and limits (the API gives counts, not the rooms themselves). */
function HubPage() {
  const info = useQuery({ queryKey: ['ops-hub'], queryFn: async () => unwrap(await api.hub.GET('/ws/info')) as HubInfo });
  const d = info.data;
  return (
    <>
      <PageTitle>{$t('ops.hub.title', 'Realtime hub')}</PageTitle>
      <div className="row">
        <Refresh busy={info.isFetching} onClick={() => void info.refetch()} />
      </div>
      {info.isPending ? <Loading /> : null}
      <ErrorNotice error={info.error} onRetry={() => void info.refetch()} />
      {d ? (
        <>
          <dl className="facts">
            <dt>{$t('ops.hub.status', 'Status')}</dt>
            <dd className={d.status === 'ok' ? 'status-completed' : 'status-failed'}>{d.status}</dd>
            <dt>{$t('ops.hub.connections', 'Connections')}</dt>
            <dd>{d.connections}</dd>
            <dt>{$t('ops.hub.rooms', 'Rooms')}</dt>
            <dd>{d.rooms}</dd>
            <dt>{$t('ops.hub.replica', 'Replica')}</dt>
            <dd>
              <code>{d.replicaId}</code> {d.distributed ? $t('ops.hub.distributed', '(distributed)') : $t('ops.hub.single', '(single replica)')}
            </dd>
            <dt>{$t('ops.hub.coord', 'Coordinator')}</dt>
            <dd>
              {d.coord.kind}: {d.coord.state} {$t('ops.hub.since', 'since {at}', { at: formatTime(d.coord.since) })}
              {d.coord.lastError ? <div className="small status-failed">{d.coord.lastError}</div> : null}
            </dd>
            {d.caller ? (
              <>
                <dt>{$t('ops.hub.yours', 'Your connections')}</dt>
                <dd>{d.caller.connections}</dd>
              </>
            ) : null}
          </dl>
          {d.limits ? (
            <table>
              <caption>{$t('ops.hub.limits', 'Limits')}</caption>
              <tbody>
                {Object.entries(d.limits).map(([k, v]) => (
                  <tr key={k}>
                    <th scope="row">
                      <code>{k}</code>
                    </th>
                    <td>{v}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </>
  );
}

type Mail = { id: string; from: string; to: string[]; cc?: string[]; subject: string; text?: string; html?: string; source?: string; createdAt: string };

/** The dev outbox (mails kept instead of sent while SMTP_URL is unset), newest first, paged. Bodies are shown as text. */
function MailPage() {
  const mails = useInfiniteQuery({
    queryKey: ['ops-mail'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => unwrap(await api.flows.GET('/api/v1/admin/mail/outbox', { params: { query: { cursor: pageParam, limit: 25 } } })) as { items: Mail[]; nextCursor?: string },
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = mails.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageTitle>{$t('ops.mail.title', 'Mail outbox')}</PageTitle>
      <p className="muted">{$t('ops.mail.help', 'Without SMTP_URL the platform keeps every mail here instead of sending it.')}</p>
      <div className="row">
        <Refresh busy={mails.isFetching} onClick={() => void mails.refetch()} />
      </div>
      {mails.isPending ? <Loading /> : null}
      <ErrorNotice error={mails.error} onRetry={() => void mails.refetch()} />
      {mails.data && !items.length ? <p className="muted">{$t('ops.mail.none', 'The outbox is empty.')}</p> : null}
      {items.map((m) => (
        <article key={m.id} className="card" aria-labelledby={`mail-${m.id}`}>
          <h2 id={`mail-${m.id}`} className="h3">
            {m.subject}
          </h2>
          <p className="small muted">
            {$t('ops.mail.meta', 'From {from} to {to}, {at}', { from: m.from, to: m.to.join(', '), at: formatTime(m.createdAt) })}
            {m.source ? ` · ${m.source}` : ''}
          </p>
          <details>
            <summary>{$t('ops.mail.body', 'Body')}</summary>
            {/* An HTML body is shown as its source text, never rendered. */}
            <pre className="code">{m.text ?? m.html ?? ''}</pre>
          </details>
        </article>
      ))}
      {mails.hasNextPage ? (
        <button type="button" onClick={() => void mails.fetchNextPage()} disabled={mails.isFetchingNextPage}>
          {$t('ops.more', 'Show more')}
        </button>
      ) : null}
    </>
  );
}
