import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, unwrap } from '../api';
import { $t } from '../i18n';
import { href, Link, useRoute } from '../router';
import { ErrorNotice, fieldError, formatTime, Loading, PageTitle } from '../ui';

/** Flows per page of the list (GET /flows answers them all; the console pages them). */
const PAGE = 25;

export type FlowRow = { id: string; name: string; description?: string; published?: Record<string, unknown>; publishedAt?: string; createdAt: string; createdBy: string; templateId?: string };

/** What a flow's publish pointer says, in a few words. */
export function publishedLabel(published: Record<string, unknown> | undefined): string {
  if (!published) return $t('flows.unpublished', 'not published');
  if (typeof published['versionId'] === 'string') return published['versionId'];
  const variants = Array.isArray(published['variants']) ? (published['variants'] as Array<{ label?: string; versionId?: string; weight?: number }>) : [];
  return variants.map((v) => `${v.label} ${v.versionId} (${v.weight})`).join(', ');
}

/** Flows, the landing page: search, pages, create. */
export function FlowsPage() {
  const { route, navigate } = useRoute();
  const q = route.query.get('q') ?? '';
  const page = Math.max(0, Number(route.query.get('page') ?? '0') || 0);
  const flows = useQuery({ queryKey: ['flows'], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows')) as FlowRow[] });
  const matching = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const all = flows.data ?? [];
    return needle ? all.filter((f) => [f.id, f.name, f.description ?? ''].some((s) => s.toLowerCase().includes(needle))) : all;
  }, [flows.data, q]);
  const pages = Math.max(1, Math.ceil(matching.length / PAGE));
  const shown = matching.slice(page * PAGE, page * PAGE + PAGE);
  return (
    <>
      <PageTitle>{$t('flows.title', 'Flows')}</PageTitle>
      <div className="row">
        <CreateFlow onCreated={(id) => navigate(href(['flows', id]))} />
        <FromTemplate onCreated={(id) => navigate(href(['flows', id]))} />
      </div>
      <form
        role="search"
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const value = new FormData(e.currentTarget).get('q');
          navigate(href(['flows'], { q: typeof value === 'string' ? value : '' }), true);
        }}
      >
        <label htmlFor="flow-search">{$t('flows.search', 'Search flows')}</label>
        <input id="flow-search" name="q" type="search" defaultValue={q} />
        <button type="submit">{$t('search', 'Search')}</button>
      </form>
      {flows.isPending ? <Loading /> : null}
      <ErrorNotice error={flows.error} onRetry={() => void flows.refetch()} />
      {flows.data ? (
        <>
          <table>
            <caption className="muted">{$t('flows.count', '{count, plural, =0 {No flows} one {# flow} other {# flows}}', { count: matching.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{$t('flows.name', 'Name')}</th>
                <th scope="col">{$t('flows.id', 'Id')}</th>
                <th scope="col">{$t('flows.published', 'Published')}</th>
                <th scope="col">{$t('flows.created', 'Created')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((f) => (
                <tr key={f.id}>
                  <td>
                    <Link to={href(['flows', f.id])}>{f.name}</Link>
                    {f.description ? <div className="muted small">{f.description}</div> : null}
                  </td>
                  <td>
                    <code>{f.id}</code>
                  </td>
                  <td>{publishedLabel(f.published)}</td>
                  <td>
                    <time dateTime={f.createdAt}>{formatTime(f.createdAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {pages > 1 ? (
            <nav className="row" aria-label={$t('pages', 'Pages')}>
              {page > 0 ? <Link to={href(['flows'], { q, page: String(page - 1) })}>{$t('previous', 'Previous')}</Link> : null}
              <span>{$t('pageOf', 'Page {page} of {pages}', { page: page + 1, pages })}</span>
              {page + 1 < pages ? <Link to={href(['flows'], { q, page: String(page + 1) })}>{$t('next', 'Next')}</Link> : null}
            </nav>
          ) : null}
        </>
      ) : null}
    </>
  );
}

function CreateFlow({ onCreated }: { onCreated: (id: string) => void }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const create = useMutation({
    mutationFn: async (body: { id?: string; name: string; description?: string }) => unwrap(await api.flows.POST('/api/v1/flows', { body })) as FlowRow,
    onSuccess: (flow) => {
      void client.invalidateQueries({ queryKey: ['flows'] });
      onCreated(flow.id);
    },
  });
  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        {$t('flows.new', 'New flow')}
      </button>
    );
  const idError = fieldError(create.error, 'id');
  const nameError = fieldError(create.error, 'name');
  return (
    <form
      className="card"
      aria-labelledby="new-flow-title"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const id = String(f.get('id') ?? '').trim();
        const description = String(f.get('description') ?? '').trim();
        create.mutate({ name: String(f.get('name') ?? '').trim(), ...(id ? { id } : {}), ...(description ? { description } : {}) });
      }}
    >
      <h2 id="new-flow-title">{$t('flows.new', 'New flow')}</h2>
      <label htmlFor="new-name">{$t('flows.name', 'Name')}</label>
      <input id="new-name" name="name" required maxLength={200} aria-invalid={nameError ? true : undefined} aria-describedby={nameError ? 'new-name-error' : undefined} />
      {nameError ? <p id="new-name-error" className="field-error">{nameError}</p> : null}
      <label htmlFor="new-id">{$t('flows.idOptional', 'Id (optional, made from the name)')}</label>
      <input id="new-id" name="id" pattern="[a-z0-9][a-z0-9._\-]{0,127}" aria-invalid={idError ? true : undefined} aria-describedby={idError ? 'new-id-error' : undefined} />
      {idError ? <p id="new-id-error" className="field-error">{idError}</p> : null}
      <label htmlFor="new-description">{$t('flows.description', 'Description')}</label>
      <input id="new-description" name="description" />
      {create.error && !idError && !nameError ? <ErrorNotice error={create.error} /> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          {$t('create', 'Create')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {$t('cancel', 'Cancel')}
        </button>
      </div>
    </form>
  );
}

type TemplateRow = { id: string; name: string; description: string; source: string; tags: string[] };

/** A new flow from a starter template: the spec's picker lifecycle (list, pick, create, save a version). */
function FromTemplate({ onCreated }: { onCreated: (id: string) => void }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const templates = useQuery({
    queryKey: ['templates', query],
    queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/templates', { params: { query: query ? { q: query } : {} } })) as unknown as TemplateRow[],
    enabled: open,
  });
  const create = useMutation({
    mutationFn: async (t: TemplateRow) => {
      const doc = unwrap(await api.flows.GET('/api/v1/flows/templates/{id}', { params: { path: { id: t.id }, query: { format: 'ir' } } }));
      const flow = unwrap(await api.flows.POST('/api/v1/flows', { body: { name: t.name, ...(t.description ? { description: t.description } : {}) } })) as FlowRow;
      unwrap(await api.flows.POST('/api/v1/flows/{id}/versions', { params: { path: { id: flow.id }, query: { format: 'ir' } }, body: doc }));
      return flow;
    },
    onSuccess: (flow) => {
      void client.invalidateQueries({ queryKey: ['flows'] });
      onCreated(flow.id);
    },
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {$t('templates.open', 'New flow from a template')}
      </button>
    );
  return (
    <section className="card" aria-labelledby="templates-title">
      <h2 id="templates-title">{$t('templates.title', 'Starter templates')}</h2>
      <form
        role="search"
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(q.trim());
        }}
      >
        <label htmlFor="template-search">{$t('templates.search', 'Search templates')}</label>
        <input id="template-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        <button type="submit">{$t('search', 'Search')}</button>
        <button type="button" onClick={() => setOpen(false)}>
          {$t('cancel', 'Cancel')}
        </button>
      </form>
      {templates.isPending ? <Loading /> : null}
      <ErrorNotice error={templates.error ?? create.error} />
      <ul className="templates">
        {(templates.data ?? []).map((t) => (
          <li key={t.id}>
            <button type="button" disabled={create.isPending} onClick={() => create.mutate(t)} aria-describedby={`tpl-${t.id.replace(/[^\w-]/g, '_')}`}>
              {$t('templates.use', 'Use {name}', { name: t.name })}
            </button>{' '}
            <span id={`tpl-${t.id.replace(/[^\w-]/g, '_')}`} className="muted small">
              <code>{t.id}</code> · {t.description}
            </span>
          </li>
        ))}
      </ul>
      {templates.data?.length === 0 ? <p>{$t('templates.none', 'No template matches.')}</p> : null}
    </section>
  );
}
