import { Inject, Injectable } from '@nestjs/common';
import { DomainException, type FieldProblem } from '@flowplane/platform/http';
import { validate } from '../auto-translate/engine/format-signature';
import { I18nConfig } from '../i18n.config';
import { languageTag } from '../locales/domain/language-tag';
import { LOCALE_CODE_PATTERN } from '../locales/domain/locale.entity';
import { LocaleRepository } from '../locales/persistence/locale.repository';
import type { TranslationRow } from '../translations/domain/translation-row.entity';
import { TranslationRepository } from '../translations/persistence/translation.repository';
import { WriteTranslationUseCase } from '../translations/use-cases/write-translation.use-case';
import { fromJsonValue } from './json.format';
import { comparableSource, parseTransfer, serialize } from './transfer.formats';
import { TransferFormatError, type ParsedTransfer, type TransferDocument, type TransferFormat } from './transfer.model';

/** Longest key an import accepts (the limit of report-keys). */
const MAX_KEY_LENGTH = 200;
/** Longest value an import accepts. */
const MAX_VALUE_LENGTH = 10_000;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why an imported value is not written without `force=true`. */
export type ConflictReason = 'pending_review' | 'changed_since_export' | 'source_changed';

export interface ImportConflict {
  key: string;
  reasons: ConflictReason[];
  current: string;
  imported: string;
}

/** An imported text that breaks its source's format (the check machine translation passes, rule 10). */
export interface BrokenCell {
  key: string;
  /** What breaks: "placeholder {cart} missing", "template field {{ .Name }} missing", "dropped closing </b>". */
  reason: string;
  /** The source-locale text it was checked against. */
  source: string;
  imported: string;
  /** Written anyway because of `force=true` (always false on a dry run). */
  written: boolean;
}

export interface ImportReport {
  dryRun: boolean;
  format: TransferFormat;
  ns: string;
  locale: string;
  /** Translations the locale did not have (new keys included), written or, on a dry run, to be written. */
  created: number;
  /** Translations whose text changes. */
  updated: number;
  unchanged: number;
  /** Entries the file leaves untranslated (empty target, fuzzy): never imported. */
  untranslated: number;
  /** Conflicts left alone (without `force=true`). */
  conflicts: ImportConflict[];
  /** Conflicts written (on a dry run: to be written) because of `force=true`; counted in created or updated. */
  overridden: ImportConflict[];
  /** Every changed text that breaks its source's format; written only with `force=true`. */
  broken: BrokenCell[];
  /** Texts written only because of `force=true`, overridden conflicts and broken texts alike (0 on a dry run). */
  forced: number;
}

export interface ImportRequest {
  format: TransferFormat;
  ns: string;
  locale?: string;
  /** The file's text, or the document the platform's JSON parser already read. */
  body: string | unknown;
  apply: boolean;
  force: boolean;
  since?: Date;
  by: string;
}

export function formatError(error: TransferFormatError): DomainException {
  const where = error.line !== undefined ? { line: error.line, ...(error.column !== undefined ? { column: error.column } : {}) } : {};
  return new DomainException('I18N_INVALID_FILE', 400, `not a valid ${error.format === 'po' ? 'PO' : error.format.toUpperCase()} translation file: ${error.message}`, {
    details: { format: error.format, ...where },
  });
}

function invalid(field: string, problem: string): DomainException {
  const details: FieldProblem[] = [{ field, problems: [problem] }];
  return new DomainException('I18N_INVALID_INPUT', 400, `invalid input: ${field}`, { details });
}

function checkLocale(locale: string, field: string): void {
  if (!LOCALE_CODE_PATTERN.test(locale)) throw invalid(field, 'must be a locale code (letters and digits in -/_ separated parts)');
}

/** Writes a translation file of one (namespace, locale): the raw namespaced form, no fallback. */
@Injectable()
export class ExportTranslationsUseCase {
  constructor(
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async execute(format: TransferFormat, ns: string, locale: string, nested: boolean): Promise<{ body: string; exportedAt: string }> {
    checkLocale(locale, 'locale');
    const exportedAt = new Date().toISOString();
    const source = this.config.sourceLocale;
    const doc: TransferDocument = {
      ns,
      locale,
      sourceLocale: source,
      exportedAt,
      entries: (await this.rows.all(ns)).map((row) => ({
        key: row.key,
        ...(row.translations[locale] !== undefined ? { value: row.translations[locale] } : {}),
        ...(row.translations[source] !== undefined ? { source: row.translations[source] } : {}),
        ...(row.context ? { note: row.context } : {}),
      })),
    };
    try {
      return { body: await serialize(format, doc, { nested }), exportedAt };
    } catch (error) {
      if (error instanceof TransferFormatError) throw new DomainException('I18N_EXPORT_CONFLICT', 409, error.message);
      throw error;
    }
  }
}

/**
 * Reads a translation file into one (namespace, locale). A dry run unless `apply`; every written
 * text gets provenance `human`. New keys are created with the file's source text and note (a bulk
 * registration: `i18n.keys_changed` with reason `added`); a file in the source locale changes
 * source texts (`source_changed`). Conflicts, and texts that break the source's format signature
 * (placeholders, Go-template fields, ICU structure and the target's plural categories, HTML tags and
 * their attributes), are reported and left alone unless `force`.
 */
@Injectable()
export class ImportTranslationsUseCase {
  constructor(
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
  ) {}

