import { validate } from './format-signature';
import { pseudoLocalize } from './pseudo-localize';

const SOURCES = [
  'Save changes',
  'Save <b>{count}</b> changes to {{ .Name }}',
  '{count, plural, =0 {No files in <i>Flowplane</i>} one {# file} other {# files}}',
  "Don't '{quoted}' {gender, select, female {She} male {He} other {They}} replied",
  'Welcome to [[ site.name ]] &amp; <a href="https://example.com/help">help</a>',
];

describe('pseudoLocalize', () => {
  it('keeps every placeholder, branch, tag, field, token and kept term: the result passes the signature', () => {
    for (const source of SOURCES) {
      const out = pseudoLocalize(source, 'de', ['Flowplane']);
      expect(out).not.toBe(source);
      expect(validate(source, out, { glossary: [{ term: 'Flowplane', doNotTranslate: true }], language: 'de' })).toBeUndefined();
    }
  });

  it('marks the locale, accents letters and lengthens by about a third, deterministically', () => {
    const out = pseudoLocalize('Save changes to the settings', 'pl');
    expect(out).toBe(pseudoLocalize('Save changes to the settings', 'pl'));
    expect(out.startsWith('[pl] ')).toBe(true);
    expect(out).not.toMatch(/[a-z]{3}/);
    const body = out.slice('[pl] '.length);
    expect(body.length / 'Save changes to the settings'.length).toBeGreaterThan(1.25);
    expect(body.length / 'Save changes to the settings'.length).toBeLessThan(1.6);
    expect(pseudoLocalize('Save', 'de')).not.toBe(pseudoLocalize('Save', 'fr'));
  });

  it('leaves ICU syntax, attributes and kept terms byte for byte', () => {
    const out = pseudoLocalize('{count, plural, one {# <a href="/x">item</a> in Flowplane} other {# items}}', 'de', ['Flowplane']);
    expect(out).toMatch(/^\[de\] \{count, plural, one \{# <a href="\/x">.+<\/a> .+ Flowplane\} other \{# .+\}\}$/);
  });

  it("adds the plural categories the target language needs, copied from the source's other branch", () => {
    const source = 'You have {count, plural, one {# file} other {# files in {folders, plural, one {# folder} other {# folders}}}}';
    const out = pseudoLocalize(source, 'pl', [], 'pl');
    expect(validate(source, out, { language: 'pl' })).toBeUndefined();
    expect(out).toMatch(/ few \{# .+\} many \{# .+\}/);
    expect(pseudoLocalize('{n, plural, one {# file} other {# files}}', 'de', [], 'de')).toMatch(/^\[de\] \{n, plural, one \{# [^{}]+\} other \{# [^{}]+\}\}$/);
  });

  it('leaves a blank text alone', () => {
    expect(pseudoLocalize('  ', 'de')).toBe('  ');
  });
});
