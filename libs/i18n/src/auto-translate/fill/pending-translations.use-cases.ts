import { Inject, Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { decodeCursor, encodeCursor } from '../../translations/domain/cursor';
import { localeChain } from '../../translations/domain/locale-chain';
import type { PendingEntry, ProvenanceEntry, TranslationRow } from '../../translations/domain/translation-row.entity';
import { presentRow } from '../../translations/domain/translation.presenter';
import type { TranslationRowViewDto } from '../../translations/dto/translation-row.dto';
import { expectationOf, TranslationRepository } from '../../translations/persistence/translation.repository';
import { fingerprintsOf } from './fill-selection';
import { MachineTranslationWriter } from './machine-translation.writer';

/** 404 of approve and reject when the locale holds no candidate. */
export class NothingHeldException extends DomainException {
  constructor(ns: string, key: string, locale: string) {
    super('I18N_NOTHING_HELD', 404, `nothing is held for key "${key}" in locale "${locale}"${ns ? ` of namespace "${ns}"` : ''}`);
  }
}

/** What readers of a locale see now: the live text, else the fallback chain's, else the key itself (locale null). */
export interface ReaderView {
  text: string;
  locale: string | null;
}

export interface PendingItemEntry {
  status: PendingEntry['status'];
  candidate: string;
  by?: string;
  review?: Record<string, unknown>;
  at: string;
  /** The source or note changed since the candidate was made: it no longer blocks translation. */
  released: boolean;
  readersSee: ReaderView;
}

export interface PendingItem {
  ns: string;
  key: string;
  context?: string;
  source: { locale: string; text: string | null };
  entries: Record<string, PendingItemEntry>;
}

export interface PendingPage {
  items: PendingItem[];
  nextCursor: string | null;
}

/**
 * The review queue of catalog keys: held and rejected candidates beside the source and what readers
 * see now; approve publishes one (as machine text, or as human text when edited), reject keeps it
 * out until the source or the note changes (rule 6).
 */
@Injectable()
export class PendingTranslationsUseCases {
  constructor(
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(MachineTranslationWriter) private readonly writer: MachineTranslationWriter,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async list(q: { ns?: string; cursor?: string; limit?: number }): Promise<PendingPage> {
    const limit = q.limit ?? 100;
    const after = q.cursor ? decodeCursor(q.cursor, 2) : undefined;
    const rows = await this.rows.listPending({ ...(q.ns !== undefined ? { ns: q.ns } : {}), ...(after ? { after: { ns: after[0], key: after[1] } } : {}) }, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map((r) => this.present(r)), nextCursor: rows.length > limit && last ? encodeCursor([last.ns, last.key]) : null };
  }

  async approve(req: { ns?: string; key: string; locale: string; text?: string }, by?: string): Promise<TranslationRowViewDto> {
    const ns = req.ns ?? '';
    const { row, entry } = await this.held(ns, req.key, req.locale);
    const at = new Date().toISOString();
    const edited = req.text !== undefined && req.text !== entry.text;
    const provenance: ProvenanceEntry = edited
      ? { source: 'human', at, ...(by ? { by } : {}) }
      : {
          source: 'machine',
          by: entry.by ?? 'unknown',
          at,
          ...(entry.source_hash ? { source_hash: entry.source_hash } : {}),
          ...(entry.context_hash ? { context_hash: entry.context_hash } : {}),
          review: { ...(entry.review ?? {}), approved: true, ...(by ? { by } : {}) },
        };
    const text = edited ? req.text! : entry.text;
    const result = await this.writer.writeKey(ns, req.key, [{ locale: req.locale, text, provenance, expected: expectationOf(row, req.locale) }]);
    if (!result.written.length) throw new NothingHeldException(ns, req.key, req.locale);
    return presentRow((await this.rows.find({ ns, key: req.key }))!);
  }

  async reject(req: { ns?: string; key: string; locale: string; reason?: string }, by?: string): Promise<TranslationRowViewDto> {
    const ns = req.ns ?? '';
    const { row, entry } = await this.held(ns, req.key, req.locale);
    const rejected: PendingEntry = {
      ...entry,
      status: 'rejected',
      review: { ...(entry.review ?? {}), rejected: { at: new Date().toISOString(), ...(by ? { by } : {}), ...(req.reason ? { reason: req.reason } : {}) } },
    };
    const result = await this.writer.writeKey(ns, req.key, [], [{ locale: req.locale, entry: rejected, expected: expectationOf(row, req.locale) }]);
    if (!result.pending.length) throw new NothingHeldException(ns, req.key, req.locale);
    return presentRow((await this.rows.find({ ns, key: req.key }))!);
  }

  private async held(ns: string, key: string, locale: string): Promise<{ row: TranslationRow; entry: PendingEntry }> {
    const row = await this.rows.find({ ns, key });
    const entry = row?.pending[locale];
    if (!row || !entry || entry.status !== 'held') throw new NothingHeldException(ns, key, locale);
    return { row, entry };
  }

  private present(row: TranslationRow): PendingItem {
    const source = this.config.sourceLocale;
    const fp = fingerprintsOf(row, source);
    const entries: Record<string, PendingItemEntry> = {};
    for (const [locale, p] of Object.entries(row.pending).sort(([a], [b]) => a.localeCompare(b))) {
      entries[locale] = {
        status: p.status,
        candidate: p.text,
        ...(p.by ? { by: p.by } : {}),
        ...(p.review ? { review: p.review } : {}),
        at: p.at,
        released: p.source_hash !== fp.sourceHash || p.context_hash !== fp.contextHash,
        readersSee: this.readersSee(row, locale),
      };
    }
    return {
      ns: row.ns,
      key: row.key,
      ...(row.context !== undefined ? { context: row.context } : {}),
      source: { locale: source, text: row.translations[source] ?? null },
      entries,
    };
  }

  private readersSee(row: TranslationRow, locale: string): ReaderView {
    for (const l of localeChain(locale, this.config.fallbackLocale, this.config.defaultLocale)) {
      const text = row.translations[l];
      if (text !== undefined && text !== '') return { text, locale: l };
    }
    return { text: row.key, locale: null };
  }
}
