import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { type CellFilter, cellState, type CellState, fillUntilDone, type FillProgress, type FillReport, filterRows, rowSaveBody, sha256Hex, type TranslationRow } from '../../lib/catalog-grid';
import { href, useRoute } from '../../router';
import { ErrorNotice, fieldError, Loading, PageTitle } from '../../ui';
import { CatalogTabs, sourceLocaleOf, useLocales } from './shared';

const PAGE = 50;

/** The catalog grid: keys × active locales, filters, inline edit, add a key, translate what is missing. */
export default function KeysPage() {
  const { route, navigate } = useRoute();
  const q = route.query;
  const filters = { ns: q.get('ns') ?? '', prefix: q.get('prefix') ?? '', q: q.get('q') ?? '', state: (q.get('state') ?? 'all') as CellFilter, locale: q.get('locale') ?? '' };
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const locales = useLocales();
  const active = useMemo(() => (locales.data ?? []).filter((l) => l.active).map((l) => l.code), [locales.data]);
  const source = sourceLocaleOf(locales.data);
  // Missing in one locale is the API's own filter; the other states are read from the rows' provenance and pending.
  const apiMissing = filters.state === 'missing' && filters.locale ? filters.locale : undefined;
  const rows = useQuery({
    queryKey: ['i18n', 'translations', filters.ns, filters.prefix, filters.q, apiMissing, cursor],
    queryFn: async () =>
      unwrap(
        await api.i18n.GET('/api/v1/admin/i18n/translations', {
          params: { query: { limit: PAGE, ...(filters.ns ? { ns: filters.ns === '-' ? '' : filters.ns } : {}), ...(filters.prefix ? { prefix: filters.prefix } : {}), ...(filters.q ? { q: filters.q } : {}), ...(apiMissing ? { missing: apiMissing } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ) as { items: TranslationRow[]; nextCursor: string | null },
  });
  const [hashes, setHashes] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    const texts = (rows.data?.items ?? []).flatMap((r) => [r.translations[source] ?? '', r.context ?? '']);
    void sha256Hex(texts).then(setHashes);
  }, [rows.data, source]);
  const hash = (t: string) => hashes.get(t);
  // The source language first, the others as the registry lists them.
  const shownLocales = filters.locale ? [filters.locale] : [...active.filter((l) => l === source), ...active.filter((l) => l !== source)];
  const visible = rows.data ? filterRows(rows.data.items, filters.state, shownLocales, source, hash) : [];
  const setFilter = (next: Partial<typeof filters>) => {
    setCursors([undefined]);
    const all = { ...filters, ...next };
    navigate(href(['languages'], { ns: all.ns, prefix: all.prefix, q: all.q, state: all.state === 'all' ? '' : all.state, locale: all.locale }), true);
  };
  return (
    <>
      <PageTitle>{$t('catalog.title', 'Languages')}</PageTitle>
      <CatalogTabs current="keys" />
      <div className="row">
        <AddKey defaultNs={filters.ns === '-' ? '' : filters.ns} />
      </div>
      <TranslateMissing ns={filters.ns === '-' ? '' : filters.ns || undefined} prefix={filters.prefix || undefined} />
      <form
        className="row"
        role="search"
        aria-label={$t('catalog.filters', 'Filter keys')}
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          setFilter({ ns: String(f.get('ns') ?? '').trim(), prefix: String(f.get('prefix') ?? '').trim(), q: String(f.get('q') ?? '').trim(), state: String(f.get('state') ?? 'all') as CellFilter, locale: String(f.get('locale') ?? '') });
        }}
      >
        <label htmlFor="f-ns">{$t('catalog.ns', 'Namespace')}</label>
        <input id="f-ns" name="ns" defaultValue={filters.ns} size={10} title={$t('catalog.nsHelp', 'Empty: every namespace; a dash: the default namespace')} />
        <label htmlFor="f-prefix">{$t('catalog.prefix', 'Key prefix')}</label>
        <input id="f-prefix" name="prefix" defaultValue={filters.prefix} size={12} />
        <label htmlFor="f-q">{$t('catalog.text', 'Text')}</label>
        <input id="f-q" name="q" type="search" defaultValue={filters.q} size={14} />
        <label htmlFor="f-state">{$t('catalog.state', 'State')}</label>
        <select id="f-state" name="state" defaultValue={filters.state}>
          <option value="all">{$t('catalog.state.all', 'all')}</option>
          <option value="missing">{$t('catalog.state.missing', 'missing')}</option>
          <option value="stale">{$t('catalog.state.stale', 'stale')}</option>
          <option value="machine">{$t('catalog.state.machine', 'machine')}</option>
          <option value="human">{$t('catalog.state.human', 'human')}</option>
          <option value="pending">{$t('catalog.state.pending', 'pending')}</option>
        </select>
        <label htmlFor="f-locale">{$t('catalog.locale', 'Locale')}</label>
        <select id="f-locale" name="locale" defaultValue={filters.locale}>
          <option value="">{$t('catalog.anyLocale', 'any active locale')}</option>
          {active.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit">{$t('catalog.apply', 'Apply')}</button>
      </form>
      {rows.isPending || locales.isPending ? <Loading /> : null}
      <ErrorNotice error={rows.error ?? locales.error} onRetry={() => void rows.refetch()} />
      {rows.data && locales.data ? (
        <>
          <table className="grid">
            <caption className="muted">
              {$t('catalog.count', '{count, plural, =0 {No keys on this page} one {# key on this page} other {# keys on this page}}', { count: visible.length })}
              {filters.state !== 'all' && !apiMissing ? ` ${$t('catalog.filteredHere', '(state filtered on this page of results)')}` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">{$t('catalog.key', 'Key')}</th>
                {shownLocales.map((l) => (
                  <th key={l} scope="col" lang={l}>
                    {l}
                    {l === source ? ` (${$t('catalog.source', 'source')})` : ''}
                  </th>
                ))}
                <th scope="col">{$t('catalog.actions', 'Actions')}</th>
              </tr>
            </thead>
            <tbody>
              {visible.map((r) => (
                <KeyRow key={`${r.ns}\u0000${r.key}`} row={r} locales={shownLocales} source={source} hash={hash} />
              ))}
            </tbody>
          </table>
          <nav className="row" aria-label={$t('catalog.pages', 'Pages of keys')}>
            {cursors.length > 1 ? (
              <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
                {$t('catalog.previous', 'Previous')}
              </button>
            ) : null}
            {rows.data.nextCursor ? (
              <button type="button" onClick={() => setCursors((c) => [...c, rows.data.nextCursor ?? undefined])}>
                {$t('catalog.next', 'Next')}
              </button>
            ) : null}
          </nav>
        </>
      ) : null}
    </>
  );
}

function stateLabel(s: CellState): string {
  const parts: string[] = [];
  if (s.missing) parts.push($t('catalog.cell.missing', 'missing'));
  else if (s.source === 'machine') parts.push($t('catalog.cell.machine', 'machine · {by}', { by: s.by ?? '' }));
  else if (s.source === 'human') parts.push($t('catalog.cell.human', 'human · {by}', { by: s.by ?? '' }));
  else if (s.source === 'unknown') parts.push($t('catalog.cell.unknown', 'origin unknown'));
  else parts.push(s.source ?? '');
  if (s.stale) parts.push($t('catalog.cell.stale', 'stale'));
  if (s.pending) parts.push($t('catalog.cell.pending', 'pending review'));
  return parts.join(' · ');
}

function KeyRow({ row, locales, source, hash }: { row: TranslationRow; locales: string[]; source: string; hash: (t: string) => string | undefined }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [note, setNote] = useState('');
  const [nothing, setNothing] = useState(false);
  const id = `k-${row.ns}-${row.key}`.replace(/[^\w-]/g, '_');
  const first = useRef<HTMLTextAreaElement>(null);
  const save = useMutation({
    mutationFn: async (body: NonNullable<ReturnType<typeof rowSaveBody>>) => unwrap(await api.i18n.POST('/api/v1/admin/i18n/translations', { body })),
    onSuccess: () => {
      setEditing(false);
      void client.invalidateQueries({ queryKey: ['i18n'] });
    },
  });
  const start = () => {
    setTexts(Object.fromEntries(locales.map((l) => [l, row.translations[l] ?? ''])));
    setNote(row.context ?? '');
    setNothing(false);
    setEditing(true);
    setTimeout(() => first.current?.focus(), 0);
  };
  const keyCell = (
    <th scope="row" id={id}>
      <code>{row.key}</code>
      {row.ns ? <div className="muted small">{$t('catalog.inNs', 'namespace {ns}', { ns: row.ns })}</div> : null}
      {row.modules.length ? <div className="muted small">{$t('catalog.modules', 'modules: {list}', { list: row.modules.join(', ') })}</div> : null}
      {!editing && row.context ? <div className="small note">{$t('catalog.note', 'Note: {note}', { note: row.context })}</div> : null}
    </th>
  );
  if (!editing) {
    return (
      <tr>
        {keyCell}
        {locales.map((l) => {
          const s = cellState(row, l, source, hash);
          return (
            <td key={l} lang={l} className={s.missing ? 'cell-missing' : undefined}>
              {s.missing ? null : <div className="cell-text">{row.translations[l]}</div>}
              <div className={`muted small prov prov-${s.missing ? 'missing' : s.source}`} data-locale={l}>
                {stateLabel(s)}
              </div>
            </td>
          );
        })}
        <td>
          <button type="button" onClick={start} aria-describedby={id}>
            {$t('catalog.edit', 'Edit')}
          </button>
        </td>
      </tr>
    );
  }
  return (
    <tr className="editing">
      {keyCell}
      {locales.map((l, i) => (
        <td key={l}>
          <textarea ref={i === 0 ? first : undefined} lang={l} rows={2} aria-label={$t('catalog.textIn', 'Text of {key} in {locale}', { key: row.key, locale: l })} value={texts[l] ?? ''} onChange={(e) => setTexts({ ...texts, [l]: e.target.value })} />
        </td>
      ))}
      <td>
        <label htmlFor={`${id}-note`}>{$t('catalog.noteLabel', 'Translator note')}</label>
        <textarea id={`${id}-note`} rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
        {fieldError(save.error, 'context') ? <p className="field-error">{fieldError(save.error, 'context')}</p> : null}
        <ErrorNotice error={fieldError(save.error, 'context') ? undefined : save.error} />
        {nothing ? <p role="status">{$t('catalog.nothingChanged', 'Nothing changed.')}</p> : null}
        <div className="row">
          <button
            type="button"
            className="primary"
            disabled={save.isPending}
            onClick={() => {
              const body = rowSaveBody(row, texts, note);
              if (body) save.mutate(body);
              else setNothing(true);
            }}
          >
            {$t('catalog.save', 'Save')}
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            {$t('catalog.cancel', 'Cancel')}
          </button>
        </div>
      </td>
    </tr>
  );
}

function AddKey({ defaultNs }: { defaultNs: string }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const add = useMutation({
    mutationFn: async (body: { ns: string; key: string; translations: Record<string, string>; context?: string }) => unwrap(await api.i18n.POST('/api/v1/admin/i18n/translations', { body })),
    onSuccess: () => {
      setOpen(false);
      void client.invalidateQueries({ queryKey: ['i18n'] });
    },
  });
  const locales = useLocales();
  const source = sourceLocaleOf(locales.data);
  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        {$t('catalog.addKey', 'Add a key')}
      </button>
    );
  const keyError = fieldError(add.error, 'key');
  const nsError = fieldError(add.error, 'ns');
  return (
    <form
      className="card"
      aria-labelledby="add-key-title"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const context = String(f.get('context') ?? '').trim();
        add.mutate({ ns: String(f.get('ns') ?? '').trim(), key: String(f.get('key') ?? '').trim(), translations: { [source]: String(f.get('text') ?? '') }, ...(context ? { context } : {}) });
      }}
    >
      <h2 id="add-key-title">{$t('catalog.addKey', 'Add a key')}</h2>
      <label htmlFor="add-ns">{$t('catalog.ns', 'Namespace')}</label>
      <input id="add-ns" name="ns" defaultValue={defaultNs} aria-invalid={nsError ? true : undefined} aria-describedby={nsError ? 'add-ns-error' : undefined} />
      {nsError ? <p id="add-ns-error" className="field-error">{nsError}</p> : null}
      <label htmlFor="add-key">{$t('catalog.key', 'Key')}</label>
      <input id="add-key" name="key" required maxLength={200} aria-invalid={keyError ? true : undefined} aria-describedby={keyError ? 'add-key-error' : undefined} />
      {keyError ? <p id="add-key-error" className="field-error">{keyError}</p> : null}
      <label htmlFor="add-text">{$t('catalog.sourceText', 'Text in the source language ({locale})', { locale: source })}</label>
      <textarea id="add-text" name="text" rows={2} required maxLength={10000} />
      <label htmlFor="add-context">{$t('catalog.noteLabel', 'Translator note')}</label>
      <input id="add-context" name="context" />
      {add.error && !keyError && !nsError ? <ErrorNotice error={add.error} /> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={add.isPending}>
          {$t('catalog.create', 'Create')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {$t('catalog.cancel', 'Cancel')}
        </button>
      </div>
    </form>
  );
}

/** Translate what is missing, call after call until a call processes no key, with a progress bar. */
function TranslateMissing({ ns, prefix }: { ns?: string; prefix?: string }) {
  const client = useQueryClient();
  const [progress, setProgress] = useState<FillProgress>();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const [review, setReview] = useState(false);
  const cancel = useRef(false);
  const run = async () => {
    setRunning(true);
    setError(undefined);
    setProgress(undefined);
    cancel.current = false;
    try {
      await fillUntilDone(
        async () => unwrap(await api.i18n.POST('/api/v1/admin/i18n/translations/translate-missing', { body: { review, ...(ns !== undefined ? { ns } : {}), ...(prefix ? { prefix } : {}) } })) as FillReport,
        (p) => {
          setProgress(p);
          void client.invalidateQueries({ queryKey: ['i18n'] });
        },
        { cancelled: () => cancel.current },
      );
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
      void client.invalidateQueries({ queryKey: ['i18n'] });
    }
  };
  const total = progress ? progress.keysProcessed + progress.remaining : 0;
  return (
    <section className="card" aria-labelledby="fill-title">
      <h2 id="fill-title">{$t('catalog.fill.title', 'Translate what is missing')}</h2>
      <p className="muted small">
        {ns !== undefined || prefix ? $t('catalog.fill.scope', 'Keys of the current filter (namespace and prefix), into every active locale.') : $t('catalog.fill.all', 'Every namespace, into every active locale.')}
      </p>
      <div className="row">
        <input id="fill-review" type="checkbox" checked={review} onChange={(e) => setReview(e.target.checked)} />
        <label htmlFor="fill-review">{$t('catalog.fill.review', 'Review each candidate before it goes live')}</label>
        <button type="button" className="primary" disabled={running} onClick={() => void run()}>
          {$t('catalog.fill.run', 'Translate missing')}
        </button>
        {running ? (
          <button type="button" onClick={() => (cancel.current = true)}>
            {$t('catalog.fill.stop', 'Stop after this call')}
          </button>
        ) : null}
      </div>
      {running || progress ? (
        <div>
          <label htmlFor="fill-progress">{$t('catalog.fill.progress', 'Progress')}</label>
          <progress id="fill-progress" max={Math.max(total, 1)} value={progress ? (progress.done ? Math.max(total, 1) : progress.keysProcessed) : undefined} />
          {progress ? (
            <p role="status" className="fill-report">
              {$t('catalog.fill.report', '{calls} calls: {keys} keys processed, {filled} translations written, {memory} from memory, {held} held for review, {remaining} remaining, {failed} failed', {
                calls: progress.calls,
                keys: progress.keysProcessed,
                filled: progress.localesFilled,
                memory: progress.memoryHits,
                held: progress.held,
                remaining: progress.remaining,
                failed: progress.failed.length,
              })}
              {progress.done ? ` ${$t('catalog.fill.done', 'Done.')}` : ''}
            </p>
          ) : null}
          {progress?.failed.length ? (
            <ul className="problems">
              {progress.failed.map((f) => (
                <li key={`${f.ns}-${f.key}-${f.locale}`}>
                  {f.key} ({f.locale}): {f.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <ErrorNotice error={error} />
    </section>
  );
}
