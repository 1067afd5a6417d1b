import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyedSerial } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { languageTag } from '../../locales/domain/language-tag';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { LocaleRepository } from '../../locales/persistence/locale.repository';
import type { PendingEntry, ProvenanceEntry, TranslationRow } from '../../translations/domain/translation-row.entity';
import { expectationOf, TranslationRepository } from '../../translations/persistence/translation.repository';
import {
  addUsage,
  type FailedCell,
  type FillReport,
  type FillRequest,
  FillTranslations,
  type GlossaryEntry,
  GlossarySource,
  NO_USAGE,
  type ReviewVerdict,
  ReviewerUnavailableError,
  type TargetLocale,
  TranslationEngine,
} from '../auto-translate.ports';
import { planRow, type RowPlan } from './fill-selection';
import { type LiveCell, MachineTranslationWriter, type PendingCell } from './machine-translation.writer';
import { runPool } from './run-pool';
import { TranslationMemory } from './translation-memory';

/** `provenance.by` of a locale filled from translation memory. */
export const MEMORY_BY = 'memory';

interface WorkItem {
  row: TranslationRow;
  plan: RowPlan;
}

/** What processing one key did. */
interface KeyOutcome {
  started: boolean;
  /** Cut off by the caller's signal before every locale was done (the key still needs work). */
  interrupted?: boolean;
  written: number;
  fromMemory: number;
  held: number;
  lost: number;
  failed: FailedCell[];
}

/**
 * The one fill loop (automatic translation rules 1 to 3, 5, 6 and 11's concurrency): selects the
 * cells to work on from provenance and mode, fills what translation memory knows, asks the engine
 * for the rest (at most AI_CONCURRENCY keys in flight), runs the review gate, and writes every
 * locale with its provenance by compare-and-set, so two runs over the same keys never lose a write.
 * Keys are taken in (namespace, key) order; a key is never half-done by a deadline: the deadline
 * only stops new keys from starting.
 */
@Injectable()
export class FillTranslationsService extends FillTranslations {
  private readonly log = new Logger('FillTranslations');

  constructor(
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(TranslationEngine) private readonly engine: TranslationEngine,
    @Inject(GlossarySource) private readonly glossary: GlossarySource,
    @Inject(MachineTranslationWriter) private readonly writer: MachineTranslationWriter,
  ) {
    super();
  }

  async run(request: FillRequest): Promise<FillReport> {
    const report: FillReport = { keysProcessed: 0, localesFilled: 0, skippedProtected: 0, held: 0, failed: [], remaining: 0, memoryHits: 0, usage: NO_USAGE, missingSource: 0 };
    const sourceLocale = this.config.sourceLocale;
    const targets = await this.targets(request.locales);
    const candidates = await this.selectRows(request);
    const rules = {
      mode: request.mode,
      overwrite: Boolean(request.overwrite),
      includeProtected: Boolean(request.overwrite && request.includeProtected),
      ...(request.overwrite && request.overwriteBefore !== undefined ? { overwriteBefore: request.overwriteBefore } : {}),
    };
    const work: WorkItem[] = [];
    for (const row of candidates) {
      const plan = planRow(row, [...targets.keys()], sourceLocale, rules);
      if (plan.noSource) {
        report.missingSource!++;
        continue;
      }
      report.skippedProtected += plan.protectedLocales.length;
      if (plan.locales.length) work.push({ row, plan });
    }
    const limit = request.limit === undefined ? work.length : Math.max(0, Math.floor(request.limit));
    const batch = work.slice(0, limit);
    let remaining = work.length - batch.length;
    if (request.dryRun) {
      report.keysProcessed = batch.length;
      report.localesFilled = batch.reduce((n, w) => n + w.plan.locales.length, 0);
      report.remaining = remaining;
      return report;
    }

    // Machine text an overwrite pass replaces is not fit to fill other keys with either.
    const memory = new TranslationMemory(sourceLocale, rules.overwriteBefore);
    if (batch.length) {
      for (const row of await this.rows.findBySourceTexts(sourceLocale, batch.map((w) => w.row.translations[sourceLocale]))) memory.learn(row);
    }
    const glossary = await this.glossaryEntries();
    // Keys with the same source and note run one after the other, so the second is served by the
    // memory of the first instead of a second model call.
    const chains = new KeyedSerial();
    let keysDone = 0;
    const outcomes = await runPool(batch, Math.max(1, this.config.aiConcurrency), (item) =>
      chains.run(`${item.plan.fingerprints.sourceHash}:${item.plan.fingerprints.contextHash}`, async () => {
        if (this.mustStop(request)) return undefined;
        const outcome = await this.processKey(item, request, targets, memory, glossary, (u) => (report.usage = addUsage(report.usage, u)));
        keysDone++;
        report.localesFilled += outcome.written;
        request.onProgress?.({ keysDone, keysTotal: batch.length, localesFilled: report.localesFilled });
        return outcome;
      }),
    );
    for (const o of outcomes) {
      if (!o || !o.started) {
        remaining++;
        continue;
      }
      report.memoryHits += o.fromMemory;
      report.held += o.held;
      report.failed.push(...o.failed);
      if (o.written + o.held + o.lost > 0) report.keysProcessed++;
      if (o.failed.length || o.interrupted) remaining++;
    }
    report.remaining = remaining;
    return report;
  }

