import { createHash } from 'node:crypto';

/**
 * The translation state a page or fragment carries (localization.md, Content records and settings
 * rules 12–17), as pure functions: the store writes what these return, the translator of a later
 * step calls the same functions, so the rules live in one place.
 */

/** One translation unit: a page field (`title`, `body`, `seo.title`, `seo.description`) or a fragment leaf (`/links/0/label`). */
export interface UnitState {
  unit: string;
  /** Hash of the unit's source-language text the locales below are current at. */
  hash: string;
  /** Locales whose text is current at `hash` (never the source locale). */
  locales: string[];
}

/** A translation held by the review gate (rule 17). */
export interface PendingTranslation {
  unit: string;
  locale: string;
  text: string;
  /** Hash of the unit's source text the candidate was made from; a different current hash makes it stale. */
  hash: string;
  /** ISO 8601 time the candidate was made. */
  at: string;
}

export interface TranslationState {
  /** Source text declared finished (rule 13); bulk translators skip a record without it. */
  translationReady: boolean;
  /** Hash the translator last worked from; written by `markTranslated` only (rule 14). */
  sourceHash?: string;
  /** One-shot redo request (rule 15). */
  retranslate: boolean;
  /** Per-unit tracking (rule 16); absent on a record written before units existed. */
  units?: UnitState[];
  /** Hold machine output in `pending` (rule 17). */
  reviewRequired: boolean;
  pending: PendingTranslation[];
}

/** The source-language text of one unit as a record holds it now. */
export interface SourceUnit {
  unit: string;
  text: string;
  /** Part of the record's source hash (a page's title and body; not its SEO fields). */
  hashed: boolean;
}

/** What a unit's text is in one locale: every translated unit of the record, keyed by unit. */
export type UnitTexts = (unit: string, locale: string) => string | undefined;

/** The state of one (unit, locale), or of a whole locale: the worst of its units. */
export type LocaleState = 'current' | 'stale' | 'missing' | 'pending';

export const EMPTY_STATE: Readonly<TranslationState> = Object.freeze({ translationReady: false, retranslate: false, reviewRequired: false, pending: [] });

/** sha256 of one text, hex. */
export function unitHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Rule 12 (`crud.HashSource`): one hash over named inputs, sorted by name first, so the order in
 * which a caller lists them never changes it. Names and texts are length-prefixed, so no two
 * different inputs hash alike (`a`+`bc` and `ab`+`c`).
 */
export function hashSource(inputs: Readonly<Record<string, string>>): string {
  const h = createHash('sha256');
  for (const name of Object.keys(inputs).sort()) {
    const text = inputs[name];
    h.update(`${name.length}:${name}${Buffer.byteLength(text, 'utf8')}:`).update(text, 'utf8');
  }
  return h.digest('hex');
}

/** The record's source hash: the hashed units' texts (a page's title and body in the source locale). */
export function sourceHashOf(units: readonly SourceUnit[]): string {
  const inputs: Record<string, string> = {};
  for (const u of units) if (u.hashed) inputs[u.unit] = u.text;
  return hashSource(inputs);
}

/** Rule 14: the source changed since the translator last worked; a record never translated is not stale (it is missing). */
export function isStale(state: Pick<TranslationState, 'sourceHash'>, currentHash: string): boolean {
  return state.sourceHash !== undefined && state.sourceHash !== currentHash;
}

const has = (text: string | undefined): text is string => typeof text === 'string' && text !== '';

/**
 * The units after a write (rule 16). A unit whose source hash is unchanged keeps its locales, plus
 * the locales whose text this write changed (a person wrote them beside the source) and minus the
 * ones it emptied; a changed hash replaces the list with the locales written in the same request
 * (never a merge); a unit gone from the source is dropped. A record that had no units adopts its
 * existing text: every locale holding text is trusted as current (rule 16, adoption on next touch).
 */
