import { Inject, Injectable, Logger } from '@nestjs/common';
import type { StoreSession } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { LocaleRepository } from '../../locales/persistence/locale.repository';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { addUsage, type GlossaryEntry, GlossarySource, NO_USAGE, TranslationEngine, type TranslationUsage, type TranslationUsageContext } from '../../auto-translate/auto-translate.ports';
import { targetLocales } from '../../auto-translate/engine/target-locales';
import {
  effectiveUnits,
  holdPending,
  type Landed,
  markTranslated,
  type PendingTranslation,
  sourceHashOf,
  type TranslationState,
  unitHash,
  unitsNeedingWork,
} from '../domain/translation-state';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { PublicPageCache } from '../use-cases/public-page.cache';
import { type ContentRecord, type ContentType, recordOfFragment, recordOfPage, setUnitText, stateOf, unitNote, unitsOf, updatedAtOf } from './record-text';

/** Why a run or a sweep did nothing (or stopped): settings rule 18's three reasons. */
export type ContentTranslateReason = 'nothing_to_do' | 'budget_exhausted' | 'waiting_for_quiet';

export interface ContentTranslateRequest {
  /** Page slugs; with `fragments` absent, only these pages. Neither given: every page and fragment. */
  pages?: readonly string[];
  fragments?: readonly string[];
  /** Locale codes; absent: every active locale but the source. */
  locales?: readonly string[];
  /** Translate every unit again (rule 19's force), not only missing and stale ones. */
  force?: boolean;
  /** Select and count without calling a model or writing. */
  dryRun?: boolean;
  /** Model translations of one (unit, locale) at most; absent: no cap. */
  budget?: number;
  /** Skip records edited less than this long ago (the sweep's quiet period); absent: none. */
  quietMs?: number;
  /** No record is started after this time (epoch ms); what is left counts in `remaining`. */
  deadline?: number;
  signal?: AbortSignal;
  usageContext?: TranslationUsageContext;
  onProgress?: (p: { recordsDone: number; recordsTotal: number; translated: number }) => void;
  /** For tests: the clock. */
  now?: () => number;
}

export interface ContentFailure {
  type: ContentType;
  id: string;
  unit: string;
  locale: string;
  reason: string;
}

export interface ContentTranslateReport {
  /** (unit, locale) translations written live (or, on a dry run, that would be made). */
  translated: number;
  /** (unit, locale) translations that failed: no text and no hash recorded; the next run retries them. */
  failed: ContentFailure[];
  /** (unit, locale) candidates held for review (ReviewRequired records). */
  pending: number;
  /** Records left alone: `not ready`, `not found`, `waiting for quiet`. */
  skipped: Array<{ type: ContentType; id: string; reason: string }>;
  /** Null when work was done and nothing was left for lack of budget; else why nothing (more) was done. */
  reason: ContentTranslateReason | null;
  /** (unit, locale) pairs still needing work in the records taken (cut off by the budget or the deadline). */
  remaining: number;
  /** Records written. */
  records: number;
  /** Translations reused from identical source text already translated for the locale (no model call, not counted in the budget). */
  memoryHits: number;
  usage: TranslationUsage;
  dryRun?: boolean;
}

interface Translated {
  unit: string;
  locale: string;
  text: string;
  /** Hash of the unit's source text it was made from. */
  hash: string;
}

/**
 * Translates pages and fragments (settings rules 13 to 19). For every record marked ready (others
 * are skipped with `not ready`) it takes the (unit, locale) pairs needing work (missing, stale, or
 * every one with `force` or the Retranslate flag; never one held for review), reuses identical
 * source text already translated for the locale (translation memory), sends each unit once through
 * the engine for its locales (HTML bodies keep their tags by the engine's format check) and writes
 * the record in one update: live text and `markTranslated`, or candidates held in Pending when the
 * record requires review. A locale that failed gets no text and no hash, so the next run retries
 * exactly it; `sourceHash` is written only when the record's run was complete. A result whose
 * source moved while the model worked is dropped, so no unit is ever written from an old source.
 */
