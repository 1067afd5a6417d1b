import { canonicalLanguageTag, languageTag } from './language-tag';

describe('languageTag (catalog rule 10)', () => {
  it.each([
    ['cz', 'cs'],
    ['ee', 'et'],
    ['se', 'sv'],
    ['dk', 'da'],
    ['gr', 'el'],
    ['jp', 'ja'],
    ['kr', 'ko'],
    ['ua', 'uk'],
    ['cn', 'zh'],
  ])('maps the URL code %s to the language %s', (code, tag) => {
    expect(languageTag({ code })).toBe(tag);
  });
  it('keeps the region of an aliased code', () => {
    expect(languageTag({ code: 'cz-CZ' })).toBe('cs-CZ');
  });
  it('falls back to the code itself, canonicalised', () => {
    expect(languageTag({ code: 'pl' })).toBe('pl');
    expect(languageTag({ code: 'pt_br' })).toBe('pt-BR');
  });
  it('lets the admin override the table', () => {
    expect(languageTag({ code: 'cz', language: 'sk' })).toBe('sk');
  });
  it('is never empty', () => {
    expect(languageTag({ code: 'x1' })).toBe('x1');
  });
  it('validates BCP 47 tags', () => {
    expect(canonicalLanguageTag('EN-gb')).toBe('en-GB');
    expect(canonicalLanguageTag('not a tag')).toBeUndefined();
    expect(canonicalLanguageTag('')).toBeUndefined();
  });
});
