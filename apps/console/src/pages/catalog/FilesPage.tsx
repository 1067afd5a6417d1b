import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, PageTitle } from '../../ui';
import { CatalogTabs, useLocales } from './shared';

type Format = 'json' | 'xliff' | 'po';
const MEDIA: Record<Format, string> = { json: 'application/json', xliff: 'application/xliff+xml', po: 'text/x-gettext-translation' };
type Conflict = { key: string; reasons: string[]; current: string; imported: string };
type Broken = { key: string; reason: string; source: string; imported: string; written: boolean };
type Report = { dryRun: boolean; format: Format; ns: string; locale: string; created: number; updated: number; unchanged: number; untranslated: number; conflicts: Conflict[]; overridden: Conflict[]; broken: Broken[]; forced: number };

/** The format of a file by its name, when the admin did not pick one. */
function formatOf(name: string): Format | undefined {
  if (/\.json$/i.test(name)) return 'json';
  if (/\.(xlf|xliff)$/i.test(name)) return 'xliff';
  if (/\.pot?$/i.test(name)) return 'po';
  return undefined;
}

/** Translators' files: export one namespace in one locale; import with a dry run first, then apply. */
export default function FilesPage() {
  return (
    <>
      <PageTitle>{$t('catalog.files.title', 'Import and export')}</PageTitle>
      <CatalogTabs current="files" />
      <Export />
      <Import />
    </>
  );
}

function Export() {
  const locales = useLocales();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card"
      aria-labelledby="export-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const ns = String(f.get('ns') ?? '').trim();
        const locale = String(f.get('locale') ?? '');
        const format = String(f.get('format') ?? 'json') as Format;
        setBusy(true);
        setError(undefined);
        try {
          const res = await api.i18n.GET('/api/v1/admin/i18n/export', { params: { query: { ns, locale, format } }, parseAs: 'blob' });
          const blob = unwrap(res) as unknown as Blob;
          const name = /filename="?([^";]+)"?/.exec(res.response.headers.get('content-disposition') ?? '')?.[1] ?? `${ns || 'default'}.${locale}.${format === 'xliff' ? 'xlf' : format}`;
          const url = URL.createObjectURL(blob);
          const a = document.createElement('a');
          a.href = url;
          a.download = name;
          document.body.append(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 10_000);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="export-title">{$t('catalog.files.export', 'Export')}</h2>
      <div className="row">
        <label htmlFor="ex-ns">{$t('catalog.ns', 'Namespace')}</label>
        <input id="ex-ns" name="ns" size={12} />
        <label htmlFor="ex-locale">{$t('catalog.locale', 'Locale')}</label>
        <select id="ex-locale" name="locale" required>
          {(locales.data ?? []).map((l) => (
            <option key={l.code} value={l.code}>
              {l.code}
            </option>
          ))}
        </select>
        <label htmlFor="ex-format">{$t('catalog.files.format', 'Format')}</label>
        <select id="ex-format" name="format" defaultValue="json">
          <option value="json">JSON</option>
          <option value="xliff">XLIFF 2.0</option>
          <option value="po">PO (gettext)</option>
        </select>
        <button type="submit" className="primary" disabled={busy}>
          {$t('catalog.files.download', 'Download')}
        </button>
      </div>
      <ErrorNotice error={error} />
    </form>
  );
}

