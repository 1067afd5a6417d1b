import { parseQuery } from './catalog-fast-path';

describe('catalog fast path query', () => {
  it('reads locale, ns and lang as the query parser decodes them', () => {
    expect(parseQuery('')).toEqual({});
    expect(parseQuery('locale=pt-BR&ns=my+shop&lang=en')).toEqual({ locale: 'pt-BR', ns: 'my shop', lang: 'en' });
    expect(parseQuery('ns=caf%C3%A9&locale=pl')).toEqual({ ns: 'café', locale: 'pl' });
    expect(parseQuery('ns=&locale=pl')).toEqual({ ns: '', locale: 'pl' });
  });

  it.each([
    ['an unknown field', 'locale=pl&x=1'],
    ['a repeated field', 'locale=pl&locale=en'],
    ['a bracketed field', 'locale[]=pl'],
    ['a field without a value', 'locale'],
    ['an empty locale', 'locale='],
    ['a malformed locale', 'locale=pl%20PL'],
    ['a broken escape', 'ns=%E0%A4%A'],
    ['a control character', 'ns=a%0Ab'],
    ['a namespace over 100 characters', `ns=${'n'.repeat(101)}`],
    ['an empty pair', 'locale=pl&&ns=a'],
  ])('leaves %s to the validation pipe', (_what, query) => {
    expect(parseQuery(query)).toBeUndefined();
  });
});
