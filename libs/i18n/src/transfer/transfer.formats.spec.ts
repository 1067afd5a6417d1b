import { parseIcuPlural } from './icu-plural';
import { fromJson, toJson } from './json.format';
import { fromPo, toPo } from './po.format';
import { comparableSource, parseTransfer, serialize } from './transfer.formats';
import { TransferFormatError, type TransferDocument } from './transfer.model';
import { fromXliff, toXliff } from './xliff.format';

const PL_PLURAL = '{count, plural, one {# dzień} few {# dni} many {# dni} other {# dnia}}';
const EN_PLURAL = '{count, plural, one {# day} other {# days}}';

const doc: TransferDocument = {
  ns: 'checkout',
  locale: 'pl',
  sourceLocale: 'en',
  exportedAt: '2026-11-25T20:00:00.000Z',
  entries: [
    { key: 'cart.days', source: EN_PLURAL, value: PL_PLURAL, note: 'Days until delivery' },
    { key: 'cart.empty', source: 'Your cart is empty', value: 'Koszyk jest pusty' },
    { key: 'cart.greeting', source: 'Hello {{.Name}} & <b>welcome</b>', value: 'Witaj {{.Name}} & <b>witaj</b>', note: 'Name is the first name' },
    { key: 'cart.multiline', source: '  Line one\nline "two"\t', value: '  Linia pierwsza\nlinia „druga”\t' },
    { key: 'cart.mixed', source: 'You have {count, plural, one {# item} other {# items}}', value: 'Masz {count, plural, one {# rzecz} few {# rzeczy} many {# rzeczy} other {# rzeczy}}' },
    { key: 'cart.untranslated', source: 'Not translated yet', note: 'a pending key' },
    { key: 'cart.same', source: 'OK', value: 'OK' },
  ],
};

function translated(d: TransferDocument): Record<string, string> {
  return Object.fromEntries(d.entries.filter((e) => e.value !== undefined).map((e) => [e.key, e.value as string]));
}

describe('JSON', () => {
  it('exports flat JSON of the translated keys only and reads it back', () => {
    const text = toJson(doc);
    expect(JSON.parse(text)).toEqual(translated(doc));
    expect(fromJson(text).entries).toEqual(doc.entries.filter((e) => e.value !== undefined).map((e) => ({ key: e.key, value: e.value })));
  });

  it('exports nested JSON split on dots and reads nested and mixed files as dotted keys', () => {
    const text = toJson(doc, true);
    expect(JSON.parse(text)).toEqual({ cart: expect.objectContaining({ empty: 'Koszyk jest pusty', days: PL_PLURAL }) });
    expect(Object.fromEntries(fromJson(text).entries.map((e) => [e.key, e.value]))).toEqual(translated(doc));
    expect(fromJson('{"a": {"b": "x", "c.d": "y"}, "e.f": "z", "g": ""}').entries).toEqual([
      { key: 'a.b', value: 'x' },
      { key: 'a.c.d', value: 'y' },
      { key: 'e.f', value: 'z' },
      { key: 'g' },
    ]);
  });

  it('refuses to nest keys that collide', () => {
    const clash = { ...doc, entries: [{ key: 'a', value: 'x' }, { key: 'a.b', value: 'y' }] };
    expect(() => toJson(clash, true)).toThrow(/collides/);
  });

  it('names the line and column of a syntax error, and refuses non-string values', () => {
    let caught: TransferFormatError | undefined;
    try {
      fromJson('{\n  "a": "x",\n  "b": \n}');
    } catch (e) {
      caught = e as TransferFormatError;
    }
    expect(caught).toBeInstanceOf(TransferFormatError);
    expect(caught).toMatchObject({ line: 4, column: 1 });
    expect(caught?.message).toMatch(/line 4/);
    expect(() => fromJson('{"a": 1}')).toThrow(/"a" must be a string/);
    expect(() => fromJson('["a"]')).toThrow(TransferFormatError);
    expect(() => fromJson('{"a.b": "x", "a": {"b": "y"}}')).toThrow(/twice/);
  });
});

describe('XLIFF 2.0', () => {
  it('writes source, target and note per unit, and reads back exactly what it wrote', async () => {
    const xml = await toXliff(doc);
    expect(xml).toContain('version="2.0"');
    expect(xml).toContain('srcLang="en" trgLang="pl"');
    expect(xml).toContain('<unit id="cart.days">');
    expect(xml).toContain('<note>Days until delivery</note>');
    const parsed = await fromXliff(xml);
    expect(parsed).toMatchObject({ locale: 'pl', sourceLocale: 'en' });
    expect(parsed.entries).toEqual(doc.entries);
  });

  it('reads units inside groups and of several files', async () => {
    const xml = `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
  <file id="a"><unit id="k1"><segment><source>Hi</source><target>Hallo</target></segment></unit>
    <group id="g"><unit id="k2"><segment><source>Bye</source><target>Tschüss</target></segment></unit></group></file>
  <file id="b"><unit id="k3"><segment><source>Yes</source><target></target></segment></unit></file>
</xliff>`;
    expect((await fromXliff(xml)).entries).toEqual([
      { key: 'k1', source: 'Hi', value: 'Hallo' },
      { key: 'k2', source: 'Bye', value: 'Tschüss' },
      { key: 'k3', source: 'Yes' },
    ]);
  });

  it('reads several notes of a unit as one note, one per line', async () => {
    const xml = `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
  <file id="a"><unit id="k1"><notes><note>Button label</note><note>Max 12 characters</note></notes><segment><source>Pay</source><target>Zahlen</target></segment></unit></file>
</xliff>`;
    expect((await fromXliff(xml)).entries).toEqual([{ key: 'k1', source: 'Pay', value: 'Zahlen', note: 'Button label\nMax 12 characters' }]);
  });

  it('names the line of malformed XML and refuses XLIFF 1.2', async () => {
    const broken = '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0">\n<file id="a">\n<unit id="x"><segment><source>a</sourc></segment></unit></file></xliff>';
    await expect(fromXliff(broken)).rejects.toMatchObject({ line: 3, message: expect.stringMatching(/line 3/) });
    await expect(fromXliff('<xliff version="1.2"><file original="a"/></xliff>')).rejects.toThrow(/XLIFF 2.0/);
    await expect(fromXliff('{"a": "b"}')).rejects.toBeInstanceOf(TransferFormatError);
  });
});