function Import() {
  const client = useQueryClient();
  const locales = useLocales();
  const [file, setFile] = useState<File>();
  const [ns, setNs] = useState('');
  const [locale, setLocale] = useState('');
  const [format, setFormat] = useState<Format | ''>('');
  const [force, setForce] = useState(false);
  const [report, setReport] = useState<Report>();
  const [fileProblem, setFileProblem] = useState<string>();
  const run = useMutation({
    mutationFn: async (apply: boolean) => {
      const fmt = format || formatOf(file!.name) || 'json';
      const text = await file!.text();
      return unwrap(
        await api.i18n.POST('/api/v1/admin/i18n/import', {
          params: { query: { ns, ...(locale ? { locale } : {}), format: fmt, ...(apply ? { apply: 'true' as const } : {}), ...(apply && force ? { force: 'true' as const } : {}) } },
          body: text as never,
          headers: { 'content-type': MEDIA[fmt] },
          bodySerializer: (b: unknown) => b as string,
        }),
      ) as unknown as Report;
    },
    onSuccess: (r) => {
      setReport(r);
      if (!r.dryRun) void client.invalidateQueries({ queryKey: ['i18n'] });
    },
  });
  const check = () => {
    if (!file) {
      setFileProblem($t('catalog.files.pick', 'Choose a file first.'));
      return false;
    }
    if (file.size > 5 * 1024 * 1024) {
      setFileProblem($t('catalog.files.tooBig', 'The file is over 5 MB.'));
      return false;
    }
    setFileProblem(undefined);
    return true;
  };
  return (
    <section className="card" aria-labelledby="import-title">
      <h2 id="import-title">{$t('catalog.files.import', 'Import')}</h2>
      <p className="muted small">{$t('catalog.files.importHelp', 'A dry run reports what would change; Apply writes it as human text. Conflicts and texts that break their source are written only when forced.')}</p>
      <label htmlFor="im-file">{$t('catalog.files.file', 'Translation file (JSON, XLIFF or PO)')}</label>
      <input
        id="im-file"
        type="file"
        accept=".json,.xlf,.xliff,.po,.pot"
        aria-invalid={fileProblem ? true : undefined}
        aria-describedby={fileProblem ? 'im-file-error' : undefined}
        onChange={(e) => {
          setFile(e.target.files?.[0]);
          setReport(undefined);
        }}
      />
      {fileProblem ? (
        <p id="im-file-error" className="field-error">
          {fileProblem}
        </p>
      ) : null}
      <div className="row">
        <label htmlFor="im-ns">{$t('catalog.ns', 'Namespace')}</label>
        <input id="im-ns" value={ns} size={12} onChange={(e) => setNs(e.target.value)} />
        <label htmlFor="im-locale">{$t('catalog.files.locale', 'Locale (JSON needs one)')}</label>
        <select id="im-locale" value={locale} onChange={(e) => setLocale(e.target.value)}>
          <option value="">{$t('catalog.files.fromFile', 'as the file says')}</option>
          {(locales.data ?? []).map((l) => (
            <option key={l.code} value={l.code}>
              {l.code}
            </option>
          ))}
        </select>
        <label htmlFor="im-format">{$t('catalog.files.format', 'Format')}</label>
        <select id="im-format" value={format} onChange={(e) => setFormat(e.target.value as Format | '')}>
          <option value="">{$t('catalog.files.byName', 'by the file name')}</option>
          <option value="json">JSON</option>
          <option value="xliff">XLIFF</option>
          <option value="po">PO</option>
        </select>
      </div>
      <div className="row">
        <button type="button" onClick={() => check() && run.mutate(false)} disabled={run.isPending}>
          {$t('catalog.files.dryRun', 'Dry run')}
        </button>
        {report?.dryRun ? (
          <>
            {report.conflicts.length || report.overridden.length || report.broken.length ? (
              <>
                <input id="im-force" type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
                <label htmlFor="im-force">{$t('catalog.files.force', 'Write conflicting and broken values too')}</label>
              </>
            ) : null}
            <button type="button" className="primary" onClick={() => check() && run.mutate(true)} disabled={run.isPending}>
              {$t('catalog.files.apply', 'Apply')}
            </button>
          </>
        ) : null}
      </div>
      <ErrorNotice error={run.error} />
      {report ? (
        <div role="status" className="import-report">
          <p>
            {report.dryRun ? $t('catalog.files.wouldBe', 'Dry run, nothing written:') : $t('catalog.files.written', 'Written:')}{' '}
            {$t('catalog.files.counts', '{created} created, {updated} updated, {unchanged} unchanged, {untranslated} untranslated, {conflicts} conflicts', {
              created: report.created,
              updated: report.updated,
              unchanged: report.unchanged,
              untranslated: report.untranslated,
              conflicts: report.conflicts.length,
            })}
          </p>
          {report.conflicts.length ? (
            <table>
              <caption>{$t('catalog.files.conflicts', 'Conflicts')}</caption>
              <thead>
                <tr>
                  <th scope="col">{$t('catalog.key', 'Key')}</th>
                  <th scope="col">{$t('catalog.files.reasons', 'Why')}</th>
                  <th scope="col">{$t('catalog.files.current', 'In the platform')}</th>
                  <th scope="col">{$t('catalog.files.imported', 'In the file')}</th>
                </tr>
              </thead>
              <tbody>
                {report.conflicts.map((c) => (
                  <tr key={c.key}>
                    <td>
                      <code>{c.key}</code>
                    </td>
                    <td>{c.reasons.join(', ')}</td>
                    <td>{c.current}</td>
                    <td>{c.imported}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {report.broken.length ? (
            <table>
              <caption>{$t('catalog.files.broken', 'Texts that break their source (placeholders, plural forms, tags)')}</caption>
              <thead>
                <tr>
                  <th scope="col">{$t('catalog.key', 'Key')}</th>
                  <th scope="col">{$t('catalog.files.reasons', 'Why')}</th>
                  <th scope="col">{$t('catalog.files.source', 'Source text')}</th>
                  <th scope="col">{$t('catalog.files.imported', 'In the file')}</th>
                </tr>
              </thead>
              <tbody>
                {report.broken.map((b) => (
                  <tr key={b.key}>
                    <td>
                      <code>{b.key}</code>
                    </td>
                    <td>
                      {b.reason}
                      {b.written ? ` (${$t('catalog.files.writtenAnyway', 'written anyway')})` : ''}
                    </td>
                    <td>{b.source}</td>
                    <td>{b.imported}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
