import { localeChain } from './locale-chain';

describe('localeChain (catalog rule 2)', () => {
  it('goes locale, base, fallback, default, most specific first', () => {
    expect(localeChain('de-AT', 'en', 'pl')).toEqual(['de-AT', 'de', 'en', 'pl']);
  });
  it('splits the base on "_" too', () => {
    expect(localeChain('pt_BR', 'en', 'pl')).toEqual(['pt_BR', 'pt', 'en', 'pl']);
  });
  it('de-duplicates (pl-PL gives pl once)', () => {
    expect(localeChain('pl-PL', 'en', 'pl')).toEqual(['pl-PL', 'pl', 'en']);
    expect(localeChain('en', 'en', 'pl')).toEqual(['en', 'pl']);
  });
  it('starts at the fallback for an empty locale', () => {
    expect(localeChain('', 'en', 'pl')).toEqual(['en', 'pl']);
  });
});
