import { createHash } from 'node:crypto';
import { cellState, fillUntilDone, filterRows, type FillReport, rowSaveBody, sha256Hex, type TranslationRow } from './catalog-grid';

const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

const row = (over: Partial<TranslationRow> = {}): TranslationRow => ({
  ns: 'shop',
  key: 'pay',
  translations: { en: 'Pay', de: '[de] Pääy', pl: 'Zapłać' },
  provenance: {
    en: { source: 'human', by: 'alice' },
    de: { source: 'machine', by: 'local/local-echo', source_hash: sha('Pay'), context_hash: sha('') },
    pl: { source: 'human', by: 'bob' },
  },
  pending: {},
  modules: [],
  ...over,
});

describe('catalog grid', () => {
  it('calls a machine cell stale once the source text or the note moved, as the server does', () => {
    expect(cellState(row(), 'de', 'en', sha)).toMatchObject({ stale: false, source: 'machine', missing: false });
    expect(cellState(row({ translations: { en: 'Pay now', de: 'x' } }), 'de', 'en', sha).stale).toBe(true);
    expect(cellState(row({ context: 'Button' }), 'de', 'en', sha).stale).toBe(true);
    // Human text is never stale; without hashes (no SubtleCrypto) nothing is called stale.
    expect(cellState(row({ translations: { en: 'Pay now', pl: 'Zapłać' } }), 'pl', 'en', sha).stale).toBe(false);
    expect(cellState(row({ translations: { en: 'Pay now', de: 'x' } }), 'de', 'en', () => undefined).stale).toBe(false);
  });

  it('keeps the rows with a cell in the filtered state among the shown locales', () => {
    const rows = [row(), row({ key: 'gone', translations: { en: 'Gone' }, provenance: {} }), row({ key: 'held', pending: { de: { candidate: 'x' } } })];
    const keys = (f: Parameters<typeof filterRows>[1], locales = ['en', 'de', 'pl']) => filterRows(rows, f, locales, 'en', sha).map((r) => r.key);
    expect(keys('all')).toEqual(['pay', 'gone', 'held']);
    expect(keys('missing')).toEqual(['gone']);
    expect(keys('pending')).toEqual(['held']);
    expect(keys('machine')).toEqual(['pay', 'held']);
    expect(keys('human', ['pl'])).toEqual(['pay', 'held']);
    expect(keys('human', ['de'])).toEqual([]);
    expect(cellState(rows[1], 'en', 'en', sha).source).toBe('unknown');
  });

  it('sends only the locales whose text changed, an emptied one as empty, and the note only when changed', () => {
    expect(rowSaveBody(row(), { en: 'Pay', de: '[de] Pääy', pl: 'Zapłać' }, '')).toBeUndefined();
    expect(rowSaveBody(row(), { en: 'Pay', de: 'Bezahlen', pl: 'Zapłać' }, '')).toEqual({ ns: 'shop', key: 'pay', translations: { de: 'Bezahlen' } });
    expect(rowSaveBody(row(), { en: 'Pay', de: '', pl: 'Zapłać', fr: '' }, 'Button')).toEqual({ ns: 'shop', key: 'pay', translations: { de: '' }, context: 'Button' });
  });

  it('re-runs translate-missing until a call processes no key, summing what was filled', async () => {
    const answers: Array<Partial<FillReport>> = [
      { keysProcessed: 50, localesFilled: 90, remaining: 20, failed: [{ key: 'a', locale: 'de', reason: 'timeout' }] },
      { keysProcessed: 20, localesFilled: 39, remaining: 0, held: 1, failed: [] },
      { keysProcessed: 0, remaining: 0, failed: [] },
    ];
    const seen: number[] = [];
    let i = 0;
    const step = async (): Promise<FillReport> => ({ keysProcessed: 0, localesFilled: 0, skippedProtected: 0, held: 0, failed: [], remaining: 0, memoryHits: 0, missingSource: 0, ...answers[i++] });
    const done = await fillUntilDone(step, (p) => seen.push(p.remaining));
    expect(done).toMatchObject({ calls: 3, keysProcessed: 70, localesFilled: 129, held: 1, failed: [], done: true });
    expect(seen).toEqual([20, 0, 0]);
    // A cap on calls stops a loop that never ends, reporting it as not done.
    const endless = await fillUntilDone(async () => ({ keysProcessed: 1, localesFilled: 1, skippedProtected: 0, held: 0, failed: [], remaining: 5, memoryHits: 0, missingSource: 0 }), () => undefined, { maxCalls: 4 });
    expect(endless).toMatchObject({ calls: 4, done: false, remaining: 5 });
  });

  it('hashes texts as the server fingerprints them', async () => {
    const m = await sha256Hex(['Pay', 'Zażółć']);
    expect(m.get('Pay')).toBe(sha('Pay'));
    expect(m.get('Zażółć')).toBe(sha('Zażółć'));
  });
});