  private mustStop(request: FillRequest): boolean {
    return Boolean(request.signal?.aborted) || (request.deadline !== undefined && Date.now() >= request.deadline);
  }

  private async processKey(
    { row, plan }: WorkItem,
    request: FillRequest,
    targets: Map<string, TargetLocale>,
    memory: TranslationMemory,
    glossary: readonly GlossaryEntry[],
    spend: (u: FillReport['usage']) => void,
  ): Promise<KeyOutcome> {
    const outcome: KeyOutcome = { started: true, written: 0, fromMemory: 0, held: 0, lost: 0, failed: [] };
    const sourceLocale = this.config.sourceLocale;
    const source = row.translations[sourceLocale];
    const { sourceHash, contextHash } = plan.fingerprints;
    const note = row.context?.trim() ? row.context : undefined;
    const at = new Date().toISOString();
    const fail = (locale: string, reason: string) => outcome.failed.push({ key: row.key, ...(row.ns ? { ns: row.ns } : {}), locale, reason });

    const live: LiveCell[] = [];
    const held: PendingCell[] = [];
    const need: string[] = [];
    for (const locale of plan.locales) {
      const remembered = memory.lookup(row, plan.fingerprints, locale);
      if (remembered === undefined) need.push(locale);
      else live.push({ locale, text: remembered, expected: expectationOf(row, locale), provenance: { source: 'machine', by: MEMORY_BY, at, source_hash: sourceHash, context_hash: contextHash } });
    }

    if (need.length) {
      let translations: Record<string, string> = {};
      let by = 'unknown';
      try {
        const result = await this.engine.translate({
          text: source,
          sourceLocale,
          locales: need.map((l) => targets.get(l) ?? { code: l, language: languageTag({ code: l }) }),
          ...(note ? { context: note } : {}),
          glossary,
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.usageContext ? { usageContext: request.usageContext } : {}),
        });
        spend(result.usage);
        by = result.by;
        for (const o of result.omitted) fail(o.locale, o.reason);
        translations = Object.fromEntries(need.filter((l) => typeof result.translations[l] === 'string' && result.translations[l] !== '').map((l) => [l, result.translations[l]]));
        for (const l of need) if (!(l in translations) && !result.omitted.some((o) => o.locale === l)) fail(l, 'the engine returned no translation');
      } catch (e) {
        if (request.signal?.aborted) return live.length ? this.finish(row, plan, memory, { ...outcome, interrupted: true }, live, []) : { ...outcome, started: false };
        const reason = e instanceof Error ? e.message : String(e);
        this.log.warn(`translating ${row.ns ? `${row.ns}:` : ''}${row.key} failed: ${reason}`);
        for (const l of need) fail(l, reason);
      }

      let verdicts: Record<string, ReviewVerdict> | undefined;
      let reviewer: string | undefined;
      if (request.review && Object.keys(translations).length) {
        try {
          const r = await this.engine.review({
            key: row.key,
            source,
            sourceLocale,
            ...(note ? { context: note } : {}),
            candidates: translations,
            glossary,
            ...(request.signal ? { signal: request.signal } : {}),
            ...(request.usageContext ? { usageContext: request.usageContext } : {}),
          });
          spend(r.usage);
          verdicts = r.verdicts;
          reviewer = r.by;
        } catch (e) {
          if (e instanceof ReviewerUnavailableError) spend(e.usage);
          // Cut off by the caller: nothing unreviewed goes live; the key counts as not done.
          if (request.signal?.aborted) return live.length ? this.finish(row, plan, memory, { ...outcome, interrupted: true }, live, []) : { ...outcome, started: false };
          // Rule 5: a reviewer outage never stops translation; the text goes live without a verdict.
          this.log.warn(`review of ${row.key} unavailable: ${e instanceof Error ? e.message : String(e)}`);
        }
      }

      for (const [locale, text] of Object.entries(translations)) {
        const v = verdicts?.[locale];
        const review = v ? reviewRecord(v, reviewer) : undefined;
        if (v && !v.ok && note) {
          const entry: PendingEntry = { text, status: 'held', by, source_hash: sourceHash, context_hash: contextHash, review: review!, at };
          held.push({ locale, entry, expected: expectationOf(row, locale) });
          continue;
        }
        const provenance: ProvenanceEntry = { source: 'machine', by, at, source_hash: sourceHash, context_hash: contextHash, ...(review ? { review } : {}) };
        live.push({ locale, text, provenance, expected: expectationOf(row, locale) });
      }
    }

