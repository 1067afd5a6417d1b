import type { TranslationRow } from '../../translations/domain/translation-row.entity';
import { type RowFingerprints, fingerprintsOf, isStaleMachine, writtenBefore } from './fill-selection';

/**
 * Translation memory of one fill run: the live translations of identical source text with the same
 * translator note, from any namespace (a namespace groups keys, it does not change what a sentence
 * means; the note does, which is why it is part of the match). Only text that can be trusted is
 * reused: human text, and machine text that is current (not stale) and was not flagged by the
 * reviewer. Text of unknown origin, code/seed text and held candidates are never reused.
 */
export class TranslationMemory {
  /** Memory key to the reusable texts, each with the row it lives on (human text first). */
  private readonly texts = new Map<string, Array<{ text: string; origin: string; human: boolean }>>();

  /** `machineNotBefore` (epoch ms): machine text written before it is not reused (an overwrite pass is replacing it). */
  constructor(
    private readonly sourceLocale: string,
    private readonly machineNotBefore?: number,
  ) {}

  /** Adds every reusable translation of `row`. */
  learn(row: TranslationRow): void {
    const source = row.translations[this.sourceLocale];
    if (source === undefined || source.trim() === '') return;
    const fp = fingerprintsOf(row, this.sourceLocale);
    for (const [locale, text] of Object.entries(row.translations)) {
      if (locale === this.sourceLocale || text === '') continue;
      const p = row.provenance[locale];
      if (!p) continue;
      const reusable =
        p.source === 'human' ||
        (p.source === 'machine' &&
          Boolean(p.source_hash) &&
          !isStaleMachine(row, locale, fp) &&
          (p.review as { ok?: unknown } | undefined)?.ok !== false &&
          (this.machineNotBefore === undefined || !writtenBefore(p, this.machineNotBefore)));
      if (reusable) this.add(memoryKey(fp, locale), { text, origin: originOf(row), human: p.source === 'human' });
    }
  }

  /** A reusable text for `locale` from another row than `row` (a cell is never its own memory: overwrite must replace it). */
  lookup(row: Pick<TranslationRow, 'ns' | 'key'>, fp: RowFingerprints, locale: string): string | undefined {
    const origin = originOf(row);
    return this.texts.get(memoryKey(fp, locale))?.find((t) => t.origin !== origin)?.text;
  }

  /** Records a translation this run wrote live, for the keys after it with the same source and note. */
  remember(row: Pick<TranslationRow, 'ns' | 'key'>, fp: RowFingerprints, locale: string, text: string): void {
    this.add(memoryKey(fp, locale), { text, origin: originOf(row), human: false });
  }

  private add(k: string, entry: { text: string; origin: string; human: boolean }): void {
    const list = this.texts.get(k) ?? [];
    if (list.some((t) => t.origin === entry.origin)) return;
    // Human text wins over machine text of the same source.
    if (entry.human) list.unshift(entry);
    else list.push(entry);
    this.texts.set(k, list);
  }

  get size(): number {
    return this.texts.size;
  }
}

function originOf(row: Pick<TranslationRow, 'ns' | 'key'>): string {
  return `${row.ns}\u0000${row.key}`;
}

function memoryKey(fp: RowFingerprints, locale: string): string {
  return `${fp.sourceHash}:${fp.contextHash}:${locale}`;
}
