import { categoriesOfHeader, compilePluralExpression, pluralFormsFor } from './plural-forms';

const LOCALES = ['en', 'pt-PT', 'ca', 'de', 'fr', 'pt', 'es', 'it', 'pl', 'ru', 'uk', 'be', 'cs', 'sk', 'hr', 'sr', 'bs', 'lt', 'lv', 'ro', 'sl', 'ar', 'he', 'is', 'mk', 'ja', 'zh', 'ko', 'nl', 'sv', 'da', 'fi', 'et', 'el', 'hu', 'bg', 'tr', 'nb'];

describe('gettext plural forms', () => {
  it.each(LOCALES)('%s: every integer 0..1000 lands on the index of its CLDR category', (locale) => {
    const forms = pluralFormsFor(locale);
    expect(forms).not.toBeNull();
    const fn = compilePluralExpression(forms!.expression)!;
    const rules = new Intl.PluralRules(locale);
    for (let n = 0; n <= 1000; n++) {
      expect([n, forms!.categories[fn(n)]]).toEqual([n, rules.select(n)]);
    }
    expect(forms!.categories).toContain('other');
    expect(categoriesOfHeader(`nplurals=${forms!.categories.length}; plural=${forms!.expression};`, locale)).toEqual(forms!.categories);
  });

  it('evaluates only arithmetic over n', () => {
    expect(compilePluralExpression('(n != 1)')?.(2)).toBe(1);
    expect(compilePluralExpression('process.exit(1)')).toBeNull();
    expect(compilePluralExpression('n.constructor')).toBeNull();
    expect(compilePluralExpression('(n')).toBeNull();
  });

  it('falls back to the locale table when a header is missing or unusable', () => {
    expect(categoriesOfHeader(undefined, 'pl')).toEqual(['one', 'few', 'many', 'other']);
    expect(categoriesOfHeader('nplurals=2; plural=alert(1);', 'en')).toEqual(['one', 'other']);
  });
});