    return this.finish(row, plan, memory, outcome, live, held);
  }

  /** Writes what a key produced and counts it. */
  private async finish(row: TranslationRow, plan: RowPlan, memory: TranslationMemory, outcome: KeyOutcome, live: LiveCell[], held: PendingCell[]): Promise<KeyOutcome> {
    if (!live.length && !held.length) return outcome;
    const written = await this.writer.writeKey(row.ns, row.key, live, held);
    const wrote = new Set(written.written);
    for (const c of live) {
      if (!wrote.has(c.locale)) continue;
      outcome.written++;
      if (c.provenance.by === MEMORY_BY) outcome.fromMemory++;
      else if ((c.provenance.review as { ok?: unknown } | undefined)?.ok !== false) memory.remember(row, plan.fingerprints, c.locale, c.text);
    }
    outcome.held = written.pending.length;
    outcome.lost = written.lost.length;
    return outcome;
  }

  /** The locales to fill: `locales` as asked (the source excluded), else every active locale but the source. */
  private async targets(requested?: readonly string[]): Promise<Map<string, TargetLocale>> {
    const source = this.config.sourceLocale;
    const registry = await this.locales.list(requested ? {} : { active: true });
    const known = new Map(registry.map((l) => [l.code, l]));
    const codes = requested ? [...new Set(requested)].filter((c) => LOCALE_CODE_PATTERN.test(c)) : registry.map((l) => l.code);
    const out = new Map<string, TargetLocale>();
    for (const code of codes) {
      if (code === source) continue;
      out.set(code, { code, language: languageTag(known.get(code) ?? { code }) });
    }
    return out;
  }

  private async selectRows(request: FillRequest): Promise<TranslationRow[]> {
    if (request.keys?.length) {
      const rows = await this.rows.findByKeys(request.keys, request.ns);
      return request.prefix ? rows.filter((r) => r.key.startsWith(request.prefix!)) : rows;
    }
    if (!request.allKeys && !request.prefix) return [];
    return this.rows.list({ ...(request.ns !== undefined ? { ns: request.ns } : {}), ...(request.prefix ? { prefix: request.prefix } : {}) }, Number.MAX_SAFE_INTEGER);
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

function reviewRecord(v: ReviewVerdict, reviewer?: string): Record<string, unknown> {
  return { ok: v.ok, ...(v.reason ? { reason: v.reason } : {}), ...(v.suggestion ? { suggestion: v.suggestion } : {}), ...(reviewer ? { reviewer } : {}) };
}
