import { Inject, Injectable } from '@nestjs/common';
import { LocaleRepository } from '../locales/persistence/locale.repository';
import type { TranslationRow } from '../translations/domain/translation-row.entity';
import { TranslationRepository } from '../translations/persistence/translation.repository';
import { I18nConfig } from '../i18n.config';
import { fingerprint } from './fingerprint';

export interface CoverageCounts {
  keys: number;
  translated: number;
  machine: number;
  human: number;
  stale: number;
  pending: number;
}

export interface CoverageItem extends CoverageCounts {
  ns: string;
  locale: string;
  /** Each count as a percentage of `keys`, one decimal (0 when the namespace has no keys). */
  percent: Omit<CoverageCounts, 'keys'>;
}

/**
 * A machine translation is stale when its fingerprints no longer match the row's source text or
 * note (automatic translation rule 3); text without fingerprints is never stale.
 */
export function isStale(row: TranslationRow, locale: string, sourceLocale: string): boolean {
  const p = row.provenance[locale];
  if (!p || p.source !== 'machine' || locale === sourceLocale) return false;
  if (p.source_hash && p.source_hash !== fingerprint(row.translations[sourceLocale] ?? '')) return true;
  return Boolean(p.context_hash && p.context_hash !== fingerprint(row.context ?? ''));
}

/** Counts of one namespace in one locale, on the raw namespaced form (catalog rule 6: no fallback). */
export function countCoverage(rows: TranslationRow[], locale: string, sourceLocale: string): CoverageCounts {
  const c: CoverageCounts = { keys: rows.length, translated: 0, machine: 0, human: 0, stale: 0, pending: 0 };
  for (const row of rows) {
    if (row.pending[locale]) c.pending++;
    const text = row.translations[locale];
    if (text === undefined || text === '') continue;
    c.translated++;
    const source = row.provenance[locale]?.source;
    if (source === 'machine') c.machine++;
    else if (source === 'human') c.human++;
    if (isStale(row, locale, sourceLocale)) c.stale++;
  }
  return c;
}

function percent(n: number, of: number): number {
  return of === 0 ? 0 : Math.round((n * 1000) / of) / 10;
}

/** Translation coverage per namespace and locale (every active locale and every locale holding text). */
@Injectable()
export class CoverageUseCase {
  constructor(
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async execute(filter: { ns?: string; locale?: string }): Promise<CoverageItem[]> {
    const rows = await this.rows.all(filter.ns);
    const byNs = new Map<string, TranslationRow[]>();
    if (filter.ns !== undefined) byNs.set(filter.ns, []);
    for (const row of rows) {
      const list = byNs.get(row.ns) ?? [];
      list.push(row);
      byNs.set(row.ns, list);
    }
    let locales: string[];
    if (filter.locale !== undefined) locales = [filter.locale];
    else {
      const set = new Set((await this.locales.list({ active: true })).map((l) => l.code));
      for (const row of rows) for (const l of Object.keys(row.translations)) set.add(l);
      locales = [...set].sort();
    }
    const items: CoverageItem[] = [];
    for (const ns of [...byNs.keys()].sort()) {
      for (const locale of locales) {
        const c = countCoverage(byNs.get(ns)!, locale, this.config.sourceLocale);
        items.push({
          ns,
          locale,
          ...c,
          percent: {
            translated: percent(c.translated, c.keys),
            machine: percent(c.machine, c.keys),
            human: percent(c.human, c.keys),
            stale: percent(c.stale, c.keys),
            pending: percent(c.pending, c.keys),
          },
        });
      }
    }
    return items;
  }
}
