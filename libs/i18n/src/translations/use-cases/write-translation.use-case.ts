import { Inject, Injectable } from '@nestjs/common';
import type { I18nKeyChangeReason } from '@flowplane/contracts';
import { I18nConfig } from '../../i18n.config';
import type { CellWrite, TranslationRow } from '../domain/translation-row.entity';
import { I18nOutbox } from '../persistence/i18n.outbox';
import { TranslationRepository } from '../persistence/translation.repository';
import { I18nInstance } from './instance-id';

/** One row write: cells to set or remove, and optionally the translator note. */
export interface TranslationWrite {
  ns: string;
  key: string;
  cells: CellWrite[];
  /** New translator note; null removes it; undefined leaves it. */
  context?: string | null;
  /** Leave cells whose text is unchanged untouched (their provenance and times stay): whole-row saves. */
  skipUnchanged?: boolean;
  /** Create the key even when no cell is written (admin create of an untranslated key). */
  ensureRow?: boolean;
}

/** What a row write did. */
export interface TranslationWriteResult {
  row: TranslationRow | null;
  created: boolean;
  /** Locales whose text changed. */
  changed: string[];
  contextChanged: boolean;
}

type WrittenListener = (ns: string, locale: string) => void;

/**
 * Writes translation cells (PUT /admin/i18n/messages, POST /admin/i18n/translations, Upsert, imports)
 * and announces them in the same transaction: `i18n.updated` for every (ns, locale) bucket whose text
 * changed, and `i18n.keys_changed` exactly when automatic translation rule 4 says: a key added, the
 * source-language text changed, or the translator note changed; never for another locale's text.
 */
@Injectable()
export class WriteTranslationUseCase {
  private readonly listeners = new Set<WrittenListener>();

  constructor(
    @Inject(TranslationRepository) private readonly repository: TranslationRepository,
    @Inject(I18nOutbox) private readonly outbox: I18nOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
  ) {}

  /** Calls `listener` once a write to (ns, locale) committed (the local cache drops that bucket). */
  onWritten(listener: WrittenListener): void {
    this.listeners.add(listener);
  }

  async execute(write: TranslationWrite): Promise<TranslationWriteResult> {
    const now = new Date();
    const result = await this.outbox.transaction(async (session) => {
      const address = { ns: write.ns, key: write.key };
      let cells = write.cells;
      if (write.skipUnchanged) {
        const existing = await this.repository.find(address, session);
        cells = cells.filter((c) => (existing?.translations[c.locale] ?? null) !== c.value);
      }
      let row: TranslationRow | null = null;
      let created = false;
      let changed: string[] = [];
      if (cells.length) ({ row, created, changed } = await this.repository.writeCells(address, cells, now, session));
      let contextChanged = false;
      if ((write.ensureRow || write.context !== undefined) && !row && !(await this.repository.find(address, session))) {
        // A note (or an admin create) for a key that does not exist yet creates the key.
        ({ row, created } = await this.repository.writeCells(address, [], now, session));
      }
      if (write.context !== undefined) {
        contextChanged = await this.repository.setContext(address, write.context === '' ? null : write.context, now, session);
      }
      row = await this.repository.find(address, session);
      for (const locale of changed) {
        await this.outbox.announceUpdated(session, { ns: write.ns, locale, keys: [write.key], all: false, instanceId: this.instance.id });
      }
      const reason: I18nKeyChangeReason | undefined = created
        ? 'added'
        : changed.includes(this.config.sourceLocale)
          ? 'source_changed'
          : contextChanged
            ? 'context_changed'
            : undefined;
      if (reason) await this.outbox.announceKeysChanged(session, write.ns, [write.key], reason);
      return { row, created, changed, contextChanged };
    });
    this.notify(write.ns, result.changed);
    return result;
  }

  /** Removes one cell and announces its bucket; false when there was none. */
  async deleteCell(ns: string, key: string, locale: string): Promise<boolean> {
    const deleted = await this.outbox.transaction(async (session) => {
      const gone = await this.repository.deleteCell({ ns, key }, locale, new Date(), session);
      if (gone) await this.outbox.announceUpdated(session, { ns, locale, keys: [key], all: false, instanceId: this.instance.id });
      return gone;
    });
    if (deleted) this.notify(ns, [locale]);
    return deleted;
  }

  /** Tells the local cache about writes made outside this use case (report-keys, imports). */
  notify(ns: string, locales: Iterable<string>): void {
    for (const locale of locales) for (const l of this.listeners) l(ns, locale);
  }
}
