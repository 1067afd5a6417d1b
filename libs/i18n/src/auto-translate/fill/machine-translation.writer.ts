import { Inject, Injectable } from '@nestjs/common';
import type { PendingEntry, ProvenanceEntry } from '../../translations/domain/translation-row.entity';
import { I18nOutbox } from '../../translations/persistence/i18n.outbox';
import { type CellExpectation, TranslationRepository } from '../../translations/persistence/translation.repository';
import { I18nInstance } from '../../translations/use-cases/instance-id';
import { WriteTranslationUseCase } from '../../translations/use-cases/write-translation.use-case';

/** A locale to write live, with the state of the cell it replaces. */
export interface LiveCell {
  locale: string;
  text: string;
  provenance: ProvenanceEntry;
  expected: CellExpectation;
}

/** A candidate to hold (or a held one to mark rejected), with the state of the cell it expects. */
export interface PendingCell {
  locale: string;
  entry: PendingEntry;
  expected: CellExpectation;
}

export interface KeyWriteResult {
  /** Locales written live by this call. */
  written: string[];
  /** Locales whose pending entry this call set. */
  pending: string[];
  /** Locales somebody else wrote first (compare-and-set lost): done, not failed. */
  lost: string[];
}

/**
 * Writes the outcome of translating one key: each live locale with its provenance in one
 * conditional update (rules 2 and 6: the pending entry cleared too), each held candidate in its
 * pending entry, all in one transaction with the `i18n.updated` broadcast of every bucket whose
 * text changed. It never announces `i18n.keys_changed` (rule 4: a translation write is not a work
 * signal, so a translating flow cannot wake itself).
 */
@Injectable()
export class MachineTranslationWriter {
  constructor(
    @Inject(TranslationRepository) private readonly repository: TranslationRepository,
    @Inject(I18nOutbox) private readonly outbox: I18nOutbox,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
    @Inject(WriteTranslationUseCase) private readonly writer: WriteTranslationUseCase,
  ) {}

  async writeKey(ns: string, key: string, live: readonly LiveCell[], pending: readonly PendingCell[] = []): Promise<KeyWriteResult> {
    if (!live.length && !pending.length) return { written: [], pending: [], lost: [] };
    const address = { ns, key };
    const result = await this.outbox.transaction(async (session) => {
      // The store may run this callback again after a write conflict: start from nothing each time.
      const out: KeyWriteResult = { written: [], pending: [], lost: [] };
      const now = new Date();
      for (const c of live) {
        if (await this.repository.setCellIf(address, c.locale, c.expected, c.text, c.provenance, now, session)) {
          out.written.push(c.locale);
          await this.outbox.announceUpdated(session, { ns, locale: c.locale, keys: [key], all: false, instanceId: this.instance.id });
        } else out.lost.push(c.locale);
      }
      for (const c of pending) {
        if (await this.repository.setPendingIf(address, c.locale, c.expected, c.entry, now, session)) out.pending.push(c.locale);
        else out.lost.push(c.locale);
      }
      return out;
    });
    this.writer.notify(ns, result.written);
    return result;
  }
}