export function reconcileUnits(
  state: Pick<TranslationState, 'units'>,
  source: readonly SourceUnit[],
  texts: { before: UnitTexts; after: UnitTexts },
  locales: readonly string[],
): UnitState[] {
  const previous = new Map((state.units ?? []).map((u) => [u.unit, u]));
  const adopting = state.units === undefined;
  return source.map(({ unit, text }) => {
    const hash = unitHash(text);
    const old = previous.get(unit);
    const written = locales.filter((l) => has(texts.after(unit, l)) && texts.after(unit, l) !== texts.before(unit, l));
    const holding = locales.filter((l) => has(texts.after(unit, l)));
    let current: string[];
    if (adopting) current = holding;
    else if (old && old.hash === hash) current = [...old.locales.filter((l) => has(texts.after(unit, l))), ...written];
    else current = written;
    return { unit, hash, locales: [...new Set(current)].filter((l) => locales.includes(l)).sort() };
  });
}

/** Units adopted as they stand (what `reconcileUnits` gives a record without units), for reads of such a record. */
export function effectiveUnits(state: Pick<TranslationState, 'units'>, source: readonly SourceUnit[], texts: UnitTexts, locales: readonly string[]): UnitState[] {
  if (state.units !== undefined) return state.units;
  return reconcileUnits({}, source, { before: texts, after: texts }, locales);
}

/** The state of one unit in one locale (the source locale is always current). */
export function unitLocaleState(unit: SourceUnit, units: readonly UnitState[], pending: readonly PendingTranslation[], locale: string, texts: UnitTexts): LocaleState {
  const u = units.find((x) => x.unit === unit.unit);
  if (u && u.hash === unitHash(unit.text) && u.locales.includes(locale)) return 'current';
  if (pending.some((p) => p.unit === unit.unit && p.locale === locale)) return 'pending';
  return has(texts(unit.unit, locale)) ? 'stale' : 'missing';
}

/**
 * The state of a whole locale for the admin list: `missing` when some unit has no text, else `stale`
 * when some text is behind its source, else `pending` when some candidate waits for review, else
 * `current`. The source locale is `current` by definition.
 */
export function localeState(
  state: Pick<TranslationState, 'units' | 'pending'>,
  source: readonly SourceUnit[],
  texts: UnitTexts,
  locale: string,
  sourceLocale: string,
  locales: readonly string[],
): LocaleState {
  if (locale === sourceLocale) return 'current';
  const units = effectiveUnits(state, source, texts, locales);
  const states = source.map((u) => unitLocaleState(u, units, state.pending, locale, texts));
  for (const s of ['missing', 'stale', 'pending'] as const) if (states.includes(s)) return s;
  return 'current';
}

/** One (unit, locale) to translate. */
export interface WorkItem {
  unit: string;
  locale: string;
}

/**
 * Rule 16: the (unit, locale) pairs needing work: not current at the unit's source hash and not
 * awaiting review (a held candidate, stale or not, is never re-translated on each sweep: rule 17).
 * `redo` (force, or the Retranslate flag: rule 19) also takes the current ones.
 */
export function unitsNeedingWork(
  state: Pick<TranslationState, 'units' | 'pending' | 'retranslate'>,
  source: readonly SourceUnit[],
  texts: UnitTexts,
  targets: readonly string[],
  options: { force?: boolean } = {},
): WorkItem[] {
  const units = new Map(effectiveUnits(state, source, texts, targets).map((u) => [u.unit, u]));
  const redo = options.force === true || state.retranslate;
  // Sets and maps, not scans: a fragment may hold 10,000 units.
  const held = new Set(state.pending.map((p) => `${p.unit}\u0000${p.locale}`));
  const out: WorkItem[] = [];
  for (const u of source) {
    if (u.text === '') continue;
    const tracked = units.get(u.unit);
    const current = tracked && tracked.hash === unitHash(u.text) ? new Set(tracked.locales) : undefined;
    for (const locale of targets) {
      if (held.has(`${u.unit}\u0000${locale}`)) continue;
      if (!redo && current?.has(locale)) continue;
      out.push({ unit: u.unit, locale });
    }
  }
  return out;
}

