import { isIcuBranching, signature, validate } from './format-signature';

const FLOWPLANE = [{ term: 'Flowplane', doNotTranslate: true }];

describe('format signature', () => {
  it('accepts a candidate that keeps every placeholder, tag, field and branch', () => {
    expect(validate('Save <b>{count}</b> changes to {{ .Name }}', 'Speichern Sie <b>{count}</b> Änderungen an {{.Name}}')).toBeUndefined();
    expect(validate('{count, plural, one {# file} other {# files}}', '{count, plural, one {# Datei} other {# Dateien}}', { language: 'de' })).toBeUndefined();
  });

  it('names a missing or invented placeholder', () => {
    expect(validate('Hello {name}', 'Hallo {nom}')).toBe('placeholder {name} missing');
    expect(validate('Hello {name}', 'Hallo {name} {extra}')).toBe('unexpected placeholder {extra}');
    expect(validate('Hello {name}', 'Hallo')).toBe('placeholder {name} missing');
  });

  it('names Go-template fields and settings tokens that went missing', () => {
    expect(validate('Hi {{ .User.Name }}', 'Hallo {{ .User.Nom }}')).toBe('template field {{ .User.Name }} missing');
    expect(validate('Welcome to [[ site.name ]]', 'Willkommen')).toBe('settings token [[site.name]] missing');
  });

  it('checks plural branches against the target language', () => {
    const source = '{count, plural, =0 {no files} one {# file} other {# files}}';
    expect(validate(source, '{count, plural, =0 {keine} other {# Dateien}}', { language: 'de' })).toBe("plural branch 'one' missing");
    expect(validate(source, '{count, plural, one {# Datei} other {# Dateien}}', { language: 'de' })).toBe("plural branch '=0' missing");
    // Japanese has no `one`: dropping it is correct there.
    expect(validate(source, '{count, plural, =0 {なし} other {# ファイル}}', { language: 'ja' })).toBeUndefined();
    expect(validate(source, '{count, plural, =0 {brak} one {# plik} few {# pliki} many {# plików} other {# pliku}}', { language: 'pl' })).toBeUndefined();
    expect(validate(source, '{count, select, one {x} other {y}}', { language: 'de' })).toBe('plural argument {count} missing');
    expect(validate(source, '{count, plural, one {# Datei}', { language: 'de' })).toMatch(/ICU message syntax broken/);
  });

  it("requires every plural category the target language needs, not only the source's", () => {
    const source = '{count, plural, one {# file} other {# files}}';
    expect(validate(source, '{count, plural, one {# plik} other {# plików}}', { language: 'pl' })).toBe("plural branch 'few' missing (pl needs one, few, many, other)");
    expect(validate(source, '{count, plural, one {# plik} few {# pliki} other {# plików}}', { language: 'pl' })).toBe("plural branch 'many' missing (pl needs one, few, many, other)");
    expect(validate(source, '{count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}', { language: 'pl' })).toBeUndefined();
    expect(validate(source, '{count, plural, one {# файл} few {# файла} other {# файлов}}', { language: 'ru' })).toBe("plural branch 'many' missing (ru needs one, few, many, other)");
    // A language the runtime has no rules for is not held to English's categories.
    expect(validate('{n, selectordinal, other {#.}}', '{n, selectordinal, other {#.}}', { language: 'xx' })).toBeUndefined();
    // French `many` only applies to millions: leaving it to `other` is what translators do.
    expect(validate(source, '{count, plural, one {# fichier} other {# fichiers}}', { language: 'fr' })).toBeUndefined();
    // Ordinals use the ordinal categories: English needs one, two, few and other.
    expect(validate('{n, selectordinal, other {#.}}', '{n, selectordinal, one {#st} other {#th}}', { language: 'en' })).toBe("plural branch 'two' missing (en needs one, two, few, other)");
  });

  it('compares attribute values of tags, translatable ones aside', () => {
    expect(validate('Read <a href="/terms">the terms</a>', 'Lies <a href="/bedingungen">die Bedingungen</a>')).toBe('attribute href of <a> changed from "/terms" to "/bedingungen"');
    expect(validate('Read <a href="/terms">the terms</a>', 'Lies <a>die Bedingungen</a>')).toBe('attribute href of <a> missing');
    expect(validate('Read <a href="/terms">the terms</a>', 'Lies <a href="/terms" onclick="x()">die Bedingungen</a>')).toBe('unexpected attribute onclick on <a>');
    expect(validate('<a href="{{ .Url }}">Open</a>', '<a href="{{ .Url }}/de">Öffnen</a>')).toBe('attribute href of <a> changed from "{{ .Url }}" to "{{ .Url }}/de"');
    expect(validate('<a href="{{ .Url }}">Open</a>', '<a href="{{.Url}}">Öffnen</a>')).toBeUndefined();
    // Quotes, attribute order and the order of links may change; alt and title are prose and are translated.
    expect(validate('<a class="x" href="/a">A</a> or <a href="/b">B</a>', "<a href='/b'>B</a> oder <a href=\"/a\" class=x>A</a>")).toBeUndefined();
    expect(validate('<img src="/logo.png" alt="Our logo"> <abbr title="Value added tax">VAT</abbr>', '<img src="/logo.png" alt="Unser Logo"> <abbr title="Mehrwertsteuer">MwSt</abbr>')).toBeUndefined();
    expect(validate('<img src="/logo.png" alt="Our logo">', '<img src="/logo.png">')).toBe('attribute alt of <img> missing');
  });

  it('keeps every select branch', () => {
    const source = '{gender, select, female {She} male {He} other {They}} replied';
    expect(validate(source, '{gender, select, female {Sie} other {Sie}} antwortete')).toBe("select branch 'male' missing");
    expect(validate(source, '{gender, select, female {Sie} male {Er} other {Sie}} antwortete')).toBeUndefined();
  });

  it('counts HTML tags with a tokenizer and names the one dropped', () => {
    expect(validate('Press <b>Save</b> now', 'Drücken Sie <b>Speichern jetzt')).toBe('dropped closing </b>');
    expect(validate('Press <b>Save</b>', 'Drücken Sie Speichern</b>')).toBe('dropped <b>');
    expect(validate('Line<br/>two <a href="/x">link</a>', 'Zeile<br/>zwei <a href="/x">Link</a>')).toBeUndefined();
    expect(validate('Plain', 'Schlicht <i>kursiv</i>')).toBe('unexpected tag <i>');
    // Comparison signs are text, not tags.
    expect(validate('a < b and {n} > 2', 'a < b und {n} > 2')).toBeUndefined();
    expect(signature('<p>One<p>Two').tags.get('p')).toEqual({ open: 2, close: 0 });
  });

  it('requires do-not-translate terms verbatim', () => {
    expect(validate('Open Flowplane settings', 'Öffnen Sie die Flussebene-Einstellungen', { glossary: FLOWPLANE })).toBe("do-not-translate term 'Flowplane' changed");
    expect(validate('Open Flowplane settings', 'Öffnen Sie die Flowplane-Einstellungen', { glossary: FLOWPLANE })).toBeUndefined();
    expect(validate('Open Flowplane', 'Öffne flowplane', { glossary: FLOWPLANE })).toBe("do-not-translate term 'Flowplane' changed");
  });

  it('refuses an empty candidate and tells ICU branching sources apart', () => {
    expect(validate('Save', '  ')).toBe('empty translation');
    expect(isIcuBranching(signature('{n, plural, one {#} other {#}}'))).toBe(true);
    expect(isIcuBranching(signature('Hello {name}'))).toBe(false);
  });
});
