import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { api, FlowplaneApiError, unwrap } from '../../api';
import { currentToken } from '../../auth/session';
import { $t } from '../../i18n';
import { conflictOf, type DeploymentDraft, draftProblems, draftToBody, labelProblems, labelsToText, routeParams, routeUrl, splitSegments, splitSummary, type VariantDraft } from '../../lib/deployments-view';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, fieldError, formatTime, Loading, PageTitle } from '../../ui';

/** Deployments per page of the list (GET /deployments answers them all; the console pages them). */
const PAGE = 25;

type Deployment = {
  id: string;
  name: string;
  kind: 'route' | 'subscriber' | 'invoke';
  disabled: boolean;
  labels: Record<string, string>;
  tags: string[];
  stickyBy?: string;
  variants: VariantDraft[];
  route?: { method: string; path: string };
  auth?: { mode: 'public' | 'authenticated' | 'perms'; perms?: string[] };
  managedFor?: string;
  contributes?: {
    routes: Array<{ method: string; path: string; success_status: number; summary?: string }>;
    events: Array<{ name: string; filter?: string; direction: 'subscribe' | 'publish' }>;
    packets: Array<{ name: string; $ref: string }>;
  };
  contributesError?: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
};

const listDeployments = async () => unwrap(await api.deployments.GET('/api/v1/deployments')) as unknown as Deployment[];

/** The deployments area: the list (`deployments`) and one deployment (`deployments/<id>`). */
export default function DeploymentsArea({ id }: { id?: string }) {
  return id ? <DeploymentPage id={id} /> : <DeploymentsPage />;
}