  async execute(req: ImportRequest): Promise<ImportReport> {
    const parsed = await this.parse(req);
    const locale = req.locale ?? parsed.locale;
    if (!locale) throw invalid('locale', `the ${req.format} file names no target locale: pass ?locale=`);
    checkLocale(locale, 'locale');
    if (req.locale && parsed.locale && parsed.locale !== req.locale) {
      throw invalid('locale', `?locale=${req.locale} differs from the file's target locale ${parsed.locale}`);
    }
    this.validate(parsed);
    const sinceText = parsed.exportedAt;
    const since = req.since ?? (sinceText && !Number.isNaN(Date.parse(sinceText)) ? new Date(sinceText) : undefined);
    const sourceLocale = this.config.sourceLocale;
    const existing = await this.rows.findMany(req.ns, [...new Set(parsed.entries.map((e) => e.key))]);
    // The target's plural categories come from its language (catalog rule 10: the registry's, else the alias table).
    const language = languageTag((await this.locales.find(locale)) ?? { code: locale });

    const report: ImportReport = {
      dryRun: !req.apply, format: req.format, ns: req.ns, locale, created: 0, updated: 0, unchanged: 0, untranslated: 0, conflicts: [], overridden: [], broken: [], forced: 0,
    };
    const writes: { key: string; value: string; row?: TranslationRow; source?: string; note?: string }[] = [];
    const seen = new Set<string>();
    for (const entry of parsed.entries) {
      if (seen.has(entry.key)) continue;
      seen.add(entry.key);
      if (entry.value === undefined) {
        report.untranslated++;
        continue;
      }
      const row = existing.get(entry.key);
      const current = row?.translations[locale];
      if (current === entry.value) {
        report.unchanged++;
        continue;
      }
      const reasons: ConflictReason[] = [];
      if (row?.pending[locale]) reasons.push('pending_review');
      const prov = row?.provenance[locale];
      if (since && current !== undefined && prov?.source === 'human' && Date.parse(prov.at) > since.getTime()) reasons.push('changed_since_export');
      if (row && entry.source !== undefined && locale !== sourceLocale && comparableSource(req.format, row.translations[sourceLocale], row.key) !== entry.source) {
        reasons.push('source_changed');
      }
      // A human text is served as it is, so it must keep what the source's readers rely on, as a
      // machine one must: checked against the stored source, or for a new key the file's own.
      const source = locale === sourceLocale ? undefined : (row?.translations[sourceLocale] ?? entry.source);
      const brokenReason = source !== undefined ? validate(source, entry.value, { language }) : undefined;
      const conflict = reasons.length ? { key: entry.key, reasons, current: current ?? '', imported: entry.value } : undefined;
      const broken = brokenReason !== undefined && source !== undefined ? { key: entry.key, reason: brokenReason, source, imported: entry.value, written: false } : undefined;
      if (broken) report.broken.push(broken);
      if (conflict || broken) {
        if (!req.force) {
          if (conflict) report.conflicts.push(conflict);
          continue;
        }
        if (conflict) report.overridden.push(conflict);
        if (broken) broken.written = req.apply;
        if (req.apply) report.forced++;
      }
      if (current !== undefined) report.updated++;
      else report.created++;
      writes.push({ key: entry.key, value: entry.value, row, source: entry.source, note: entry.note });
    }
    if (!req.apply) return report;

    const at = new Date().toISOString();
    for (const w of writes) {
      const cells = [{ locale, value: w.value, provenance: { source: 'human' as const, by: req.by, at } }];
      // A new key brings its source text and note along; existing keys keep theirs (translators do not edit the source).
      if (!w.row && w.source !== undefined && locale !== sourceLocale) cells.push({ locale: sourceLocale, value: w.source, provenance: { source: 'human', by: req.by, at } });
      await this.writer.execute({ ns: req.ns, key: w.key, cells, ...(!w.row && w.note ? { context: w.note } : {}) });
    }
    return report;
  }

  private async parse(req: ImportRequest): Promise<ParsedTransfer> {
    try {
      if (typeof req.body !== 'string') {
        if (req.format !== 'json') throw invalid('format', `a JSON body cannot be read as ${req.format}`);
        return fromJsonValue(req.body);
      }
      return await parseTransfer(req.format, req.body, req.locale);
    } catch (error) {
      if (error instanceof TransferFormatError) throw formatError(error);
      throw error;
    }
  }

  private validate(parsed: ParsedTransfer): void {
    const problems: FieldProblem[] = [];
    for (const e of parsed.entries) {
      if (problems.length >= 20) break;
      if (!e.key || e.key.length > MAX_KEY_LENGTH || CONTROL.test(e.key)) {
        problems.push({ field: `key ${JSON.stringify(e.key.slice(0, 60))}`, problems: [`a key is 1-${MAX_KEY_LENGTH} characters without control characters`] });
      } else if ((e.value?.length ?? 0) > MAX_VALUE_LENGTH || (e.source?.length ?? 0) > MAX_VALUE_LENGTH) {
        problems.push({ field: `key ${JSON.stringify(e.key)}`, problems: [`a text is at most ${MAX_VALUE_LENGTH} characters`] });
      }
    }
    if (problems.length) throw new DomainException('I18N_INVALID_INPUT', 400, `invalid input: ${problems.map((p) => p.field).join(', ')}`, { details: problems });
  }
}
