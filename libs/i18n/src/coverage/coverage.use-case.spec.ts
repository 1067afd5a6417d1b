import type { TranslationRow } from '../translations/domain/translation-row.entity';
import { countCoverage, isStale } from './coverage.use-case';
import { fingerprint } from './fingerprint';

function row(key: string, translations: Record<string, string>, extra: Partial<TranslationRow> = {}): TranslationRow {
  const at = new Date();
  return { id: key, ns: 'ui', key, translations, provenance: {}, pending: {}, modules: [], stamps: {}, createdAt: at, updatedAt: at, ...extra };
}

const at = '2026-01-01T00:00:00.000Z';

describe('coverage counts', () => {
  it('marks machine text stale when the source or the note moved, never text without fingerprints', () => {
    const r = row('a', { en: 'Hello', pl: 'Cześć' }, { context: 'greeting', provenance: { pl: { source: 'machine', at, source_hash: fingerprint('Hello'), context_hash: fingerprint('greeting') } } });
    expect(isStale(r, 'pl', 'en')).toBe(false);
    expect(isStale({ ...r, translations: { en: 'Hi', pl: 'Cześć' } }, 'pl', 'en')).toBe(true);
    expect(isStale({ ...r, context: 'farewell' }, 'pl', 'en')).toBe(true);
    expect(isStale({ ...r, provenance: { pl: { source: 'machine', at } }, translations: { en: 'Hi', pl: 'Cześć' } }, 'pl', 'en')).toBe(false);
    expect(isStale({ ...r, provenance: { pl: { source: 'human', at, source_hash: 'x' } } }, 'pl', 'en')).toBe(false);
  });

  it('counts only the locale itself (no fallback), pending entries apart from texts', () => {
    const rows = [
      row('a', { en: 'A', pl: 'A1' }, { provenance: { pl: { source: 'human', at } } }),
      row('b', { en: 'B' }, { pending: { pl: { text: 'B1', status: 'held', at } } }),
      row('c', { en: 'C', pl: 'C1' }, { provenance: { pl: { source: 'machine', at, source_hash: fingerprint('old') } } }),
      row('d', { en: 'D', pl: 'D1' }),
    ];
    expect(countCoverage(rows, 'pl', 'en')).toEqual({ keys: 4, translated: 3, machine: 1, human: 1, stale: 1, pending: 1 });
    expect(countCoverage(rows, 'de', 'en')).toEqual({ keys: 4, translated: 0, machine: 0, human: 0, stale: 0, pending: 0 });
  });
});