function DeploymentsPage() {
  const { route, navigate } = useRoute();
  const page = Math.max(0, Number(route.query.get('page') ?? '0') || 0);
  const [creating, setCreating] = useState(false);
  const list = useQuery({ queryKey: ['deployments'], queryFn: listDeployments });
  const pages = Math.max(1, Math.ceil((list.data?.length ?? 0) / PAGE));
  const shown = (list.data ?? []).slice(page * PAGE, page * PAGE + PAGE);
  return (
    <>
      <PageTitle>{$t('deployments.title', 'Deployments')}</PageTitle>
      {creating ? (
        <DeploymentForm onDone={(id) => (id ? navigate(href(['deployments', id])) : setCreating(false))} />
      ) : (
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          {$t('deployments.new', 'New deployment')}
        </button>
      )}
      {list.isPending ? <Loading /> : null}
      <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      {list.data ? (
        <>
          <table>
            <caption className="muted">{$t('deployments.count', '{count, plural, =0 {No deployments} one {# deployment} other {# deployments}}', { count: list.data.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{$t('deployments.name', 'Name')}</th>
                <th scope="col">{$t('deployments.kind', 'Kind')}</th>
                <th scope="col">{$t('deployments.binding', 'Route or event')}</th>
                <th scope="col">{$t('deployments.tags', 'Tags')}</th>
                <th scope="col">{$t('deployments.variants', 'Variants')}</th>
                <th scope="col">{$t('deployments.state', 'State')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((d) => (
                <tr key={d.id} className={d.disabled ? 'muted' : undefined}>
                  <td>
                    <Link to={href(['deployments', d.id])}>{d.name}</Link>
                    <div className="muted small">
                      <code>{d.id}</code>
                      {d.managedFor ? ` · ${$t('deployments.managedFor', 'auto-managed for {flow}', { flow: d.managedFor })}` : ''}
                    </div>
                  </td>
                  <td>{d.kind}</td>
                  <td>{binding(d)}</td>
                  <td>
                    <Tags tags={d.tags} />
                  </td>
                  <td>
                    <SplitBar variants={d.variants} />
                  </td>
                  <td>{d.disabled ? <strong>{$t('deployments.disabled', 'disabled')}</strong> : $t('deployments.enabled', 'enabled')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {pages > 1 ? (
            <nav className="row" aria-label={$t('pages', 'Pages')}>
              {page > 0 ? <Link to={href(['deployments'], { page: String(page - 1) })}>{$t('previous', 'Previous')}</Link> : null}
              <span>{$t('pageOf', 'Page {page} of {pages}', { page: page + 1, pages })}</span>
              {page + 1 < pages ? <Link to={href(['deployments'], { page: String(page + 1) })}>{$t('next', 'Next')}</Link> : null}
            </nav>
          ) : null}
        </>
      ) : null}
    </>
  );
}

function binding(d: Deployment): string {
  if (d.route) return `${d.route.method} /api/v1${d.route.path}`;
  if (d.labels['x-event']) return d.labels['x-event'];
  const ev = d.contributes?.events.find((e) => e.direction === 'subscribe');
  return ev ? ev.name : '—';
}

function Tags({ tags }: { tags: string[] }) {
  if (!tags.length) return <span className="muted">—</span>;
  return (
    <ul className="tags" aria-label={$t('deployments.tags', 'Tags')}>
      {tags.map((t) => (
        <li key={t}>{t}</li>
      ))}
    </ul>
  );
}

/** The variants' shares as a bar (SVG) with the same split in text beside it for everyone. */
export function SplitBar({ variants }: { variants: ReadonlyArray<Pick<VariantDraft, 'label' | 'weight'>> }) {
  const segs = splitSegments(variants);
  const summary = splitSummary(variants, $t);
  return (
    <div className="split">
      <svg className="split-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <rect x="0" y="0" width="100" height="10" className="split-empty" />
        {segs.map((s, i) => (s.percent > 0 ? <rect key={`${s.label}-${i}`} x={s.offset} y="0" width={s.percent} height="10" className={`split-${i % 4}`} /> : null))}
      </svg>
      <span className="small">{summary}</span>
    </div>
  );
}

function DeploymentPage({ id }: { id: string }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const one = useQuery({ queryKey: ['deployment', id], queryFn: async () => unwrap(await api.deployments.GET('/api/v1/deployments/{id}', { params: { path: { id } } })) as unknown as Deployment });
  const toggle = useMutation({
    mutationFn: async (disabled: boolean) => unwrap(await api.deployments.PATCH('/api/v1/deployments/{id}', { params: { path: { id } }, body: { disabled } })) as unknown as Deployment,
    onSuccess: (d) => {
      client.setQueryData(['deployment', id], d);
      void client.invalidateQueries({ queryKey: ['deployments'] });
    },
  });
  const d = one.data;
  return (
    <>
      <p className="crumbs">
        <Link to={href(['deployments'])}>{$t('deployments.title', 'Deployments')}</Link> / {id}
      </p>
      <PageTitle>{d ? d.name : id}</PageTitle>
      {one.isPending ? <Loading /> : null}
      <ErrorNotice error={one.error} onRetry={() => void one.refetch()} />
      {d ? (
        <>
          <dl className="facts">
            <dt>{$t('deployments.id', 'Id')}</dt>
            <dd>
              <code>{d.id}</code>
            </dd>
            <dt>{$t('deployments.kind', 'Kind')}</dt>
            <dd>{d.kind}</dd>
            <dt>{$t('deployments.binding', 'Route or event')}</dt>
            <dd>{binding(d)}</dd>
            {d.auth && d.kind === 'route' ? (
              <>
                <dt>{$t('deployments.auth', 'Callers')}</dt>
                <dd>{d.auth.mode === 'perms' ? `perms: ${(d.auth.perms ?? []).join(', ')}` : d.auth.mode}</dd>
              </>
            ) : null}
            <dt>{$t('deployments.tags', 'Tags')}</dt>
            <dd>
              <Tags tags={d.tags} />
            </dd>
            <dt>{$t('deployments.sticky', 'Sticky by')}</dt>
            <dd>{d.stickyBy ?? '—'}</dd>
            <dt>{$t('deployments.updated', 'Updated')}</dt>
            <dd>
              <time dateTime={d.updatedAt}>{formatTime(d.updatedAt)}</time> · {$t('deployments.revision', 'revision {revision}', { revision: d.revision })}
            </dd>
          </dl>
          <div className="row">
            <span role="status">{d.disabled ? $t('deployments.isDisabled', 'This deployment is disabled: its route answers 404 and its subscribers are stopped.') : $t('deployments.isEnabled', 'This deployment is enabled.')}</span>
            <button type="button" aria-pressed={d.disabled} disabled={toggle.isPending} onClick={() => toggle.mutate(!d.disabled)}>
              {$t('deployments.disable', 'Disabled')}
            </button>
            {!editing ? (
              <button type="button" onClick={() => setEditing(true)}>
                {$t('deployments.edit', 'Edit')}
              </button>
            ) : null}
          </div>
          <ErrorNotice error={toggle.error} />
          {editing ? <DeploymentForm existing={d} onDone={() => setEditing(false)} /> : null}
          <section aria-labelledby="variants-title">
            <h2 id="variants-title">{$t('deployments.variants', 'Variants')}</h2>
            <SplitBar variants={d.variants} />
            <table>
              <thead>
                <tr>
                  <th scope="col">{$t('deployments.variant.label', 'Label')}</th>
                  <th scope="col">{$t('deployments.variant.flow', 'Flow')}</th>
                  <th scope="col">{$t('deployments.variant.version', 'Pinned version')}</th>
                  <th scope="col">{$t('deployments.variant.weight', 'Weight')}</th>
                </tr>
              </thead>
              <tbody>
                {d.variants.map((v) => (
                  <tr key={v.label}>
                    <td>{v.label}</td>
                    <td>
                      <Link to={href(['flows', v.flowId])}>{v.flowId}</Link>
                    </td>
                    <td>{v.versionId ?? $t('deployments.variant.published', 'published version')}</td>
                    <td>{v.weight}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <Contributes d={d} />
          {d.route ? <TryRoute route={d.route} disabled={d.disabled} /> : null}
        </>
      ) : null}
    </>
  );
}

function Contributes({ d }: { d: Deployment }) {
  const c = d.contributes;
  return (
    <section aria-labelledby="contributes-title">
      <h2 id="contributes-title">{$t('deployments.contributes', 'Contributes')}</h2>
      {d.contributesError ? <p className="notice warn">{d.contributesError}</p> : null}
      {c ? (
        <>
          <h3>{$t('deployments.contributes.routes', 'Routes')}</h3>
          {c.routes.length ? (
            <ul>
              {c.routes.map((r) => (
                <li key={`${r.method} ${r.path}`}>
                  <code>
                    {r.method} /api/v1{r.path}
                  </code>{' '}
                  → {r.success_status}
                  {r.summary ? ` · ${r.summary}` : ''}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{$t('deployments.contributes.none', 'None.')}</p>
          )}
          <h3>{$t('deployments.contributes.events', 'Events')}</h3>
          {c.events.length ? (
            <ul>
              {c.events.map((e) => (
                <li key={`${e.direction} ${e.name}`}>
                  {e.direction === 'subscribe' ? $t('deployments.contributes.subscribes', 'subscribes to') : $t('deployments.contributes.publishes', 'publishes')} <code>{e.name}</code>
                  {e.filter ? (
                    <>
                      {' '}
                      {$t('deployments.contributes.filter', 'where')} <code>{e.filter}</code>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{$t('deployments.contributes.none', 'None.')}</p>
          )}
          <h3>{$t('deployments.contributes.packets', 'Packets')}</h3>
          {c.packets.length ? (
            <ul>
              {c.packets.map((p) => (
                <li key={p.name}>
                  <code>{p.name}</code> <span className="muted small">{p.$ref}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{$t('deployments.contributes.none', 'None.')}</p>
          )}
        </>
      ) : null}
    </section>
  );
}

/** Calls the deployment's route through the gateway, as any caller would, and shows the answer as text. */
function TryRoute({ route, disabled }: { route: { method: string; path: string }; disabled: boolean }) {
  const params = routeParams(route.path);
  const [values, setValues] = useState<Record<string, string>>({});
  const [query, setQuery] = useState('');
  const [body, setBody] = useState('{}');
  const [session, setSession] = useState('');
  const [bearer, setBearer] = useState('');
  const [problem, setProblem] = useState<string>();
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  const call = useMutation({
    mutationFn: async (req: { url: string; body?: string }) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      const token = bearer.trim().replace(/^Bearer\s+/i, '') || currentToken();
      if (token) headers['authorization'] = `Bearer ${token}`;
      if (session.trim()) headers['x-session-id'] = session.trim();
      if (req.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(req.url, { method: route.method, headers, body: req.body });
      const text = await res.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Not JSON: shown as it came.
      }
      return { status: res.status, statusText: res.statusText, variant: res.headers.get('x-variant'), runId: res.headers.get('x-run-id'), body: shown };
    },
  });
  return (
    <section aria-labelledby="try-title" className="card">
      <h2 id="try-title">{$t('deployments.try.title', 'Try this route')}</h2>
      <p className="muted small">
        {$t('deployments.try.help', 'Calls {method} /api/v1{path} through the gateway with your token (or the one given below), as a caller would.', { method: route.method, path: route.path })}
        {disabled ? ` ${$t('deployments.try.disabled', 'The deployment is disabled, so expect 404.')}` : ''}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const { url, missing } = routeUrl(route.path, values, query);
          if (missing.length) return setProblem($t('deployments.try.missing', 'Fill in the path parameters: {names}.', { names: missing.join(', ') }));
          if (hasBody) {
            try {
              JSON.parse(body || '{}');
            } catch {
              return setProblem($t('deployments.try.badJson', 'The body is not valid JSON.'));
            }
          }
          setProblem(undefined);
          call.mutate({ url, body: hasBody ? body || '{}' : undefined });
        }}
      >
        {params.map((p) => (
          <div key={p}>
            <label htmlFor={`try-param-${p}`}>{$t('deployments.try.param', 'Path parameter {name}', { name: p })}</label>
            <input id={`try-param-${p}`} value={values[p] ?? ''} onChange={(e) => setValues({ ...values, [p]: e.target.value })} required />
          </div>
        ))}
        <label htmlFor="try-query">{$t('deployments.try.query', 'Query string (optional)')}</label>
        <input id="try-query" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="a=1&b=2" />
        {hasBody ? (
          <>
            <label htmlFor="try-body">{$t('deployments.try.body', 'JSON body')}</label>
            <textarea id="try-body" rows={5} value={body} onChange={(e) => setBody(e.target.value)} spellCheck={false} />
          </>
        ) : null}
        <label htmlFor="try-session">{$t('deployments.try.session', 'X-Session-Id (optional, for sticky variants)')}</label>
        <input id="try-session" value={session} onChange={(e) => setSession(e.target.value)} />
        <label htmlFor="try-token">{$t('deployments.try.token', 'Bearer token (optional, instead of yours)')}</label>
        <input id="try-token" type="password" value={bearer} onChange={(e) => setBearer(e.target.value)} autoComplete="off" />
        {problem ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={call.isPending}>
            {$t('deployments.try.send', 'Send')}
          </button>
        </div>
      </form>
      <ErrorNotice error={call.error} />
      {call.data ? (
        <div aria-live="polite">
          <p className="try-status">
            <strong>
              {call.data.status} {call.data.statusText}
            </strong>
            {call.data.variant ? ` · ${$t('deployments.try.variant', 'variant {variant}', { variant: call.data.variant })}` : ''}
            {call.data.runId ? (
              <>
                {' · '}
                <Link to={href(['run', call.data.runId])}>{$t('deployments.try.run', 'run {runId}', { runId: call.data.runId })}</Link>
              </>
            ) : null}
          </p>
          <pre className="code try-body" tabIndex={0} aria-label={$t('deployments.try.answer', 'Answer body')}>
            {call.data.body}
          </pre>
        </div>
      ) : null}
    </section>
  );
}

const emptyVariant = (label: string, weight: number): VariantDraft => ({ label, flowId: '', weight });

/** Create (no `existing`) or edit a deployment; a 409 names the deployment holding the route or flow, linked. */
function DeploymentForm({ existing, onDone }: { existing?: Deployment; onDone: (createdId?: string) => void }) {
  const client = useQueryClient();
  const uid = useId();
  const [newId, setNewId] = useState('');
  const [draft, setDraft] = useState<DeploymentDraft>(() => ({
    name: existing?.name ?? '',
    kind: existing?.kind ?? 'route',
    labelsText: labelsToText(existing?.labels),
    stickyBy: existing?.stickyBy ?? '',
    authMode: existing?.auth?.mode ?? 'authenticated',
    authPerms: (existing?.auth?.perms ?? []).join(', '),
    variants: existing?.variants.map((v) => ({ ...v })) ?? [emptyVariant('stable', 100)],
  }));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const flows = useQuery({ queryKey: ['flows'], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows')) as Array<{ id: string; name: string }> });
  const save = useMutation({
    mutationFn: async () => {
      const body = draftToBody(draft);
      if (existing) {
        const { kind: _kind, ...patch } = body;
        return unwrap(await api.deployments.PATCH('/api/v1/deployments/{id}', { params: { path: { id: existing.id } }, body: { ...patch, stickyBy: (body.stickyBy ?? null) as unknown as Record<string, never> | null } })) as unknown as Deployment;
      }
      return unwrap(await api.deployments.POST('/api/v1/deployments', { body: { ...body, disabled: false, ...(newId.trim() ? { id: newId.trim() } : {}) } })) as unknown as Deployment;
    },
    onSuccess: (d) => {
      client.setQueryData(['deployment', d.id], d);
      void client.invalidateQueries({ queryKey: ['deployments'] });
      onDone(existing ? undefined : d.id);
    },
  });
  const conflict = save.error instanceof FlowplaneApiError && save.error.status === 409 ? conflictOf(save.error.body) : undefined;
  const serverField = (f: string) => fieldError(save.error, f) ?? (f === 'labels' && save.error instanceof FlowplaneApiError && save.error.status === 400 ? labelProblems(save.error.details) : undefined);
  const set = (patch: Partial<DeploymentDraft>) => setDraft({ ...draft, ...patch });
  const setVariant = (i: number, patch: Partial<VariantDraft>) => set({ variants: draft.variants.map((v, j) => (j === i ? { ...v, ...patch } : v)) });
  const flowIds = useMemo(() => (flows.data ?? []).map((f) => f.id), [flows.data]);
  const err = (key: string) => problems[key] ?? serverField(key);
  const described = (key: string) => (err(key) ? { 'aria-invalid': true as const, 'aria-describedby': `${uid}-${key.replace(/\./g, '-')}-error` } : {});
  const errText = (key: string) =>
    err(key) ? (
      <p id={`${uid}-${key.replace(/\./g, '-')}-error`} className="field-error">
        {err(key)}
      </p>
    ) : null;
  return (
    <form
      className="card"
      aria-labelledby={`${uid}-title`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const found = draftProblems(draft, $t);
        setProblems(found);
        if (!Object.keys(found).length) save.mutate();
      }}
    >
      <h2 id={`${uid}-title`}>{existing ? $t('deployments.editTitle', 'Edit {name}', { name: existing.name }) : $t('deployments.new', 'New deployment')}</h2>
      <label htmlFor={`${uid}-name`}>{$t('deployments.name', 'Name')}</label>
      <input id={`${uid}-name`} value={draft.name} onChange={(e) => set({ name: e.target.value })} {...described('name')} />
      {errText('name')}
      {!existing ? (
        <>
          <label htmlFor={`${uid}-id`}>{$t('deployments.idOptional', 'Id (optional, made from the name)')}</label>
          <input id={`${uid}-id`} value={newId} onChange={(e) => setNewId(e.target.value)} {...described('id')} />
          {errText('id')}
          <label htmlFor={`${uid}-kind`}>{$t('deployments.kind', 'Kind')}</label>
          <select id={`${uid}-kind`} value={draft.kind} onChange={(e) => set({ kind: e.target.value as DeploymentDraft['kind'] })}>
            <option value="route">{$t('deployments.kind.route', 'route: an HTTP route under /api/v1')}</option>
            <option value="subscriber">{$t('deployments.kind.subscriber', 'subscriber: runs for each event of a bus channel')}</option>
            <option value="invoke">{$t('deployments.kind.invoke', 'invoke: no binding, variants chosen through select')}</option>
          </select>
        </>
      ) : null}
      <label htmlFor={`${uid}-labels`}>{$t('deployments.labels', 'Labels, one key=value a line (for example {examples})', { examples: 'x-route=POST /orders/{id}, x-event=orders.created, tag:shop' })}</label>
      <textarea id={`${uid}-labels`} rows={3} value={draft.labelsText} onChange={(e) => set({ labelsText: e.target.value })} spellCheck={false} {...described('labels')} />
      {errText('labels')}
      <label htmlFor={`${uid}-sticky`}>{$t('deployments.stickyOptional', 'Sticky by (optional meta field, for example session_id)')}</label>
      <input id={`${uid}-sticky`} value={draft.stickyBy} onChange={(e) => set({ stickyBy: e.target.value })} {...described('stickyBy')} />
      {errText('stickyBy')}
      {draft.kind === 'route' ? (
        <fieldset>
          <legend>{$t('deployments.auth', 'Callers')}</legend>
          <label htmlFor={`${uid}-auth`}>{$t('deployments.authMode', 'Who may call the route')}</label>
          <select id={`${uid}-auth`} value={draft.authMode} onChange={(e) => set({ authMode: e.target.value as DeploymentDraft['authMode'] })}>
            <option value="public">{$t('deployments.auth.public', 'anyone (public)')}</option>
            <option value="authenticated">{$t('deployments.auth.authenticated', 'any signed-in caller')}</option>
            <option value="perms">{$t('deployments.auth.perms', 'callers with permissions')}</option>
          </select>
          {draft.authMode === 'perms' ? (
            <>
              <label htmlFor={`${uid}-perms`}>{$t('deployments.authPerms', 'Permissions (comma separated, all required)')}</label>
              <input id={`${uid}-perms`} value={draft.authPerms} onChange={(e) => set({ authPerms: e.target.value })} {...described('auth')} />
              {errText('auth')}
            </>
          ) : null}
        </fieldset>
      ) : null}
      <fieldset>
        <legend>{$t('deployments.variants', 'Variants')}</legend>
        <SplitBar variants={draft.variants} />
        {errText('variants')}
        <datalist id={`${uid}-flows`}>
          {flowIds.map((f) => (
            <option key={f} value={f} />
          ))}
        </datalist>
        {draft.variants.map((v, i) => (
          <div key={i} className="row variant-row">
            <label htmlFor={`${uid}-v${i}-label`}>{$t('deployments.variant.label', 'Label')}</label>
            <input id={`${uid}-v${i}-label`} size={10} value={v.label} onChange={(e) => setVariant(i, { label: e.target.value })} {...described(`variants.${i}.label`)} />
            <label htmlFor={`${uid}-v${i}-flow`}>{$t('deployments.variant.flow', 'Flow')}</label>
            <input id={`${uid}-v${i}-flow`} list={`${uid}-flows`} value={v.flowId} onChange={(e) => setVariant(i, { flowId: e.target.value })} {...described(`variants.${i}.flowId`)} />
            <label htmlFor={`${uid}-v${i}-weight`}>{$t('deployments.variant.weight', 'Weight')}</label>
            <input id={`${uid}-v${i}-weight`} type="number" min={0} step={1} size={5} value={Number.isFinite(v.weight) ? v.weight : ''} onChange={(e) => setVariant(i, { weight: e.target.value === '' ? NaN : Number(e.target.value) })} {...described(`variants.${i}.weight`)} />
            <button type="button" onClick={() => set({ variants: draft.variants.filter((_, j) => j !== i) })} aria-label={$t('deployments.variant.remove', 'Remove variant {label}', { label: v.label || String(i + 1) })}>
              {$t('deployments.variant.removeShort', 'Remove')}
            </button>
            {errText(`variants.${i}.label`)}
            {errText(`variants.${i}.flowId`)}
            {errText(`variants.${i}.weight`)}
          </div>
        ))}
        <button type="button" onClick={() => set({ variants: [...draft.variants, emptyVariant(draft.variants.length ? 'canary' : 'stable', draft.variants.length ? 10 : 100)] })}>
          {$t('deployments.variant.add', 'Add variant')}
        </button>
      </fieldset>
      {conflict ? (
        <div className="notice error" role="alert">
          {conflict.path
            ? $t('deployments.conflict.route', 'The route {method} {path} belongs to deployment {name}.', { method: conflict.method ?? '', path: conflict.path, name: conflict.name ?? conflict.id })
            : $t('deployments.conflict.flow', 'The flow {flow} belongs to deployment {name}.', { flow: conflict.flowId ?? '', name: conflict.name ?? conflict.id })}{' '}
          <Link to={href(['deployments', conflict.id])}>{$t('deployments.conflict.open', 'Open {id}', { id: conflict.id })}</Link>
          {conflict.detail ? <div className="small">{conflict.detail}</div> : null}
        </div>
      ) : save.error && !Object.keys(problems).length && !['name', 'id', 'labels', 'stickyBy', 'auth'].some((f) => serverField(f)) ? (
        <ErrorNotice error={save.error} />
      ) : null}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {existing ? $t('deployments.save', 'Save') : $t('create', 'Create')}
        </button>
        <button type="button" onClick={() => onDone()}>
          {$t('cancel', 'Cancel')}
        </button>
      </div>
    </form>
  );
}