describe('gettext PO', () => {
  it('maps an ICU plural to msgid_plural and msgstr[n] with the Polish Plural-Forms, and back', () => {
    const text = toPo(doc);
    expect(text).toContain('"Plural-Forms: nplurals=4; plural=(n==1 ? 0 : n%10>=2');
    expect(text).toContain('"Language: pl\\n"');
    expect(text).toContain('"X-Flowplane-Exported-At: 2026-11-25T20:00:00.000Z\\n"');
    expect(text).toContain(['#. Days until delivery', '#, icu-plural:count', 'msgctxt "cart.days"', 'msgid "# day"', 'msgid_plural "# days"',
      'msgstr[0] "# dzień"', 'msgstr[1] "# dni"', 'msgstr[2] "# dni"', 'msgstr[3] "# dnia"'].join('\n'));
    // A plural with text around it is not a gettext plural: it stays ICU text.
    expect(text).toContain('msgctxt "cart.mixed"\nmsgid "You have {count, plural, one {# item} other {# items}}"\nmsgstr "Masz {count');
  });

  it('reads back exactly what it wrote (plurals, notes, whitespace, untranslated keys)', () => {
    const parsed = fromPo(toPo(doc), 'pl');
    expect(parsed).toMatchObject({ locale: 'pl', sourceLocale: 'en', exportedAt: doc.exportedAt });
    expect(parsed.entries).toEqual(doc.entries);
  });

  it('maps the forms of a foreign file through its own Plural-Forms header', () => {
    // Weblate's three-form Polish: one, few, many; ICU's required `other` takes the last form.
    const text = `msgid ""
msgstr ""
"Language: pl\\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"

msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d plik"
msgstr[1] "%d pliki"
msgstr[2] "%d plików"

#, fuzzy
msgid "Draft"
msgstr "Szkic"
`;
    const parsed = fromPo(text);
    expect(parsed.entries).toEqual([
      { key: '%d file', value: '{count, plural, one {%d plik} few {%d pliki} many {%d plików} other {%d plików}}', source: '{count, plural, one {%d file} other {%d files}}' },
      { key: 'Draft' },
    ]);
  });

  it('writes the English and Japanese forms and reads them back', () => {
    const en = { ...doc, locale: 'en', entries: [{ key: 'd', source: EN_PLURAL, value: EN_PLURAL }] };
    const enText = toPo(en);
    expect(enText).toContain('nplurals=2; plural=(n != 1);');
    expect(fromPo(enText).entries).toEqual(en.entries);
    const ja = { ...doc, locale: 'ja', entries: [{ key: 'd', source: EN_PLURAL, value: '{count, plural, other {#日}}' }] };
    const jaText = toPo(ja);
    expect(jaText).toContain('nplurals=1; plural=0;');
    expect(jaText).toContain('msgstr[0] "#日"');
    expect(fromPo(jaText).entries).toEqual(ja.entries);
  });

  it('names the line of a malformed file', () => {
    const broken = 'msgid ""\nmsgstr ""\n"Language: pl\\n"\n\nmsgid "a"\nmsgstr "b\nmsgid "c"\nmsgstr "d"\n';
    let caught: TransferFormatError | undefined;
    try {
      fromPo(broken);
    } catch (e) {
      caught = e as TransferFormatError;
    }
    expect(caught).toBeInstanceOf(TransferFormatError);
    expect(caught?.line).toEqual(expect.any(Number));
    expect(caught?.message).toMatch(/line \d+/);
  });
});

describe('every format', () => {
  it.each(['json', 'xliff', 'po'] as const)('%s: the source an import compares equals what the file states', async (format) => {
    const parsed = await parseTransfer(format, await serialize(format, doc), 'pl');
    for (const entry of parsed.entries) {
      const stored = doc.entries.find((e) => e.key === entry.key);
      expect(entry.source).toEqual(comparableSource(format, stored?.source, entry.key));
    }
  });

  it('keeps non-canonical plurals verbatim', () => {
    expect(parseIcuPlural('{count, plural, =0 {none} other {#}}')).toBeNull();
    expect(parseIcuPlural('{count,plural, one {a} other {b}}')).toBeNull();
    expect(parseIcuPlural("{count, plural, one {'{'} other {b}}")).toBeNull();
    expect(parseIcuPlural('{count, plural, other {b} one {a}}')).toBeNull();
    expect(parseIcuPlural('{n, plural, one {a {x} b} other {c}}')).toEqual({ variable: 'n', branches: { one: 'a {x} b', other: 'c' } });
  });
});
