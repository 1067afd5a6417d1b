import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, fieldError, formatTime, Loading, PageTitle } from '../../ui';

type Template = { name: string; id: string; title: string; description: string; tier: string; recommended: boolean; requires: string[]; available: boolean };
type ResetResult = { flowId: string; versionId: string; template: string; published: true; warnings?: string[] };
type KnowledgeItem = { id: string; index: string; title: string; url?: string; format: 'markdown' | 'html' | 'text'; chunks: number; chars: number; updatedAt: string };

/** The template picker: tiers, what each requires, and the reset that switches the assistant to one. */
export function TemplatesPage() {
  const templates = useQuery({ queryKey: ['assistant-templates'], queryFn: async () => unwrap(await api.assistant.GET('/api/v1/admin/assistant/templates')) as { items: Template[] } });
  const client = useQueryClient();
  const reset = useMutation({
    mutationFn: async (template: string) => unwrap(await api.assistant.POST('/api/v1/admin/assistant/reset', { params: { query: { template: template as never } } })) as ResetResult,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['assistant-current'] }),
  });
  // What the assistant runs now: the published version of its flow, whose meta names the template it came from.
  const current = useQuery({
    queryKey: ['assistant-current'],
    queryFn: async () => {
      const config = unwrap(await api.assistant.GET('/api/v1/assistant/config')) as { flowId: string };
      const flow = unwrap(await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: config.flowId } } })) as { published?: { versionId?: string } };
      const versionId = flow.published?.versionId;
      if (!versionId) return { flowId: config.flowId };
      const version = unwrap(await api.flows.GET('/api/v1/flows/{id}/versions/{versionId}', { params: { path: { id: config.flowId, versionId } } })) as { document?: { meta?: { assistantTemplate?: unknown } } };
      const template = version.document?.meta?.assistantTemplate;
      return { flowId: config.flowId, versionId, template: typeof template === 'string' ? template : undefined };
    },
  });
  return (
    <>
      <PageTitle>{$t('assistant.templates.title', 'Assistant templates')}</PageTitle>
      <p className="muted">{$t('assistant.templates.help', 'Switching saves a new version of the assistant flow from the template and publishes it.')}</p>
      {current.data ? (
        <p>
          {current.data.versionId
            ? $t('assistant.templates.current', 'Published now: {version} ({template})', { version: current.data.versionId, template: current.data.template ?? $t('assistant.templates.custom', 'not from a template') })
            : $t('assistant.templates.unpublished', 'The assistant flow {flow} is not published.', { flow: current.data.flowId })}
        </p>
      ) : null}
      {templates.isPending ? <Loading /> : null}
      <ErrorNotice error={templates.error} onRetry={() => void templates.refetch()} />
      <ErrorNotice error={current.error} />
      <div role="status">
        {reset.data ? (
          <div className="notice">
            {$t('assistant.templates.switched', 'The assistant now runs {template} ({version}).', { template: reset.data.template, version: reset.data.versionId })}
            {reset.data.warnings?.map((w) => (
              <p key={w} className="notice warn">
                {w}
              </p>
            ))}
          </div>
        ) : null}
      </div>
      <ErrorNotice error={reset.error} />
      {templates.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('assistant.templates.tier', 'Tier')}</th>
              <th scope="col">{$t('assistant.templates.template', 'Template')}</th>
              <th scope="col">{$t('assistant.templates.requires', 'Requires')}</th>
              <th scope="col">
                <span className="visually-hidden">{$t('assistant.templates.actions', 'Actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {templates.data.items.map((t) => (
              <tr key={t.name}>
                <td>{t.tier}</td>
                <td>
                  <strong>{t.title}</strong> <code className="small">{t.name}</code>
                  {t.recommended ? <span className="badge">{$t('assistant.templates.recommended', 'recommended')}</span> : null}
                  <div className="small muted">{t.description}</div>
                </td>
                <td>{t.requires.length ? <ul className="plain">{t.requires.map((r) => <li key={r}>{r}</li>)}</ul> : '–'}</td>
                <td>
                  <button type="button" disabled={!t.available || reset.isPending} onClick={() => reset.mutate(t.name)}>
                    {t.available ? $t('assistant.templates.use', 'Switch to {name}', { name: t.name }) : $t('assistant.templates.unavailable', 'Not available')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** Knowledge documents of the retrieval templates: upload (the admin ingest route), list, delete. */
export function KnowledgePage() {
  const client = useQueryClient();
  const docs = useQuery({ queryKey: ['assistant-knowledge'], queryFn: async () => unwrap(await api.assistant.GET('/api/v1/admin/assistant/knowledge')) as { documents: KnowledgeItem[]; chunks: number } });
  const remove = useMutation({
    mutationFn: async (id: string) => unwrap(await api.assistant.DELETE('/api/v1/admin/assistant/knowledge/{id}', { params: { path: { id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['assistant-knowledge'] }),
  });
  return (
    <>
      <PageTitle>{$t('assistant.knowledge.title', 'Knowledge documents')}</PageTitle>
      <p className="muted">{$t('assistant.knowledge.help', 'The retrieval templates (rag and its variants) answer from these documents, in the index svc_docs.')}</p>
      <IngestForm onDone={() => void client.invalidateQueries({ queryKey: ['assistant-knowledge'] })} />
      {docs.isPending ? <Loading /> : null}
      <ErrorNotice error={docs.error} onRetry={() => void docs.refetch()} />
      <ErrorNotice error={remove.error} />
      {docs.data && !docs.data.documents.length ? <p className="muted">{$t('assistant.knowledge.none', 'No documents yet.')}</p> : null}
      {docs.data?.documents.length ? (
        <table>
          <caption>{$t('assistant.knowledge.count', '{count} documents, {chunks} chunks', { count: docs.data.documents.length, chunks: docs.data.chunks })}</caption>
          <thead>
            <tr>
              <th scope="col">{$t('assistant.knowledge.id', 'Id')}</th>
              <th scope="col">{$t('assistant.knowledge.docTitle', 'Title')}</th>
              <th scope="col">{$t('assistant.knowledge.chunks', 'Chunks')}</th>
              <th scope="col">{$t('assistant.knowledge.updated', 'Updated')}</th>
              <th scope="col">
                <span className="visually-hidden">{$t('assistant.templates.actions', 'Actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {docs.data.documents.map((d) => (
              <tr key={`${d.index}/${d.id}`}>
                <td>
                  <code>{d.id}</code>
                </td>
                <td>{d.url && /^https?:\/\//i.test(d.url) ? <a href={d.url} target="_blank" rel="noopener noreferrer nofollow">{d.title}</a> : d.title}</td>
                <td>{d.chunks}</td>
                <td>
                  <time dateTime={d.updatedAt}>{formatTime(d.updatedAt)}</time>
                </td>
                <td>
                  <button
                    type="button"
                    disabled={remove.isPending}
                    onClick={() => {
                      if (confirm($t('assistant.knowledge.confirmDelete', 'Delete {id} from the knowledge index?', { id: d.id }))) remove.mutate(d.id);
                    }}
                  >
                    {$t('assistant.knowledge.delete', 'Delete {id}', { id: d.id })}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

const FORMATS = ['markdown', 'html', 'text'] as const;
const ID = /^[\w.\-/]{1,200}$/;

function formatOf(name: string): (typeof FORMATS)[number] {
  if (/\.html?$/i.test(name)) return 'html';
  if (/\.txt$/i.test(name)) return 'text';
  return 'markdown';
}

function IngestForm({ onDone }: { onDone: () => void }) {
  const [doc, setDoc] = useState({ id: '', title: '', url: '', format: 'markdown' as (typeof FORMATS)[number], text: '' });
  const [problems, setProblems] = useState<Record<string, string>>({});
  const ingest = useMutation({
    mutationFn: async () =>
      unwrap(await api.assistant.POST('/api/v1/admin/assistant/ingest', { body: { documents: [{ id: doc.id.trim(), title: doc.title.trim(), ...(doc.url.trim() ? { url: doc.url.trim() } : {}), text: doc.text, format: doc.format }] } })) as { index: string; chunks: number; embeddedChunks: number },
    onSuccess: () => {
      setDoc({ id: '', title: '', url: '', format: 'markdown', text: '' });
      onDone();
    },
  });
  const problem = (field: 'id' | 'title' | 'url' | 'text') => problems[field] ?? fieldError(ingest.error, `documents.0.${field}`) ?? fieldError(ingest.error, `documents[0].${field}`);
  const submit = () => {
    const p: Record<string, string> = {};
    if (!ID.test(doc.id.trim())) p['id'] = $t('assistant.knowledge.badId', 'An id of letters, digits and . _ - / (at most 200).');
    if (!doc.title.trim()) p['title'] = $t('assistant.knowledge.needTitle', 'A title is required.');
    if (doc.url.trim() && !/^https?:\/\/\S+$/i.test(doc.url.trim())) p['url'] = $t('assistant.knowledge.badUrl', 'An http(s) address, or nothing.');
    if (!doc.text.trim()) p['text'] = $t('assistant.knowledge.needText', 'The document has no text.');
    setProblems(p);
    if (!Object.keys(p).length) ingest.mutate();
  };
  const field = (name: 'id' | 'title' | 'url', label: string) => {
    const err = problem(name);
    return (
      <div>
        <label htmlFor={`doc-${name}`}>{label}</label>
        <input id={`doc-${name}`} value={doc[name]} onChange={(e) => setDoc({ ...doc, [name]: e.target.value })} aria-invalid={err ? true : undefined} aria-describedby={err ? `doc-${name}-error` : undefined} />
        {err ? (
          <p id={`doc-${name}-error`} className="field-error">
            {err}
          </p>
        ) : null}
      </div>
    );
  };
  const textErr = problem('text');
  return (
    <section className="card" aria-labelledby="ingest-title">
      <h2 id="ingest-title">{$t('assistant.knowledge.add', 'Add a document')}</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor="doc-file">{$t('assistant.knowledge.file', 'From a file (.md, .html, .txt)')}</label>
        <input
          id="doc-file"
          type="file"
          accept=".md,.markdown,.html,.htm,.txt,text/*"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (!f) return;
            void f.text().then((text) => {
              const id = f.name.replace(/\.[^.]+$/, '').replace(/[^\w.\-/]+/g, '-');
              setDoc((d) => ({ ...d, id: d.id || id, title: d.title || (text.match(/^#\s+(.+)$/m)?.[1] ?? id), format: formatOf(f.name), text }));
            });
          }}
        />
        <div className="grid-3">
          {field('id', $t('assistant.knowledge.id', 'Id'))}
          {field('title', $t('assistant.knowledge.docTitle', 'Title'))}
          {field('url', $t('assistant.knowledge.url', 'Address (optional)'))}
        </div>
        <label htmlFor="doc-format">{$t('assistant.knowledge.format', 'Format')}</label>
        <select id="doc-format" value={doc.format} onChange={(e) => setDoc({ ...doc, format: e.target.value as (typeof FORMATS)[number] })}>
          {FORMATS.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <label htmlFor="doc-text">{$t('assistant.knowledge.text', 'Text')}</label>
        <textarea id="doc-text" rows={6} value={doc.text} onChange={(e) => setDoc({ ...doc, text: e.target.value })} aria-invalid={textErr ? true : undefined} aria-describedby={textErr ? 'doc-text-error' : undefined} />
        {textErr ? (
          <p id="doc-text-error" className="field-error">
            {textErr}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={ingest.isPending}>
            {$t('assistant.knowledge.ingest', 'Ingest')}
          </button>
          <span role="status" className="small">
            {ingest.data ? $t('assistant.knowledge.ingested', 'Ingested into {index}: {chunks} chunks ({embedded} embedded).', { index: ingest.data.index, chunks: ingest.data.chunks, embedded: ingest.data.embeddedChunks }) : ''}
          </span>
        </div>
        <ErrorNotice error={ingest.error && !textErr ? ingest.error : undefined} />
      </form>
    </section>
  );
}
