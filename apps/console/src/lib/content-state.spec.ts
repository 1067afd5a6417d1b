import { atPointer, fragmentUnits, fragmentUnitText, pageUnitText, unitStates } from './content-state';

describe('content translation state', () => {
  const page = { title: { en: 'Refunds', pl: 'Zwroty', de: 'Rückgabe' }, body: { en: '<p>x</p>', pl: '<p>y</p>' }, seo: { description: { en: 'About refunds' } } };

  it('tells current, stale, missing and pending per unit and locale', () => {
    const states = unitStates(
      {
        translationReady: true,
        reviewRequired: true,
        units: [
          { unit: 'title', hash: 'h1', locales: ['pl'] },
          { unit: 'body', hash: 'h2', locales: [] },
          { unit: 'seo.description', hash: 'h3', locales: [] },
        ],
        pending: [{ unit: 'seo.description', locale: 'de', text: '[de] …', at: '' }],
        locales: {},
      },
      [],
      ['en', 'pl', 'de'],
      'en',
      (unit, locale) => pageUnitText(page, unit, locale),
    );
    expect(states).toEqual([
      { unit: 'title', states: { en: 'current', pl: 'current', de: 'stale' } },
      { unit: 'body', states: { en: 'current', pl: 'stale', de: 'missing' } },
      { unit: 'seo.description', states: { en: 'current', pl: 'missing', de: 'pending' } },
    ]);
  });

  it('trusts existing text of a record from before unit tracking', () => {
    const states = unitStates({ translationReady: false, reviewRequired: false, units: null, pending: [], locales: {} }, ['title', 'body'], ['en', 'pl', 'de'], 'en', (u, l) => pageUnitText(page, u, l));
    expect(states[0].states).toEqual({ en: 'current', pl: 'current', de: 'current' });
    expect(states[1].states).toEqual({ en: 'current', pl: 'current', de: 'missing' });
  });

  it('finds a fragment’s marked leaves by JSON Pointer and their text per locale', () => {
    const data = { links: [{ href: '/privacy', label: { _i18n: { en: 'Privacy', pl: 'Prywatność' } } }], 'a/b': { _i18n: { en: 'x' } }, other: { _i18n: { en: 'y' }, extra: 1 } };
    expect(fragmentUnits(data)).toEqual(['/links/0/label', '/a~1b']);
    expect(fragmentUnitText(data, '/links/0/label', 'pl')).toBe('Prywatność');
    expect(fragmentUnitText(data, '/links/0/label', 'de')).toBeUndefined();
    expect(atPointer(data, '/a~1b')).toEqual({ _i18n: { en: 'x' } });
  });
});
