import { checkFragmentData, FRAGMENT_LIMITS, fragmentUnits, isMarker, markersOf, projectFragment } from './fragment';
import { contentChain, pickText } from './localized-text';
import type { SettingLookup } from '../../tokens/settings-tokens';

const SETTINGS: Record<string, string> = { 'site.name': 'Acme <&> Co', 'site.support_email': 'help@acme.test' };
const settings: SettingLookup = (m, k) => SETTINGS[`${m}.${k}`];

describe('locale chain and choice (rule 10)', () => {
  it('goes requested, base, fallback, then any non-empty value', () => {
    expect(contentChain('pt-BR', 'en')).toEqual(['pt-BR', 'pt', 'en']);
    expect(contentChain('en', 'en')).toEqual(['en']);
    expect(pickText({ pt: 'Olá', en: 'Hi' }, contentChain('pt-BR', 'en'))).toEqual({ locale: 'pt', text: 'Olá' });
    expect(pickText({ de: 'Hallo', en: '' }, contentChain('pl', 'en'))).toEqual({ locale: 'de', text: 'Hallo' });
    expect(pickText({ de: '' }, ['pl'])).toBeUndefined();
  });
});

describe('projection (rule 10)', () => {
  const stored = {
    title: { _i18n: { en: 'Welcome to [[ site.name ]]', pl: 'Witaj w [[ site.name ]]' } },
    links: [{ href: '/privacy', label: { _i18n: { en: 'Privacy', de: 'Datenschutz' } } }],
    mixed: { _i18n: { en: 'kept' }, note: 'a map with other keys is ordinary' },
    contact: 'Write to [[ site.support_email ]]',
    count: 3,
    empty: { _i18n: { en: '' } },
    nothing: null,
  };

  it('projects every marker by the chain and expands tokens as plain text after choosing, in marked and unmarked leaves', () => {
    expect(projectFragment(stored, contentChain('pl-PL', 'en'), settings)).toEqual({
      title: 'Witaj w Acme <&> Co',
      links: [{ href: '/privacy', label: 'Privacy' }],
      mixed: { _i18n: { en: 'kept' }, note: 'a map with other keys is ordinary' },
      contact: 'Write to help@acme.test',
      count: 3,
      empty: '',
      nothing: null,
    });
  });

  it('falls back to any non-empty value when the chain has none', () => {
    expect((projectFragment(stored, contentChain('fr', 'it'), settings) as { links: Array<{ label: string }> }).links[0].label).toMatch(/^(Privacy|Datenschutz)$/);
  });

  it('returns a copy and never changes the stored value', () => {
    const before = JSON.stringify(stored);
    const out = projectFragment(stored, ['en'], settings) as Record<string, unknown>;
    (out.links as unknown[]).push('x');
    expect(JSON.stringify(stored)).toBe(before);
    expect(out.mixed).not.toBe(stored.mixed);
  });

  it('keeps a `__proto__` field as data', () => {
    const data = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const out = projectFragment(data, ['en'], settings) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('tells markers from ordinary maps', () => {
    expect(isMarker({ _i18n: { en: 'x' } })).toBe(true);
    expect(isMarker({ _i18n: { en: 'x' }, other: 1 })).toBe(false);
    expect(isMarker([{ _i18n: {} }])).toBe(false);
  });
});

describe('units of a fragment', () => {
  it('are the marked leaves by JSON Pointer, with the source locale text', () => {
    const data = { links: [{ label: { _i18n: { en: 'Privacy', pl: 'Prywatność' } } }], 'a/b': { _i18n: { pl: 'tylko pl' } } };
    expect(markersOf(data).map((m) => m.pointer)).toEqual(['/links/0/label', '/a~1b']);
    const { units, texts } = fragmentUnits(data, 'en');
    expect(units).toEqual([
      { unit: '/links/0/label', text: 'Privacy', hashed: true },
      { unit: '/a~1b', text: '', hashed: true },
    ]);
    expect(texts('/links/0/label', 'pl')).toBe('Prywatność');
  });
});

describe('checks of fragment data', () => {
  it('refuses a field name starting with "$" anywhere, naming its JSON Pointer', () => {
    expect(checkFragmentData({ links: [{ ok: 1 }, { nested: { $ref: '#/x' } }] })).toEqual({
      tooLarge: false,
      details: [{ field: '/data/links/1/nested/$ref', problems: ['a field name may not begin with "$"'] }],
    });
  });

  it('refuses a malformed marker', () => {
    expect(checkFragmentData({ a: { _i18n: 'text' } })?.details[0].field).toBe('/data/a/_i18n');
    expect(checkFragmentData({ a: { _i18n: { en: 5 } } })?.details[0].field).toBe('/data/a/_i18n/en');
    expect(checkFragmentData({ a: { _i18n: { 'no such locale!': 'x' } } })?.tooLarge).toBe(false);
  });

  it('accepts a fragment 10 levels deep with 10,000 leaves; refuses deeper than the limit and more leaves', () => {
    let deep: unknown = Array.from({ length: 10_000 }, (_, i) => ({ _i18n: { en: `Label ${i}`, pl: `Etykieta ${i}` } }));
    for (let i = 0; i < 9; i++) deep = { level: deep };
    expect(checkFragmentData(deep)).toBeUndefined();
    let tooDeep: unknown = 'leaf';
    for (let i = 0; i < FRAGMENT_LIMITS.maxDepth + 2; i++) tooDeep = [tooDeep];
    expect(checkFragmentData(tooDeep)).toMatchObject({ tooLarge: false });
    expect(checkFragmentData(Array.from({ length: FRAGMENT_LIMITS.maxLeaves + 1 }, () => 1))).toMatchObject({ tooLarge: true });
    expect(checkFragmentData({ big: 'x'.repeat(FRAGMENT_LIMITS.maxBytes) })).toMatchObject({ tooLarge: true });
  });
});
