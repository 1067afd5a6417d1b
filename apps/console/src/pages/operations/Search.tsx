import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, fieldError, Loading, PageTitle } from '../../ui';

type Index = { name: string; dim: number; distance: string; points: number };
type Status = { backend: string; prefix: string; embeddingProvider: string; embeddingModel: string; embeddingDimension: number; defaultDistance: string; defaultLimit: number; maxLimit: number };
type Hit = { id: string | number; score: number; payload?: Record<string, unknown> };

/** Search indexes with the embedder's status, and a query playground (text, limit, optional filter). */
export function SearchPage() {
  const indexes = useQuery({ queryKey: ['ops-search-indexes'], queryFn: async () => unwrap(await api.search.GET('/api/v1/search/indexes')) as { indexes: Index[] } });
  const status = useQuery({ queryKey: ['ops-search-status'], queryFn: async () => unwrap(await api.search.GET('/api/v1/search/status')) as Status });
  return (
    <>
      <PageTitle>{$t('ops.search.title', 'Search indexes')}</PageTitle>
      <ErrorNotice error={status.error} onRetry={() => void status.refetch()} />
      {status.data ? (
        <p className="muted">
          {$t('ops.search.status', 'Backend {backend}, embedder {provider}/{model} ({dim} dimensions), prefix {prefix}', {
            backend: status.data.backend,
            provider: status.data.embeddingProvider,
            model: status.data.embeddingModel,
            dim: status.data.embeddingDimension,
            prefix: status.data.prefix,
          })}
        </p>
      ) : null}
      {indexes.isPending ? <Loading /> : null}
      <ErrorNotice error={indexes.error} onRetry={() => void indexes.refetch()} />
      {indexes.data && !indexes.data.indexes.length ? <p className="muted">{$t('ops.search.none', 'No indexes.')}</p> : null}
      {indexes.data?.indexes.length ? (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">{$t('ops.search.index', 'Index')}</th>
                <th scope="col">{$t('ops.search.points', 'Points')}</th>
                <th scope="col">{$t('ops.search.dim', 'Dimensions')}</th>
                <th scope="col">{$t('ops.search.distance', 'Distance')}</th>
              </tr>
            </thead>
            <tbody>
              {indexes.data.indexes.map((i) => (
                <tr key={i.name}>
                  <th scope="row">
                    <code>{i.name}</code>
                  </th>
                  <td>{i.points}</td>
                  <td>{i.dim}</td>
                  <td>{i.distance}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Playground indexes={indexes.data.indexes} maxLimit={status.data?.maxLimit ?? 100} />
        </>
      ) : null}
    </>
  );
}

function Playground({ indexes, maxLimit }: { indexes: Index[]; maxLimit: number }) {
  const [index, setIndex] = useState(indexes[0]?.name ?? '');
  const [text, setText] = useState('');
  const [limit, setLimit] = useState('5');
  const [filter, setFilter] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const query = useMutation({
    mutationFn: async (body: { text: string; limit: number; filter?: Record<string, unknown> }) => unwrap(await api.search.POST('/api/v1/search/indexes/{name}/query', { params: { path: { name: index } }, body })) as { hits: Hit[]; exhausted: boolean },
  });
  const problem = (f: string) => problems[f] ?? fieldError(query.error, f);
  const submit = () => {
    const p: Record<string, string> = {};
    const n = Number(limit);
    if (!text.trim()) p['text'] = $t('ops.search.needText', 'Type what to search for.');
    if (!Number.isInteger(n) || n < 1 || n > maxLimit) p['limit'] = $t('ops.search.badLimit', 'A whole number from 1 to {max}.', { max: maxLimit });
    let parsed: Record<string, unknown> | undefined;
    if (filter.trim()) {
      try {
        const v: unknown = JSON.parse(filter);
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error($t('ops.search.filterObject', 'a JSON object'));
        parsed = v as Record<string, unknown>;
      } catch (e) {
        p['filter'] = $t('ops.search.badFilter', 'The filter is not valid: {reason}', { reason: (e as Error).message });
      }
    }
    setProblems(p);
    if (!Object.keys(p).length) query.mutate({ text, limit: n, ...(parsed ? { filter: parsed } : {}) });
  };
  const described = (f: string) => (problem(f) ? { 'aria-invalid': true as const, 'aria-describedby': `q-${f}-error` } : {});
  const err = (f: string) =>
    problem(f) ? (
      <p id={`q-${f}-error`} className="field-error">
        {problem(f)}
      </p>
    ) : null;
  return (
    <section className="card" aria-labelledby="playground-title">
      <h2 id="playground-title">{$t('ops.search.playground', 'Query playground')}</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="row">
          <label htmlFor="q-index">{$t('ops.search.index', 'Index')}</label>
          <select id="q-index" value={index} onChange={(e) => setIndex(e.target.value)}>
            {indexes.map((i) => (
              <option key={i.name}>{i.name}</option>
            ))}
          </select>
          <label htmlFor="q-limit">{$t('ops.search.limit', 'Limit')}</label>
          <input id="q-limit" inputMode="numeric" size={4} value={limit} onChange={(e) => setLimit(e.target.value)} {...described('limit')} />
        </div>
        {err('limit')}
        <label htmlFor="q-text">{$t('ops.search.text', 'Text')}</label>
        <input id="q-text" className="wide" value={text} onChange={(e) => setText(e.target.value)} {...described('text')} />
        {err('text')}
        <label htmlFor="q-filter">{$t('ops.search.filter', 'Filter (optional, JSON: must, should, must_not)')}</label>
        <textarea id="q-filter" rows={3} value={filter} onChange={(e) => setFilter(e.target.value)} spellCheck={false} {...described('filter')} />
        {err('filter')}
        <button type="submit" className="primary" disabled={query.isPending}>
          {$t('ops.search.run', 'Search')}
        </button>
      </form>
      <ErrorNotice error={query.error && !problem('filter') && !problem('text') && !problem('limit') ? query.error : undefined} />
      {query.data ? (
        query.data.hits.length ? (
          <table>
            <caption>{$t('ops.search.hits', '{count} hits', { count: query.data.hits.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{$t('ops.search.id', 'Id')}</th>
                <th scope="col">{$t('ops.search.score', 'Score')}</th>
                <th scope="col">{$t('ops.search.payload', 'Payload')}</th>
              </tr>
            </thead>
            <tbody>
              {query.data.hits.map((h) => (
                <tr key={String(h.id)}>
                  <th scope="row">
                    <code>{String(h.id)}</code>
                  </th>
                  <td>{h.score.toFixed(3)}</td>
                  <td>
                    <pre className="code small">{JSON.stringify(h.payload ?? {}, null, 1)}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p role="status" className="muted">
            {$t('ops.search.noHits', 'Nothing matched.')}
          </p>
        )
      ) : null}
    </section>
  );
}
