import { pageUnits } from './content.entity';
import {
  approvePending,
  EMPTY_STATE,
  hashSource,
  holdPending,
  isStale,
  localeState,
  markTranslated,
  reconcileUnits,
  rejectPending,
  type SourceUnit,
  sourceHashOf,
  type TranslationState,
  unitHash,
  unitsNeedingWork,
  type UnitTexts,
} from './translation-state';

const textsOf = (m: Record<string, Record<string, string>>): UnitTexts => (unit, locale) => m[unit]?.[locale];
const src = (m: Record<string, Record<string, string>>, hashed = true): SourceUnit[] => Object.keys(m).map((unit) => ({ unit, text: m[unit].en ?? '', hashed }));
const fresh = (): TranslationState => ({ ...EMPTY_STATE, units: [], pending: [] });

describe('source hash (rule 12)', () => {
  it('is stable whatever order the inputs come in, and changes with any input', () => {
    expect(hashSource({ title: 'A', body: 'B' })).toBe(hashSource({ body: 'B', title: 'A' }));
    expect(hashSource({ title: 'A', body: 'B' })).not.toBe(hashSource({ title: 'A', body: 'C' }));
    expect(hashSource({ title: 'A', body: 'B' })).toMatch(/^[0-9a-f]{64}$/);
  });
  it('never confuses where one input ends and the next begins', () => {
    expect(hashSource({ a: 'xb', b: '' })).not.toBe(hashSource({ a: 'x', b: 'b' }));
  });
  it('hashes a page by title and body in the source locale, not by SEO or translations', () => {
    const page = { title: { en: 'T', pl: 'Tp' }, body: { en: '<p>B</p>' }, seo: { title: { en: 'S' } } };
    const h = sourceHashOf(pageUnits(page, 'en').units);
    expect(sourceHashOf(pageUnits({ ...page, seo: { title: { en: 'Other' }, description: { en: 'D' } } }, 'en').units)).toBe(h);
    expect(sourceHashOf(pageUnits({ ...page, title: { en: 'T', pl: 'changed' } }, 'en').units)).toBe(h);
    expect(sourceHashOf(pageUnits({ ...page, body: { en: '<p>B!</p>' } }, 'en').units)).not.toBe(h);
    expect(pageUnits(page, 'en').units.map((u) => [u.unit, u.hashed])).toEqual([
      ['title', true],
      ['body', true],
      ['seo.title', false],
    ]);
  });
});

describe('stale detection (rule 14)', () => {
  it('is stale only when a recorded hash differs from the current one', () => {
    expect(isStale({}, 'h1')).toBe(false);
    expect(isStale({ sourceHash: 'h1' }, 'h1')).toBe(false);
    expect(isStale({ sourceHash: 'h1' }, 'h2')).toBe(true);
  });
});

describe('units (rule 16)', () => {
  const before = { title: { en: 'Hello', pl: 'Cześć', de: 'Hallo' } };
  const locales = ['pl', 'de'];

  it('a new record trusts the locales written beside the source', () => {
    const units = reconcileUnits(fresh(), src(before), { before: () => undefined, after: textsOf(before) }, locales);
    expect(units).toEqual([{ unit: 'title', hash: unitHash('Hello'), locales: ['de', 'pl'] }]);
  });

  it('a changed source hash replaces the locale list with the locales written in the same request, never merging', () => {
    const state = { ...fresh(), units: [{ unit: 'title', hash: unitHash('Hello'), locales: ['de', 'pl'] }] };
    const after = { title: { en: 'Hello there', pl: 'Cześć wszystkim', de: 'Hallo' } };
    const units = reconcileUnits(state, src(after), { before: textsOf(before), after: textsOf(after) }, locales);
    expect(units).toEqual([{ unit: 'title', hash: unitHash('Hello there'), locales: ['pl'] }]);
  });

  it('an unchanged source keeps its locales, drops emptied ones and drops units gone from the source', () => {
    const state = { ...fresh(), units: [{ unit: 'title', hash: unitHash('Hello'), locales: ['de', 'pl'] }, { unit: 'body', hash: 'x', locales: ['pl'] }] };
    const after = { title: { en: 'Hello', pl: 'Cześć', de: '' } };
    expect(reconcileUnits(state, src(after), { before: textsOf({ ...before, body: { en: 'b' } }), after: textsOf(after) }, locales)).toEqual([
      { unit: 'title', hash: unitHash('Hello'), locales: ['pl'] },
    ]);
  });

  it('adopts the existing text of a record written before units existed', () => {
    const legacy: TranslationState = { ...EMPTY_STATE, pending: [] };
    const after = { title: { en: 'Hello', pl: 'Cześć' } };
    expect(reconcileUnits(legacy, src(after), { before: textsOf(after), after: textsOf(after) }, locales)).toEqual([{ unit: 'title', hash: unitHash('Hello'), locales: ['pl'] }]);
    expect(localeState(legacy, src(after), textsOf(after), 'pl', 'en', locales)).toBe('current');
    expect(localeState(legacy, src(after), textsOf(after), 'de', 'en', locales)).toBe('missing');
  });

  it('needs work on what is not current and not awaiting review', () => {
    const m = { title: { en: 'Hello', pl: 'Cześć' }, body: { en: 'Body', pl: 'Old' } };
    const state: TranslationState = {
      ...fresh(),
      units: [
        { unit: 'title', hash: unitHash('Hello'), locales: ['pl'] },
        { unit: 'body', hash: unitHash('Older body'), locales: ['pl'] },
      ],
      pending: [{ unit: 'title', locale: 'de', text: 'Hallo', hash: unitHash('Hello'), at: '2026-01-01T00:00:00Z' }],
    };
    expect(unitsNeedingWork(state, src(m), textsOf(m), ['pl', 'de'])).toEqual([
      { unit: 'body', locale: 'pl' },
      { unit: 'body', locale: 'de' },
    ]);
    expect(unitsNeedingWork({ ...state, retranslate: true }, src(m), textsOf(m), ['pl', 'de'])).toEqual([
      { unit: 'title', locale: 'pl' },
      { unit: 'body', locale: 'pl' },
      { unit: 'body', locale: 'de' },
    ]);
  });
});

