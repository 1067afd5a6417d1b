import { fingerprint } from '../../coverage/fingerprint';
import type { ProvenanceEntry, TranslationRow } from '../../translations/domain/translation-row.entity';
import type { FillMode } from '../auto-translate.ports';

/** What a fill run may replace (automatic translation rules 1, 3 and 6). */
export interface SelectionRules {
  mode: FillMode;
  overwrite: boolean;
  includeProtected: boolean;
  /**
   * With overwrite: machine text written before this instant (epoch ms) is replaced too, current or
   * not. Text written at or after it is what this overwrite pass made, so repeating the pass with
   * the same instant converges.
   */
  overwriteBefore?: number;
}

/** The fingerprints of a row's current source text and translator note. */
export interface RowFingerprints {
  sourceHash: string;
  contextHash: string;
}

/** What the selection decided for one row. */
export interface RowPlan {
  /** The row has no source-language text: nothing to translate from. */
  noSource: boolean;
  /** Locales to translate. */
  locales: string[];
  /** Locales a run with overwrite left alone because their text is human or code/seed (rule 1). */
  protectedLocales: string[];
  /** Locales whose held or rejected candidate still blocks them (rule 6). */
  blocked: string[];
  fingerprints: RowFingerprints;
}

export function fingerprintsOf(row: TranslationRow, sourceLocale: string): RowFingerprints {
  return { sourceHash: fingerprint(row.translations[sourceLocale] ?? ''), contextHash: fingerprint(row.context ?? '') };
}

/** A machine translation made from another source text or note than the row's current ones (rule 3). */
export function isStaleMachine(row: TranslationRow, locale: string, fp: RowFingerprints): boolean {
  const p = row.provenance[locale];
  if (!p || p.source !== 'machine') return false;
  if (p.source_hash && p.source_hash !== fp.sourceHash) return true;
  return Boolean(p.context_hash && p.context_hash !== fp.contextHash);
}

/** Machine text written before `instant` (epoch ms); text without a readable time counts as older. */
export function writtenBefore(p: ProvenanceEntry, instant: number): boolean {
  const at = Date.parse(p.at);
  return !Number.isFinite(at) || at < instant;
}

/** Machine text an admin approved in the review queue: protected like human text. */
export function isApprovedMachine(p: ProvenanceEntry): boolean {
  return p.source === 'machine' && (p.review as { approved?: unknown } | undefined)?.approved === true;
}

/**
 * The cells of `row` a run works on, per locale:
 * - no text (or an empty one): always;
 * - `human`, `code`, `seed`: only with overwrite and includeProtected; with overwrite alone it is
 *   counted as protected;
 * - `machine`: when stale; with overwrite also when it carries no fingerprints, and, given
 *   `overwriteBefore`, when it was written before that instant even though it is current (another
 *   model made it, or the `local` pseudo-localizer): text written since is this pass's own, which is
 *   what makes a capped overwrite converge (re-run until keysProcessed is 0). Machine text an admin
 *   approved counts as protected there, like human text;
 * - no provenance (unknown origin, never stale): only with overwrite.
 * A held or rejected candidate whose fingerprints match the row's blocks its locale; editing the
 * source or the note releases it.
 */
export function planRow(row: TranslationRow, targets: readonly string[], sourceLocale: string, rules: SelectionRules): RowPlan {
  const fingerprints = fingerprintsOf(row, sourceLocale);
  const plan: RowPlan = { noSource: false, locales: [], protectedLocales: [], blocked: [], fingerprints };
  const source = row.translations[sourceLocale];
  if (source === undefined || source.trim() === '') {
    plan.noSource = true;
    return plan;
  }
  for (const locale of targets) {
    if (locale === sourceLocale) continue;
    const pending = row.pending[locale];
    if (pending && pending.source_hash === fingerprints.sourceHash && pending.context_hash === fingerprints.contextHash) {
      plan.blocked.push(locale);
      continue;
    }
    const text = row.translations[locale];
    if (text === undefined || text === '') {
      plan.locales.push(locale);
      continue;
    }
    const p = row.provenance[locale];
    if (!p) {
      if (rules.overwrite) plan.locales.push(locale);
      continue;
    }
    if (p.source !== 'machine') {
      if (rules.overwrite && rules.includeProtected) plan.locales.push(locale);
      else if (rules.overwrite) plan.protectedLocales.push(locale);
      continue;
    }
    const stale = isStaleMachine(row, locale, fingerprints);
    if (stale && (rules.mode === 'missing_and_stale' || rules.overwrite)) plan.locales.push(locale);
    else if (rules.overwrite && !p.source_hash) plan.locales.push(locale);
    else if (rules.overwrite && rules.overwriteBefore !== undefined && writtenBefore(p, rules.overwriteBefore)) {
      if (isApprovedMachine(p) && !rules.includeProtected) plan.protectedLocales.push(locale);
      else plan.locales.push(locale);
    }
  }
  return plan;
}