@Injectable()
export class ContentTranslator {
  private readonly log = new Logger('ContentTranslator');

  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(TranslationEngine) private readonly engine: TranslationEngine,
    @Inject(GlossarySource) private readonly glossary: GlossarySource,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
  ) {}

  async run(request: ContentTranslateRequest = {}): Promise<ContentTranslateReport> {
    const now = request.now ?? Date.now;
    const report: ContentTranslateReport = { translated: 0, failed: [], pending: 0, skipped: [], reason: null, remaining: 0, records: 0, memoryHits: 0, usage: NO_USAGE, ...(request.dryRun ? { dryRun: true } : {}) };
    const sourceLocale = this.config.sourceLocale;
    const targets = await this.targets(request.locales);
    const records = await this.select(request, report);
    const memory = new Map<string, string>();
    // Memory comes from every record, not only the ones selected (a new page reuses the old ones' text).
    for (const r of request.pages === undefined && request.fragments === undefined ? records : request.dryRun ? [] : await this.all()) this.learn(memory, r);
    let budget = request.budget === undefined || request.budget <= 0 ? Number.POSITIVE_INFINITY : request.budget;
    let waiting = 0;
    const glossary = request.dryRun ? [] : await this.glossaryEntries();
    let done = 0;

    for (const record of records) {
      const state = stateOf(record);
      if (!state.translationReady) {
        report.skipped.push({ type: record.type, id: record.id, reason: 'not ready' });
        continue;
      }
      const edited = updatedAtOf(record)?.getTime() ?? Number.NaN;
      // A record without a (readable) timestamp counts as settled.
      if (request.quietMs !== undefined && Number.isFinite(edited) && now() - edited < request.quietMs) {
        report.skipped.push({ type: record.type, id: record.id, reason: 'waiting for quiet' });
        waiting++;
        continue;
      }
      const { units, texts } = unitsOf(record, sourceLocale);
      const work = unitsNeedingWork(state, units, texts, [...targets.keys()], { force: request.force });
      if (!work.length) {
        if (!request.dryRun) await this.settle(record, sourceLocale, [...targets.keys()]);
        continue;
      }
      if (request.dryRun) {
        const take = Math.min(work.length, budget);
        report.translated += take;
        report.remaining += work.length - take;
        budget -= take;
        continue;
      }
      if (budget <= 0 || request.signal?.aborted || (request.deadline !== undefined && now() >= request.deadline)) {
        report.remaining += work.length;
        continue;
      }

      const sourceOf = new Map(units.map((u) => [u.unit, u.text]));
      const results: Translated[] = [];
      const failures: ContentFailure[] = [];
      const ask = new Map<string, string[]>();
      let cut = 0;
      for (const w of work) {
        const source = sourceOf.get(w.unit)!;
        // Redoing (force, Retranslate) asks the model: the record's own text would be its memory.
        const remembered = request.force || state.retranslate ? undefined : memory.get(memoryKey(source, w.locale));
        if (remembered !== undefined) {
          results.push({ unit: w.unit, locale: w.locale, text: remembered, hash: unitHash(source) });
          report.memoryHits++;
          continue;
        }
        if (budget <= 0) {
          cut++;
          continue;
        }
        budget--;
        ask.set(w.unit, [...(ask.get(w.unit) ?? []), w.locale]);
      }
      for (const [unit, codes] of ask) {
        const source = sourceOf.get(unit)!;
        const hash = unitHash(source);
        try {
          const result = await this.engine.translate({
            text: source,
            sourceLocale,
            locales: codes.map((c) => targets.get(c)!),
            context: unitNote(record, unit),
            glossary,
            ...(request.signal ? { signal: request.signal } : {}),
            usageContext: { ...request.usageContext, purpose: 'content' },
          });
          report.usage = addUsage(report.usage, result.usage);
          for (const o of result.omitted) failures.push({ type: record.type, id: record.id, unit, locale: o.locale, reason: o.reason });
          for (const c of codes) {
            const text = result.translations[c];
            if (typeof text === 'string' && text !== '') results.push({ unit, locale: c, text, hash });
            else if (!result.omitted.some((o) => o.locale === c)) failures.push({ type: record.type, id: record.id, unit, locale: c, reason: 'the engine returned no translation' });
          }
        } catch (e) {
          if (request.signal?.aborted) {
            cut += codes.length;
            continue;
          }
          const reason = e instanceof Error ? e.message : String(e);
          this.log.warn(`translating ${record.type} ${record.id} ${unit} failed: ${reason}`);
          for (const c of codes) failures.push({ type: record.type, id: record.id, unit, locale: c, reason });
        }
      }
      const outcome = await this.write(record.type, record.id, results, { complete: failures.length === 0 && cut === 0, targets: [...targets.keys()] });
      for (const r of results) if (outcome.live.has(`${r.unit}\u0000${r.locale}`)) memory.set(memoryKey(sourceOf.get(r.unit)!, r.locale), r.text);
      report.translated += outcome.translated;
      report.pending += outcome.pending;
      report.failed.push(...failures);
      report.remaining += cut + outcome.dropped;
      if (outcome.written) report.records++;
      done++;
      request.onProgress?.({ recordsDone: done, recordsTotal: records.length, translated: report.translated });
    }

    const didWork = report.translated + report.pending + report.failed.length > 0;
    if (report.remaining > 0) report.reason = 'budget_exhausted';
    else if (!didWork) report.reason = waiting > 0 ? 'waiting_for_quiet' : 'nothing_to_do';
    return report;
  }

  /**
   * One update of one record: re-read inside the transaction, keep only results whose unit source is
   * still the one they were made from, then live text plus `markTranslated`, or candidates held in
   * Pending when the record requires review.
   */
  private async write(
    type: ContentType,
    id: string,
    results: readonly Translated[],
    options: { complete: boolean; targets: readonly string[] },
  ): Promise<{ translated: number; pending: number; dropped: number; written: boolean; live: Set<string> }> {
    const sourceLocale = this.config.sourceLocale;
    const live = new Set<string>();
    const outcome = await this.outbox.transaction(async (session) => {
      const record = type === 'page' ? await this.repository.findPage(id, session).then((p) => p && recordOfPage(p)) : await this.repository.findFragment(id, session).then((f) => f && recordOfFragment(f));
      if (!record) return { translated: 0, pending: 0, dropped: results.length, written: false };
      const { units, texts } = unitsOf(record, sourceLocale);
      const current = new Map(units.map((u) => [u.unit, unitHash(u.text)]));
      const fresh = results.filter((r) => current.get(r.unit) === r.hash);
      const dropped = results.length - fresh.length;
      let state: TranslationState = { ...stateOf(record), units: effectiveUnits(stateOf(record), units, texts, options.targets) };
      let pending = 0;
      const landed: Landed[] = [];
      if (state.reviewRequired) {
        const at = new Date().toISOString();
        const candidates: PendingTranslation[] = fresh.map((r) => ({ unit: r.unit, locale: r.locale, text: r.text, hash: r.hash, at }));
        state = holdPending(state, candidates);
        pending = candidates.length;
      } else {
        for (const r of fresh) {
          if (!setUnitText(record, r.unit, r.locale, r.text)) continue;
          landed.push({ unit: r.unit, locale: r.locale, hash: r.hash });
          live.add(`${r.unit}\u0000${r.locale}`);
        }
      }
      state = markTranslated(state, landed, sourceHashOf(units), { complete: options.complete && dropped === 0 });
      await this.save(record, state, session);
      return { translated: landed.length, pending, dropped, written: true };
    });
    if (outcome.written && type === 'page') this.cache.drop(id);
    return { ...outcome, live };
  }

  /** A record with nothing left to translate records the hash it is complete at (and drops a Retranslate nobody needs). */
  private async settle(record: ContentRecord, sourceLocale: string, targets: readonly string[]): Promise<void> {
    const state = stateOf(record);
    const { units } = unitsOf(record, sourceLocale);
    const hash = sourceHashOf(units);
    if (state.pending.length || (state.sourceHash === hash && !state.retranslate) || units.length === 0) return;
    await this.outbox.transaction(async (session) => {
      const again = record.type === 'page' ? await this.repository.findPage(record.id, session).then((p) => p && recordOfPage(p)) : await this.repository.findFragment(record.id, session).then((f) => f && recordOfFragment(f));
      if (!again) return;
      const now = unitsOf(again, sourceLocale);
      if (sourceHashOf(now.units) !== hash) return;
      const s = stateOf(again);
      if (unitsNeedingWork(s, now.units, now.texts, targets).length || s.pending.length) return;
      await this.save(again, markTranslated({ ...s, units: effectiveUnits(s, now.units, now.texts, targets) }, [], hash, { complete: true }), session, false);
    });
  }

  /** Saves the record with its state; `updatedAt` stays the last edit (the quiet period measures edits, not translations). */
  private async save(record: ContentRecord, state: TranslationState, session: StoreSession, announce = true): Promise<void> {
    if (record.type === 'page') {
      await this.repository.savePage({ ...record.page, translation: state }, session);
      if (announce) await this.outbox.pageChanged(session, record.id, 'updated', false);
    } else {
      await this.repository.saveFragment({ ...record.fragment, translation: state }, session);
      if (announce) await this.outbox.fragmentChanged(session, record.id, 'updated', false);
    }
  }

  /** Texts already current for a locale, by source text: reused for identical source text elsewhere. */
  private learn(memory: Map<string, string>, r: ContentRecord): void {
    const state = stateOf(r);
    if (!state.units) return;
    const { units, texts } = unitsOf(r, this.config.sourceLocale);
    const byUnit = new Map(state.units.map((x) => [x.unit, x]));
    for (const u of units) {
      const tracked = byUnit.get(u.unit);
      if (!tracked || tracked.hash !== unitHash(u.text)) continue;
      for (const l of tracked.locales) {
        const text = texts(u.unit, l);
        if (text) memory.set(memoryKey(u.text, l), text);
      }
    }
  }

  private async select(request: ContentTranslateRequest, report: ContentTranslateReport): Promise<ContentRecord[]> {
    if (request.pages === undefined && request.fragments === undefined) return this.all();
    const out: ContentRecord[] = [];
    for (const slug of new Set(request.pages ?? [])) {
      const p = await this.repository.findPage(slug);
      if (p) out.push(recordOfPage(p));
      else report.skipped.push({ type: 'page', id: slug, reason: 'not found' });
    }
    for (const key of new Set(request.fragments ?? [])) {
      const f = await this.repository.findFragment(key);
      if (f) out.push(recordOfFragment(f));
      else report.skipped.push({ type: 'fragment', id: key, reason: 'not found' });
    }
    return out;
  }

  /** Every page, then every fragment, in id order. */
  private async all(): Promise<ContentRecord[]> {
    const out: ContentRecord[] = [];
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listPages(500, after);
      out.push(...batch.map(recordOfPage));
      if (batch.length < 500) break;
      after = batch[batch.length - 1].slug;
    }
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listFragments(500, after);
      out.push(...batch.map(recordOfFragment));
      if (batch.length < 500) break;
      after = batch[batch.length - 1].key;
    }
    return out;
  }

  /** The locales to fill: `locales` as asked (the source excluded), else every active locale but the source. */
  private async targets(requested?: readonly string[]) {
    const registry = await this.locales.list(requested ? {} : { active: true });
    const codes = (requested ? [...new Set(requested)].filter((c) => LOCALE_CODE_PATTERN.test(c)) : registry.map((l) => l.code)).filter((c) => c !== this.config.sourceLocale);
    return new Map(targetLocales(codes, registry).map((t) => [t.code, t]));
  }

  private async glossaryEntries(): Promise<readonly GlossaryEntry[]> {
    try {
      return await this.glossary.entries();
    } catch (e) {
      this.log.warn(`glossary unreadable, translating without it: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
  }
}

function memoryKey(source: string, locale: string): string {
  return `${unitHash(source)}:${locale}`;
}