describe('per-locale state for the admin list', () => {
  const m = { title: { en: 'Hello', pl: 'Cześć', de: 'Hallo alt' }, body: { en: 'B', pl: 'Bp' } };
  const state: TranslationState = {
    ...fresh(),
    units: [
      { unit: 'title', hash: unitHash('Hello'), locales: ['pl'] },
      { unit: 'body', hash: unitHash('B'), locales: ['pl'] },
    ],
  };
  it('names current, stale, missing and pending', () => {
    const at = (locale: string, s = state) => localeState(s, src(m), textsOf(m), locale, 'en', ['pl', 'de', 'fr']);
    expect(at('en')).toBe('current');
    expect(at('pl')).toBe('current');
    expect(at('de')).toBe('missing');
    const deBody = { ...m, body: { ...m.body, de: 'Bd' } };
    expect(localeState(state, src(deBody), textsOf(deBody), 'de', 'en', ['de'])).toBe('stale');
    const held = { ...state, pending: ['title', 'body'].map((unit) => ({ unit, locale: 'fr', text: 'x', hash: unitHash(unit === 'title' ? 'Hello' : 'B'), at: '' })) };
    expect(at('fr', held)).toBe('pending');
  });
});

describe('transitions', () => {
  const hash = unitHash('Hello');
  const base: TranslationState = { ...fresh(), retranslate: true, units: [{ unit: 'title', hash, locales: [] }] };

  it('markTranslated is the only writer of sourceHash, records it only for a complete run and clears Retranslate (rules 14, 15, 18)', () => {
    const partial = markTranslated(base, [{ unit: 'title', locale: 'pl', hash }], 'S1', { complete: false });
    expect(partial).toMatchObject({ retranslate: false, units: [{ unit: 'title', hash, locales: ['pl'] }] });
    expect(partial.sourceHash).toBeUndefined();
    const complete = markTranslated(partial, [{ unit: 'title', locale: 'de', hash }, { unit: 'title', locale: 'fr', hash: 'older' }], 'S1', { complete: true });
    expect(complete).toMatchObject({ sourceHash: 'S1', units: [{ unit: 'title', hash, locales: ['de', 'pl'] }] });
    expect(base.sourceHash).toBeUndefined();
  });

  it('holds candidates, keeps them across a source edit (then stale), refuses a stale approval unless forced (rule 17)', () => {
    const held = holdPending({ ...base, reviewRequired: true }, [{ unit: 'title', locale: 'pl', text: 'Cześć', hash, at: '2026-01-01T00:00:00Z' }]);
    expect(held.retranslate).toBe(false);
    const edited = { ...held, units: reconcileUnits(held, [{ unit: 'title', text: 'Hello!', hashed: true }], { before: () => undefined, after: () => undefined }, ['pl']) };
    expect(edited.pending).toHaveLength(1);
    const refused = approvePending(edited, 'pl');
    expect(refused).toMatchObject({ ok: false, reason: 'stale' });
    const forced = approvePending(edited, 'pl', { force: true });
    expect(forced.ok && forced.state.pending).toEqual([]);
    expect(forced.ok && forced.state.units).toEqual([{ unit: 'title', hash: unitHash('Hello!'), locales: ['pl'] }]);
    const fine = approvePending(held, 'pl', { unit: 'title' });
    expect(fine.ok && fine.approved.map((p) => p.text)).toEqual(['Cześć']);
    expect(approvePending(held, 'de')).toEqual({ ok: false, reason: 'none' });
  });

  it('rejects one unit or every unit of a locale', () => {
    const held = holdPending(base, [
      { unit: 'title', locale: 'pl', text: 'a', hash, at: '' },
      { unit: 'body', locale: 'pl', text: 'b', hash, at: '' },
      { unit: 'title', locale: 'de', text: 'c', hash, at: '' },
    ]);
    expect(rejectPending(held, 'pl', 'title').rejected).toBe(1);
    const all = rejectPending(held, 'pl');
    expect(all.rejected).toBe(2);
    expect(all.state.pending.map((p) => p.locale)).toEqual(['de']);
  });
});