/** A translation that landed: the unit's text in `locale`, made from the source at `hash`. */
export interface Landed {
  unit: string;
  locale: string;
  hash: string;
}

/**
 * Rule 14: the one operation that writes SourceHash. Each landed (unit, locale) whose hash is still
 * the unit's current one becomes current there; `sourceHash` is recorded only when the run was
 * complete (failed locales record none, so a rerun retries exactly what is missing: rule 18), and
 * Retranslate is cleared because a translator acted (rule 15).
 */
export function markTranslated(state: TranslationState, landed: readonly Landed[], sourceHash: string, options: { complete: boolean }): TranslationState {
  const byUnit = new Map<string, Landed[]>();
  for (const l of landed) byUnit.set(l.unit, [...(byUnit.get(l.unit) ?? []), l]);
  const units = (state.units ?? []).map((u) => {
    const add = (byUnit.get(u.unit) ?? []).filter((l) => l.hash === u.hash).map((l) => l.locale);
    return add.length ? { ...u, locales: [...new Set([...u.locales, ...add])].sort() } : u;
  });
  return { ...state, units, retranslate: false, ...(options.complete ? { sourceHash } : {}) };
}

/** Rule 17: candidates held for review replace older ones of the same (unit, locale); Retranslate is cleared (the translator acted). */
export function holdPending(state: TranslationState, candidates: readonly PendingTranslation[]): TranslationState {
  const replaced = (p: PendingTranslation) => candidates.some((c) => c.unit === p.unit && c.locale === p.locale);
  return { ...state, retranslate: false, pending: [...state.pending.filter((p) => !replaced(p)), ...candidates] };
}

/** True when the unit's source moved since the candidate was made. */
export function isPendingStale(p: PendingTranslation, units: readonly UnitState[]): boolean {
  return units.find((u) => u.unit === p.unit)?.hash !== p.hash;
}

/** What an approval did, or why it refused. */
export type ApproveOutcome =
  | { ok: true; state: TranslationState; approved: PendingTranslation[] }
  | { ok: false; reason: 'none' | 'stale'; stale?: PendingTranslation[] };

/**
 * Approves the held candidates of `locale` (one unit, or every unit): refused when none is held or
 * when a source moved since its candidate was made, unless `force` (rule 17). Approved units become
 * current in that locale at their current hash; the caller writes `text` (or the edited text).
 */
export function approvePending(state: TranslationState, locale: string, options: { unit?: string; force?: boolean } = {}): ApproveOutcome {
  const units = state.units ?? [];
  const picked = state.pending.filter((p) => p.locale === locale && (options.unit === undefined || p.unit === options.unit));
  if (!picked.length) return { ok: false, reason: 'none' };
  const stale = picked.filter((p) => isPendingStale(p, units));
  if (stale.length && !options.force) return { ok: false, reason: 'stale', stale };
  const approved = new Set(picked.map((p) => p.unit));
  return {
    ok: true,
    approved: picked,
    state: {
      ...state,
      pending: state.pending.filter((p) => !picked.includes(p)),
      units: units.map((u) => (approved.has(u.unit) ? { ...u, locales: [...new Set([...u.locales, locale])].sort() } : u)),
    },
  };
}

/** Discards the held candidates of `locale` (one unit or all), so the next run produces fresh ones. */
export function rejectPending(state: TranslationState, locale: string, unit?: string): { state: TranslationState; rejected: number } {
  const keep = state.pending.filter((p) => !(p.locale === locale && (unit === undefined || p.unit === unit)));
  return { state: { ...state, pending: keep }, rejected: state.pending.length - keep.length };
}
