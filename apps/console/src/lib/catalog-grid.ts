/**
 * The catalog grid's logic, without React or the DOM: what state each (key, locale) cell is in,
 * which rows a filter keeps, what a whole-row save sends, and the translate-missing loop.
 */

/** One row of GET /admin/i18n/translations. */
export interface TranslationRow {
  ns: string;
  key: string;
  translations: Record<string, string>;
  provenance: Record<string, unknown>;
  pending: Record<string, unknown>;
  context?: string;
  modules: string[];
}

/** What `provenance.<locale>` holds (README "Automatic translation"). */
export interface Provenance {
  source?: string;
  by?: string;
  at?: string;
  source_hash?: string;
  context_hash?: string;
  review?: unknown;
}

export type CellFilter = 'all' | 'missing' | 'stale' | 'machine' | 'human' | 'pending';

export interface CellState {
  missing: boolean;
  pending: boolean;
  stale: boolean;
  /** `machine`, `human`, `code`, `seed`, or `unknown` for text of unknown origin; undefined when missing. */
  source?: string;
  by?: string;
}

export function provenanceOf(row: TranslationRow, locale: string): Provenance | undefined {
  const p = row.provenance[locale];
  return p && typeof p === 'object' ? (p as Provenance) : undefined;
}

/**
 * The state of one cell. Staleness follows the server's rule (a machine text whose `source_hash`
 * or `context_hash` differs from the SHA-256 of the row's source text or note); `hash` gives the
 * hex SHA-256 of a text, or undefined when it is not known (then nothing is called stale).
 */
export function cellState(row: TranslationRow, locale: string, sourceLocale: string, hash: (text: string) => string | undefined): CellState {
  const text = row.translations[locale];
  const missing = text === undefined || text === '';
  const pending = row.pending[locale] !== undefined && row.pending[locale] !== null;
  const p = provenanceOf(row, locale);
  let stale = false;
  if (!missing && p?.source === 'machine' && locale !== sourceLocale) {
    const sourceHash = hash(row.translations[sourceLocale] ?? '');
    const contextHash = hash(row.context ?? '');
    stale = Boolean((p.source_hash && sourceHash && p.source_hash !== sourceHash) || (p.context_hash && contextHash && p.context_hash !== contextHash));
  }
  return { missing, pending, stale, source: missing ? undefined : (p?.source ?? 'unknown'), by: p?.by };
}

/** Whether a cell shows what the filter asks for. */
export function cellMatches(state: CellState, filter: CellFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'missing':
      return state.missing;
    case 'pending':
      return state.pending;
    case 'stale':
      return state.stale;
    case 'machine':
      return state.source === 'machine';
    case 'human':
      return state.source === 'human';
  }
}

/** Rows with at least one cell (among `locales`) matching the filter. */
export function filterRows(rows: TranslationRow[], filter: CellFilter, locales: string[], sourceLocale: string, hash: (text: string) => string | undefined): TranslationRow[] {
  if (filter === 'all') return rows;
  return rows.filter((r) => locales.some((l) => cellMatches(cellState(r, l, sourceLocale, hash), filter)));
}

/**
 * The body of a whole-row save: only the locales whose text changed (an emptied one as '' which
 * removes it) and the note only when it changed, so the server marks human exactly what was edited.
 * Undefined when nothing changed.
 */
export function rowSaveBody(row: TranslationRow, edited: Record<string, string>, note: string): { ns: string; key: string; translations?: Record<string, string>; context?: string } | undefined {
  const translations: Record<string, string> = {};
  for (const [locale, text] of Object.entries(edited)) {
    if ((row.translations[locale] ?? '') !== text) translations[locale] = text;
  }
  const noteChanged = (row.context ?? '') !== note;
  if (Object.keys(translations).length === 0 && !noteChanged) return undefined;
  return { ns: row.ns, key: row.key, ...(Object.keys(translations).length ? { translations } : {}), ...(noteChanged ? { context: note } : {}) };
}

/** One answer of POST /admin/i18n/translations/translate-missing (the fields the console shows). */
export interface FillReport {
  keysProcessed: number;
  localesFilled: number;
  skippedProtected: number;
  held: number;
  failed: Array<{ key: string; ns?: string; locale: string; reason: string }>;
  remaining: number;
  memoryHits: number;
  missingSource: number;
}

export interface FillProgress {
  calls: number;
  keysProcessed: number;
  localesFilled: number;
  held: number;
  memoryHits: number;
  skippedProtected: number;
  remaining: number;
  failed: FillReport['failed'];
  done: boolean;
}

/**
 * Calls translate-missing until a call processes no key (README: re-run until keysProcessed is 0),
 * at most `maxCalls` times, reporting the running totals after every call. Failed cells are retried
 * by the next call, so the list kept is the last call's (what still fails), not a sum.
 */
export async function fillUntilDone(step: () => Promise<FillReport>, onProgress: (p: FillProgress) => void, opts: { maxCalls?: number; cancelled?: () => boolean } = {}): Promise<FillProgress> {
  const p: FillProgress = { calls: 0, keysProcessed: 0, localesFilled: 0, held: 0, memoryHits: 0, skippedProtected: 0, remaining: 0, failed: [], done: false };
  const max = opts.maxCalls ?? 200;
  while (p.calls < max && !opts.cancelled?.()) {
    const r = await step();
    p.calls++;
    p.keysProcessed += r.keysProcessed;
    p.localesFilled += r.localesFilled;
    p.held += r.held;
    p.memoryHits += r.memoryHits;
    p.skippedProtected += r.skippedProtected;
    p.remaining = r.remaining;
    p.failed = r.failed;
    if (r.keysProcessed === 0) {
      p.done = true;
      onProgress({ ...p });
      break;
    }
    onProgress({ ...p });
  }
  return p;
}

/** Hex SHA-256 of each distinct text, where the browser offers SubtleCrypto (secure contexts). */
export async function sha256Hex(texts: Iterable<string>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return out;
  const enc = new TextEncoder();
  for (const t of new Set(texts)) {
    const digest = await subtle.digest('SHA-256', enc.encode(t));
    out.set(
      t,
      Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''),
    );
  }
  return out;
}
