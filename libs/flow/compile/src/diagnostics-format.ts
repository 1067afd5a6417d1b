import { DIAGNOSTIC_CODES, type DiagnosticCodeInfo } from './codes';
import type { Diagnostic } from './model';
import { pointerTokens } from './source';

/**
 * Diagnostic output (issue 5 item 5) for `flowctl validate`: text, JSON and SARIF 2.1.0.
 */

export interface FormatOptions {
  /** The file the diagnostics are about, as given on the command line; default `input`. */
  file?: string;
  /** flowctl's version, written to SARIF `tool.driver.version` when given. */
  toolVersion?: string;
}

export type DiagnosticsFormat = 'text' | 'json' | 'sarif';

export interface DiagnosticsSummary {
  errors: number;
  warnings: number;
}

export function summarize(diagnostics: readonly Diagnostic[]): DiagnosticsSummary {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { errors, warnings: diagnostics.length - errors };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One line per diagnostic, `file:line:col: severity CODE message (path)` (`file: ...` when the
 * position is unknown, no `(path)` for the document root), then `N errors, M warnings`.
 */
export function formatText(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): string {
  const file = options.file ?? 'input';
  const lines = diagnostics.map((d) => {
    const where = d.position ? `${file}:${d.position.line}:${d.position.column}:` : `${file}:`;
    return `${where} ${d.severity} ${d.code} ${d.message}${d.path ? ` (${d.path})` : ''}`;
  });
  const s = summarize(diagnostics);
  lines.push(`${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}`);
  return lines.join('\n') + '\n';
}

/** `{file, summary: {errors, warnings}, diagnostics: [...]}`, 2-space indented. */
export function formatJson(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): string {
  return JSON.stringify({ file: options.file ?? 'input', summary: summarize(diagnostics), diagnostics }, null, 2) + '\n';
}

/** The OASIS SARIF 2.1.0 (errata 01) schema. */
export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** A relative path or an absolute one as a URI reference (absolute paths become file: URIs). */
export function fileUri(file: string): string {
  const p = file.replace(/\\/g, '/');
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(p)) return p;
  const encoded = p
    .split('/')
    .map((seg) => encodeURIComponent(seg))
    .join('/');
  if (/^[a-zA-Z]%3A\//.test(encoded)) return `file:///${encoded.replace('%3A', ':')}`;
  return p.startsWith('/') ? `file://${encoded}` : encoded;
}

/**
 * A SARIF 2.1.0 log with one run of `flowctl`: a rule for every code of this library (and for any
 * other code met), results with ruleId, level, message, a physical location (the file, with
 * startLine/startColumn when known) and a logical location whose fullyQualifiedName is the JSON
 * pointer, also kept in the result's `properties.jsonPointer`.
 */
export function toSarif(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): Record<string, unknown> {
  const codes: Record<string, DiagnosticCodeInfo> = { ...DIAGNOSTIC_CODES };
  for (const d of diagnostics) if (!codes[d.code]) codes[d.code] = { severity: d.severity, rule: d.code };
  const ids = Object.keys(codes);
  const rules = ids.map((id) => ({
    id,
    shortDescription: { text: codes[id].rule },
    defaultConfiguration: { level: codes[id].severity },
  }));
  const uri = fileUri(options.file ?? 'input');
  const results = diagnostics.map((d) => {
    const physicalLocation: Record<string, unknown> = { artifactLocation: { uri } };
    if (d.position) physicalLocation.region = { startLine: d.position.line, startColumn: d.position.column };
    const tokens = pointerTokens(d.path);
    const last = tokens[tokens.length - 1];
    const logical = {
      name: last ?? '',
      fullyQualifiedName: d.path || '/',
      kind: last === undefined ? 'object' : /^\d+$/.test(last) ? 'element' : 'property',
    };
    return {
      ruleId: d.code,
      ruleIndex: ids.indexOf(d.code),
      level: d.severity,
      message: { text: d.message },
      locations: [{ physicalLocation, logicalLocations: [logical] }],
      properties: { jsonPointer: d.path },
    };
  });
  const driver: Record<string, unknown> = { name: 'flowctl', rules };
  if (options.toolVersion) driver.version = options.toolVersion;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [{ tool: { driver }, artifacts: [{ location: { uri } }], results }],
  };
}

export function formatSarif(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): string {
  return JSON.stringify(toSarif(diagnostics, options), null, 2) + '\n';
}

/** Any of the three formats. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], format: DiagnosticsFormat, options: FormatOptions = {}): string {
  if (format === 'json') return formatJson(diagnostics, options);
  if (format === 'sarif') return formatSarif(diagnostics, options);
  return formatText(diagnostics, options);
}
