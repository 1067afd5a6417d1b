import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { api, unwrap } from '../api';
import { $t } from '../i18n';
import type { FlowDocument } from '../lib/flow-types';
import { pinProblems } from '../lib/validation-problems';
import { diffVersions } from '../lib/version-diff';
import { href, Link } from '../router';
import { ErrorNotice, formatTime, Loading, PageTitle } from '../ui';
import { type FlowRow, publishedLabel } from './FlowsPage';

type VersionRow = { versionId: string; number: number; hash: string; createdAt: string; createdBy: string; module?: string; warnings: Array<{ path: string; message: string; severity: 'error' | 'warning'; code: string }> };
type PublishRow = { seq: number; target: Record<string, unknown> | null; reason: string; publishedAt: string; publishedBy: string };

export async function fetchVersion(flowId: string, versionId: string): Promise<FlowDocument> {
  const v = unwrap(await api.flows.GET('/api/v1/flows/{id}/versions/{versionId}', { params: { path: { id: flowId, versionId }, query: { format: 'ir' } } })) as { document: FlowDocument };
  return v.document;
}

/** One flow: versions, publishing, history, diff, JSON/YAML export and import. */
export default function FlowPage({ flowId }: { flowId: string }) {
  const client = useQueryClient();
  const flow = useQuery({ queryKey: ['flow', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: flowId } } })) as FlowRow });
  const versions = useQuery({ queryKey: ['versions', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}/versions', { params: { path: { id: flowId } } })) as VersionRow[] });
  const publishes = useQuery({ queryKey: ['publishes', flowId], queryFn: async () => unwrap(await api.flows.GET('/api/v1/flows/{id}/publishes', { params: { path: { id: flowId } } })) as PublishRow[] });
  const refresh = () => Promise.all(['flow', 'versions', 'publishes', 'flows'].map((k) => client.invalidateQueries({ queryKey: k === 'flows' ? [k] : [k, flowId] })));
  const act = useMutation({
    mutationFn: async (a: { kind: 'publish'; versionID: string } | { kind: 'variants'; variants: Array<{ label: string; versionID: string; weight: number }> } | { kind: 'rollback'; versionID?: string } | { kind: 'unpublish' }) => {
      const path = { params: { path: { id: flowId } } };
      if (a.kind === 'publish') return unwrap(await api.flows.POST('/api/v1/flows/{id}/publish', { ...path, body: { versionID: a.versionID } }));
      if (a.kind === 'variants') return unwrap(await api.flows.POST('/api/v1/flows/{id}/publish', { ...path, body: { variants: a.variants } }));
      if (a.kind === 'rollback') return unwrap(await api.flows.POST('/api/v1/flows/{id}/rollback', { ...path, body: a.versionID ? { versionID: a.versionID } : {} }));
      return unwrap(await api.flows.POST('/api/v1/flows/{id}/unpublish', path));
    },
    onSettled: refresh,
  });
  if (flow.isPending) return <Loading />;
  if (flow.error) return <ErrorNotice error={flow.error} onRetry={() => void flow.refetch()} />;
  const f = flow.data;
  const published = f.published;
  return (
    <>
      <p className="crumbs">
        <Link to={href(['flows'])}>{$t('nav.flows', 'Flows')}</Link> / <code>{f.id}</code>
      </p>
      <PageTitle>{f.name}</PageTitle>
      {f.description ? <p>{f.description}</p> : null}
      <p>
        {$t('flow.publishedNow', 'Published: {what}', { what: publishedLabel(published) })}{' '}
        <Link to={href(['flows', f.id, 'canvas'])}>{$t('flow.openCanvas', 'Open the canvas')}</Link> · <Link to={href(['runs', f.id])}>{$t('flow.runs', 'Runs')}</Link>
      </p>
      <div className="row">
        {published ? (
          <button type="button" onClick={() => act.mutate({ kind: 'unpublish' })} disabled={act.isPending}>
            {$t('flow.unpublish', 'Unpublish')}
          </button>
        ) : null}
        {publishes.data?.length ? (
          <button type="button" onClick={() => act.mutate({ kind: 'rollback' })} disabled={act.isPending}>
            {$t('flow.rollback', 'Roll back to the previous publish')}
          </button>
        ) : null}
      </div>
      <ErrorNotice error={act.error} />
      {act.error && versions.data ? <PublishProblems flowId={flowId} error={act.error} /> : null}
      <section aria-labelledby="versions-title">
        <h2 id="versions-title">{$t('flow.versions', 'Versions')}</h2>
        {versions.isPending ? <Loading /> : null}
        <ErrorNotice error={versions.error} onRetry={() => void versions.refetch()} />
        {versions.data?.length === 0 ? <p>{$t('flow.noVersions', 'No version saved yet: build one on the canvas or import a document.')}</p> : null}
        {versions.data?.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">{$t('flow.version', 'Version')}</th>
                <th scope="col">{$t('flow.savedBy', 'Saved by')}</th>
                <th scope="col">{$t('flow.savedAt', 'Saved')}</th>
                <th scope="col">{$t('flow.warnings', 'Warnings')}</th>
                <th scope="col">{$t('actions', 'Actions')}</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((v) => (
                <tr key={v.versionId}>
                  <td>
                    <code>{v.versionId}</code>
                  </td>
                  <td>{v.module ?? v.createdBy}</td>
                  <td>
                    <time dateTime={v.createdAt}>{formatTime(v.createdAt)}</time>
                  </td>
                  <td>{v.warnings.length ? v.warnings.map((w) => `${w.path}: ${w.message}`).join('; ') : '—'}</td>
                  <td className="row">
                    <button type="button" onClick={() => act.mutate({ kind: 'publish', versionID: v.versionId })} disabled={act.isPending}>
                      {$t('flow.publish', 'Publish')}
                    </button>
                    <Link to={href(['flows', f.id, 'canvas'], { version: v.versionId })}>{$t('flow.edit', 'Edit on canvas')}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      {versions.data && versions.data.length > 0 ? <Variants versions={versions.data} pending={act.isPending} onPublish={(variants) => act.mutate({ kind: 'variants', variants })} /> : null}
      {versions.data && versions.data.length > 1 ? <Diff flowId={flowId} versions={versions.data} /> : null}
      <Documents flowId={flowId} latest={versions.data?.[0]?.versionId} onSaved={refresh} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">{$t('flow.history', 'Publish history')}</h2>
        <ErrorNotice error={publishes.error} />
        <ol className="history">
          {(publishes.data ?? []).map((p) => (
            <li key={p.seq}>
              <time dateTime={p.publishedAt}>{formatTime(p.publishedAt)}</time> · {p.reason} · {p.target ? publishedLabel(p.target) : '—'} · {p.publishedBy}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

/** A publish refusal's details pinned to nodes of the latest version. */
function PublishProblems({ flowId, error }: { flowId: string; error: unknown }) {
  const details = (error as { details?: Array<{ field: string; problems: string[] }> }).details;
  const versionId = details?.[0]?.field.split(/[#.]/)[0];
  const doc = useQuery({ queryKey: ['version', flowId, versionId], queryFn: () => fetchVersion(flowId, versionId!), enabled: Boolean(versionId && details?.length) });
  if (!doc.data || !details) return null;
  const pinned = pinProblems(doc.data, details);
  return (
    <ul className="problems">
      {[...pinned.nodes].map(([id, ps]) => (
        <li key={id}>
          {$t('flow.nodeProblem', 'Node {id}: {problems}', { id, problems: ps.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message)).join('; ') })}
        </li>
      ))}
    </ul>
  );
}

function Variants({ versions, pending, onPublish }: { versions: VersionRow[]; pending: boolean; onPublish: (v: Array<{ label: string; versionID: string; weight: number }>) => void }) {
  const [rows, setRows] = useState([
    { label: 'stable', versionID: versions[versions.length > 1 ? 1 : 0].versionId, weight: 90 },
    { label: 'canary', versionID: versions[0].versionId, weight: 10 },
  ]);
  const [problem, setProblem] = useState<string>();
  const set = (i: number, patch: Partial<(typeof rows)[number]>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <section aria-labelledby="variants-title">
      <h2 id="variants-title">{$t('flow.variants', 'Publish a weighted split')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (new Set(rows.map((r) => r.label)).size !== rows.length) return setProblem($t('flow.labelsUnique', 'Variant labels must be unique.'));
          if (!rows.some((r) => r.weight > 0)) return setProblem($t('flow.weightNeeded', 'At least one variant needs a weight above zero.'));
          setProblem(undefined);
          onPublish(rows);
        }}
      >
        {rows.map((r, i) => (
          <fieldset key={i} className="row">
            <legend>{$t('flow.variantN', 'Variant {n}', { n: i + 1 })}</legend>
            <label>
              {$t('flow.label', 'Label')} <input value={r.label} required maxLength={64} onChange={(e) => set(i, { label: e.target.value })} />
            </label>
            <label>
              {$t('flow.version', 'Version')}{' '}
              <select value={r.versionID} onChange={(e) => set(i, { versionID: e.target.value })}>
                {versions.map((v) => (
                  <option key={v.versionId}>{v.versionId}</option>
                ))}
              </select>
            </label>
            <label>
              {$t('flow.weight', 'Weight')} <input type="number" min={0} step={1} value={r.weight} onChange={(e) => set(i, { weight: Number(e.target.value) })} />
            </label>
            {rows.length > 1 ? (
              <button type="button" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                {$t('remove', 'Remove')}
              </button>
            ) : null}
          </fieldset>
        ))}
        {problem ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        <div className="row">
          <button type="button" onClick={() => setRows([...rows, { label: `v${rows.length + 1}`, versionID: versions[0].versionId, weight: 0 }])}>
            {$t('flow.addVariant', 'Add a variant')}
          </button>
          <button type="submit" className="primary" disabled={pending}>
            {$t('flow.publishSplit', 'Publish the split')}
          </button>
        </div>
      </form>
    </section>
  );
}

function Diff({ flowId, versions }: { flowId: string; versions: VersionRow[] }) {
  const [a, setA] = useState(versions[1].versionId);
  const [b, setB] = useState(versions[0].versionId);
  const left = useQuery({ queryKey: ['version', flowId, a], queryFn: () => fetchVersion(flowId, a) });
  const right = useQuery({ queryKey: ['version', flowId, b], queryFn: () => fetchVersion(flowId, b) });
  const d = left.data && right.data ? diffVersions(left.data, right.data) : undefined;
  const ids = (xs: Array<{ id: string }>) => xs.map((x) => x.id).join(', ') || '—';
  return (
    <section aria-labelledby="diff-title">
      <h2 id="diff-title">{$t('flow.diff', 'Compare versions')}</h2>
      <div className="row">
        <label>
          {$t('flow.from', 'From')}{' '}
          <select value={a} onChange={(e) => setA(e.target.value)}>
            {versions.map((v) => (
              <option key={v.versionId}>{v.versionId}</option>
            ))}
          </select>
        </label>
        <label>
          {$t('flow.to', 'To')}{' '}
          <select value={b} onChange={(e) => setB(e.target.value)}>
            {versions.map((v) => (
              <option key={v.versionId}>{v.versionId}</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNotice error={left.error ?? right.error} />
      {d ? (
        d.same ? (
          <p>{$t('flow.same', 'The two versions are the same.')}</p>
        ) : (
          <dl className="diff">
            <dt>{$t('diff.nodesAdded', 'Nodes added')}</dt>
            <dd>{ids(d.nodes.added)}</dd>
            <dt>{$t('diff.nodesRemoved', 'Nodes removed')}</dt>
            <dd>{ids(d.nodes.removed)}</dd>
            <dt>{$t('diff.nodesChanged', 'Nodes changed')}</dt>
            <dd>{d.nodes.changed.map((c) => `${c.id} (${c.fields.join(', ')})`).join('; ') || '—'}</dd>
            <dt>{$t('diff.edgesAdded', 'Edges added')}</dt>
            <dd>{ids(d.edges.added)}</dd>
            <dt>{$t('diff.edgesRemoved', 'Edges removed')}</dt>
            <dd>{ids(d.edges.removed)}</dd>
            <dt>{$t('diff.edgesChanged', 'Edges changed')}</dt>
            <dd>{d.edges.changed.map((c) => `${c.id} (${c.fields.join(', ')})`).join('; ') || '—'}</dd>
            <dt>{$t('diff.moved', 'Nodes moved')}</dt>
            <dd>{d.moved.join(', ') || '—'}</dd>
            <dt>{$t('diff.other', 'Other changes')}</dt>
            <dd>{d.other.join(', ') || '—'}</dd>
          </dl>
        )
      ) : (
        <Loading />
      )}
    </section>
  );
}

/** The latest version as JSON or YAML (view, download) and importing a document as a new version. */
function Documents({ flowId, latest, onSaved }: { flowId: string; latest?: string; onSaved: () => unknown }) {
  const [syntax, setSyntax] = useState<'json' | 'yaml'>('yaml');
  const [text, setText] = useState('');
  const [parseError, setParseError] = useState<string>();
  const doc = useQuery({ queryKey: ['version', flowId, latest], queryFn: () => fetchVersion(flowId, latest!), enabled: Boolean(latest) });
  const shown = doc.data ? (syntax === 'json' ? JSON.stringify(doc.data, null, 2) : toYaml(doc.data)) : '';
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => unwrap(await api.flows.POST('/api/v1/flows/{id}/versions', { params: { path: { id: flowId }, query: { format: 'ir' } }, body })),
    onSuccess: () => {
      setText('');
      void onSaved();
    },
  });
  const download = () => {
    const blob = new Blob([shown], { type: syntax === 'json' ? 'application/json' : 'application/yaml' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${flowId}-${latest}.${syntax === 'json' ? 'json' : 'yaml'}`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const details = (save.error as { details?: Array<{ field: string; problems: string[] }> } | null)?.details;
  return (
    <section aria-labelledby="docs-title">
      <h2 id="docs-title">{$t('flow.document', 'Document')}</h2>
      {latest ? (
        <>
          <div className="row" role="group" aria-label={$t('flow.syntax', 'Syntax')}>
            <button type="button" aria-pressed={syntax === 'yaml'} onClick={() => setSyntax('yaml')}>
              YAML
            </button>
            <button type="button" aria-pressed={syntax === 'json'} onClick={() => setSyntax('json')}>
              JSON
            </button>
            <button type="button" onClick={download} disabled={!shown}>
              {$t('flow.export', 'Export {version}', { version: latest })}
            </button>
          </div>
          <pre className="code" tabIndex={0} aria-label={$t('flow.documentOf', 'Document of {version}', { version: latest })}>
            {shown}
          </pre>
        </>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          try {
            const parsed: unknown = text.trim().startsWith('{') ? JSON.parse(text) : parseYaml(text);
            if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error($t('flow.notADocument', 'A flow document is an object with nodes and edges.'));
            setParseError(undefined);
            save.mutate(parsed as Record<string, unknown>);
          } catch (err) {
            setParseError((err as Error).message);
          }
        }}
      >
        <label htmlFor="import">{$t('flow.import', 'Import a document (JSON or YAML) as a new version')}</label>
        <textarea id="import" rows={8} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} aria-invalid={parseError || details ? true : undefined} aria-describedby="import-errors" />
        <div id="import-errors">
          {parseError ? <p className="field-error">{parseError}</p> : null}
          {details?.length ? (
            <ul className="problems">
              {details.map((d, i) => (
                <li key={i}>
                  <code>{d.field}</code>: {d.problems.join('; ')}
                </li>
              ))}
            </ul>
          ) : save.error ? (
            <ErrorNotice error={save.error} />
          ) : null}
        </div>
        <button type="submit" disabled={!text.trim() || save.isPending}>
          {$t('flow.saveVersion', 'Save as a new version')}
        </button>
      </form>
    </section>
  );
}
