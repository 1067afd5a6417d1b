import { TranslationService } from '@flowplane/i18n';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { fingerprint } from '../../libs/i18n/src/coverage/fingerprint';
import { TranslationRepository } from '../../libs/i18n/src/translations/persistence/translation.repository';
import { call, testEnv, token } from '../support/http';

const EN_PLURAL = '{count, plural, one {# day} other {# days}}';
const PL_PLURAL = '{count, plural, one {# dzień} few {# dni} many {# dni} other {# dnia}}';
const MEDIA = { json: 'application/json', xliff: 'application/xliff+xml', po: 'text/x-gettext-translation' } as const;
type Format = keyof typeof MEDIA;

/** Translators' files through the gateway: export, import (dry run, apply, conflicts, bad files) and coverage. */
describe('i18n export, import and coverage', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let repo: TranslationRepository;

  const human = () => ({ source: 'human' as const, by: 'seed-test', at: new Date(Date.now() - 60_000).toISOString() });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    const t = i18n.app.get(TranslationService);
    repo = i18n.app.get(TranslationRepository);
    await t.upsert('shop', 'cart.days', 'en', EN_PLURAL, human());
    await t.upsert('shop', 'cart.days', 'pl', PL_PLURAL, human());
    await t.upsert('shop', 'cart.empty', 'en', 'Your cart is empty', human());
    await t.upsert('shop', 'cart.empty', 'pl', 'Koszyk jest pusty', human());
    await t.upsert('shop', 'cart.title', 'en', 'Cart', human());
    await t.upsert('shop', 'cart.pay', 'en', 'Pay "now"\nplease', human());
    await t.upsert('shop', 'cart.pay', 'pl', 'Zapłać „teraz”\nproszę', { source: 'machine', by: 'model', at: new Date().toISOString(), source_hash: fingerprint('Pay "now"\nplease') });
    await t.upsert('shop', 'cart.old', 'en', 'Old text', human());
    await t.upsert('shop', 'cart.old', 'pl', 'Stary', { source: 'machine', by: 'model', at: new Date().toISOString(), source_hash: fingerprint('Older text') });
    await t.upsert('shop', 'cart.held', 'en', 'Held', human());
    await repo.setPending({ ns: 'shop', key: 'cart.held' }, 'pl', { text: 'Wstrzymany', status: 'held', at: new Date().toISOString() }, new Date());
    await repo.setContext({ ns: 'shop', key: 'cart.days' }, 'Days until delivery', new Date());
  });
  afterAll(() => platform?.close());

  const exportFile = (format: Format, ns = 'shop', locale = 'pl') =>
    call(`${api}/admin/i18n/export?ns=${ns}&locale=${locale}&format=${format}`, { bearer: admin });
  const importFile = (format: Format, body: string, query = '') =>
    call(`${api}/admin/i18n/import?format=${format}${query}`, { method: 'POST', bearer: admin, headers: { 'content-type': MEDIA[format] }, body });
  const stable = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T').replace(/\d{4}-\d\d-\d\d \d\d:\d\d\+0000/g, 'T');

  it('answers coverage of a small known catalog on the raw namespaced form', async () => {
    const res = await call(`${api}/admin/i18n/coverage?ns=shop&locale=pl`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      {
        ns: 'shop', locale: 'pl', keys: 6, translated: 4, machine: 2, human: 2, stale: 1, pending: 1,
        percent: { translated: 66.7, machine: 33.3, human: 33.3, stale: 16.7, pending: 16.7 },
      },
    ]);
    const all = await call(`${api}/admin/i18n/coverage?ns=shop`, { bearer: admin });
    expect(all.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ ns: 'shop', locale: 'en', keys: 6, translated: 6, human: 6, stale: 0 })]));
  });

  it.each(['json', 'xliff', 'po'] as const)('%s: export then import is lossless (same namespace: all unchanged; fresh namespace: same texts)', async (format) => {
    const first = await exportFile(format);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain(MEDIA[format]);
    expect(first.headers.get('x-exported-at')).toMatch(/^\d{4}-/);
    const again = await importFile(format, first.text, '&ns=shop&locale=pl&apply=true');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ dryRun: false, created: 0, updated: 0, unchanged: 4, conflicts: [] });
    expect(stable((await exportFile(format)).text)).toBe(stable(first.text));

    const copy = await importFile(format, first.text, `&ns=copy-${format}&locale=pl&apply=true`);
    expect(copy.body).toMatchObject({ created: 4, updated: 0, unchanged: 0, conflicts: [] });
    expect((await exportFile('json', `copy-${format}`)).body).toEqual((await exportFile('json')).body);
    if (format !== 'json') {
      const row = await repo.find({ ns: `copy-${format}`, key: 'cart.days' });
      expect(row?.translations).toEqual({ en: EN_PLURAL, pl: PL_PLURAL });
      expect(row?.context).toBe('Days until delivery');
    }
  });

  it('exports PO plurals as msgid_plural with the Polish forms', async () => {
    const po = (await exportFile('po')).text;
    expect(po).toContain('msgctxt "cart.days"\nmsgid "# day"\nmsgid_plural "# days"\nmsgstr[0] "# dzień"\nmsgstr[1] "# dni"\nmsgstr[2] "# dni"\nmsgstr[3] "# dnia"');
    expect(po).toContain('Plural-Forms: nplurals=4;');
  });

  it('a dry run reports and changes nothing; apply=true writes with provenance human', async () => {
    const body = JSON.stringify({ cart: { empty: 'Pusty koszyk', title: 'Koszyk' } });
    const dry = await importFile('json', body, '&ns=shop&locale=pl');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: 1, unchanged: 0, conflicts: [] });
    expect((await exportFile('json')).body['cart.empty']).toBe('Koszyk jest pusty');

    const applied = await importFile('json', body, '&ns=shop&locale=pl&apply=true');
    expect(applied.body).toMatchObject({ dryRun: false, created: 1, updated: 1 });
    const row = await repo.find({ ns: 'shop', key: 'cart.empty' });
    expect(row?.translations.pl).toBe('Pusty koszyk');
    expect(row?.provenance.pl).toMatchObject({ source: 'human', by: 'alice' });
  });

  it('reports conflicts (pending review, human edit after the export, changed source) and writes them only with force', async () => {
    const exported = await exportFile('po');
    await new Promise((r) => setTimeout(r, 5));
    const t = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationService);
    await t.upsert('shop', 'cart.days', 'pl', '{count, plural, one {# doba} few {# doby} many {# dób} other {# doby}}', { source: 'human', by: 'bob', at: new Date().toISOString() });
    await t.upsert('shop', 'cart.pay', 'en', 'Pay now', human());
    const file = exported.text
      .replace('msgstr[0] "# dzień"', 'msgstr[0] "# dzionek"')
      .replace('Zapłać „teraz”', 'Zapłać „natychmiast”')
      .replace(/msgctxt "cart.held"\nmsgid "Held"\nmsgstr ""/, 'msgctxt "cart.held"\nmsgid "Held"\nmsgstr "Trzymany"');
    const res = await importFile('po', file, '&ns=shop&apply=true');
    expect(res.status).toBe(200);
    const reasons = Object.fromEntries((res.body.conflicts as { key: string; reasons: string[] }[]).map((c) => [c.key, c.reasons]));
    expect(reasons).toEqual({ 'cart.days': ['changed_since_export'], 'cart.held': ['pending_review'], 'cart.pay': ['source_changed'] });
    expect((await repo.find({ ns: 'shop', key: 'cart.held' }))?.translations.pl).toBeUndefined();

    const forced = await importFile('po', file, '&ns=shop&apply=true&force=true');
    expect(forced.body).toMatchObject({ forced: 3, conflicts: [], updated: 2, created: 1 });
    const held = await repo.find({ ns: 'shop', key: 'cart.held' });
    expect(held?.translations.pl).toBe('Trzymany');
    expect(held?.pending.pl).toBeUndefined();
  });

  it('with force, counts the conflicts it writes as created or updated and lists them as overridden, not as conflicts', async () => {
    const t = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationService);
    await t.upsert('forcing', 'a', 'en', 'Apple', human());
    await t.upsert('forcing', 'b', 'en', 'Bread', human());
    await t.upsert('forcing', 'b', 'pl', 'Chleb', human());
    await repo.setPending({ ns: 'forcing', key: 'a' }, 'pl', { text: 'Jabłko?', status: 'held', at: new Date().toISOString() }, new Date());
    await repo.setPending({ ns: 'forcing', key: 'b' }, 'pl', { text: 'Bułka', status: 'rejected', at: new Date().toISOString() }, new Date());
    const body = JSON.stringify({ a: 'Jabłko', b: 'Pieczywo' });

    const refused = await importFile('json', body, '&ns=forcing&locale=pl&apply=true');
    expect(refused.body).toMatchObject({ created: 0, updated: 0, forced: 0, overridden: [] });
    expect(refused.body.conflicts.map((c: { key: string }) => c.key)).toEqual(['a', 'b']);

    const dry = await importFile('json', body, '&ns=forcing&locale=pl&force=true');
    expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: 1, conflicts: [], forced: 0 });
    expect(dry.body.overridden.map((c: { key: string }) => c.key)).toEqual(['a', 'b']);

    const applied = await importFile('json', body, '&ns=forcing&locale=pl&force=true&apply=true');
    expect(applied.body).toMatchObject({ dryRun: false, created: 1, updated: 1, conflicts: [], forced: 2 });
    expect(applied.body.overridden).toEqual([
      { key: 'a', reasons: ['pending_review'], current: '', imported: 'Jabłko' },
      { key: 'b', reasons: ['pending_review'], current: 'Chleb', imported: 'Pieczywo' },
    ]);
    expect((await repo.find({ ns: 'forcing', key: 'b' }))?.translations.pl).toBe('Pieczywo');
  });

  it('refuses imported texts that break their source (placeholders, template fields, plural categories, tags and attributes) unless force, naming each', async () => {
    const t = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationService);
    await t.upsert('fmt', 'cart.count', 'en', 'Your {cart} has {n} items', human());
    await t.upsert('fmt', 'greet', 'en', 'Hello {{.Name}}', human());
    await t.upsert('fmt', 'days', 'en', EN_PLURAL, human());
    await t.upsert('fmt', 'terms', 'en', 'Read <a href="/terms">the terms</a>', human());
    await t.upsert('fmt', 'save', 'en', 'Press <b>Save</b>', human());
    await t.upsert('fmt', 'fine', 'en', 'Hello {name}', human());
    const file = JSON.stringify({
      'cart.count': 'Twój {kart} ma {n} rzeczy',
      greet: 'Cześć {{.Nam}}',
      days: '{count, plural, one {# dzień} other {# dni}}',
      terms: 'Przeczytaj <a href="/warunki">warunki</a>',
      save: 'Naciśnij <b>Zapisz',
      fine: 'Cześć {name}',
    });
    const expected = [
      { key: 'cart.count', reason: 'placeholder {cart} missing', source: 'Your {cart} has {n} items', imported: 'Twój {kart} ma {n} rzeczy', written: false },
      { key: 'greet', reason: 'template field {{ .Name }} missing', source: 'Hello {{.Name}}', imported: 'Cześć {{.Nam}}', written: false },
      { key: 'days', reason: "plural branch 'few' missing (pl needs one, few, many, other)", source: EN_PLURAL, imported: '{count, plural, one {# dzień} other {# dni}}', written: false },
      { key: 'terms', reason: 'attribute href of <a> changed from "/terms" to "/warunki"', source: 'Read <a href="/terms">the terms</a>', imported: 'Przeczytaj <a href="/warunki">warunki</a>', written: false },
      { key: 'save', reason: 'dropped closing </b>', source: 'Press <b>Save</b>', imported: 'Naciśnij <b>Zapisz', written: false },
    ];

    const dry = await importFile('json', file, '&ns=fmt&locale=pl');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: 0, conflicts: [], broken: expected });

    const applied = await importFile('json', file, '&ns=fmt&locale=pl&apply=true');
    expect(applied.body).toMatchObject({ created: 1, forced: 0, broken: expected });
    const catalog = await call(`${api}/i18n/messages?ns=fmt&locale=pl`);
    expect(catalog.body.messages).toEqual({ fine: 'Cześć {name}' });

    const forced = await importFile('json', file, '&ns=fmt&locale=pl&apply=true&force=true');
    expect(forced.body).toMatchObject({ created: 5, unchanged: 1, forced: 5, broken: expected.map((b) => ({ ...b, written: true })) });
    expect((await repo.find({ ns: 'fmt', key: 'greet' }))?.translations.pl).toBe('Cześć {{.Nam}}');
  });

  it('checks PO and XLIFF imports too, a new key against the source text the file brings', async () => {
    const t = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationService);
    await t.upsert('fmt2', 'greet', 'en', 'Hello {{.Name}}', human());
    const po = 'msgid ""\nmsgstr ""\n"Language: pl\\n"\n\nmsgctxt "greet"\nmsgid "Hello {{.Name}}"\nmsgstr "Cześć {{.Nam}}"\n';
    const poReport = await importFile('po', po, '&ns=fmt2&apply=true');
    expect(poReport.status).toBe(200);
    expect(poReport.body).toMatchObject({ created: 0, broken: [{ key: 'greet', reason: 'template field {{ .Name }} missing', written: false }] });
    expect((await repo.find({ ns: 'fmt2', key: 'greet' }))?.translations.pl).toBeUndefined();

    const xml = `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pl">
  <file id="f"><unit id="hello"><segment><source>Hi {name}, see {count, plural, one {# file} other {# files}}</source><target>Cześć {imie}, zobacz {count, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}</target></segment></unit></file>
</xliff>`;
    const xliff = await importFile('xliff', xml, '&ns=fmt2&apply=true');
    expect(xliff.body).toMatchObject({ created: 0, broken: [{ key: 'hello', reason: 'placeholder {name} missing', source: 'Hi {name}, see {count, plural, one {# file} other {# files}}' }] });
    expect(await repo.find({ ns: 'fmt2', key: 'hello' })).toBeNull();
  });

  it('answers 400 with the parser line for a file in the wrong format', async () => {
    const xliff = await importFile('xliff', '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" trgLang="pl">\n<file id="f">\n<unit id="a"><segment><source>a</sourc></segment></unit></file></xliff>', '&ns=shop');
    expect(xliff.status).toBe(400);
    expect(xliff.body).toMatchObject({ code: 'I18N_INVALID_FILE', details: { format: 'xliff', line: 3 }, requestId: expect.any(String) });
    const po = await importFile('po', 'msgid ""\nmsgstr ""\n"Language: pl\\n"\n\nmsgid "a"\nmsgstr "b\nmsgid "c"\n', '&ns=shop');
    expect(po.status).toBe(400);
    expect(po.body).toMatchObject({ code: 'I18N_INVALID_FILE', details: { format: 'po', line: expect.any(Number) } });
    const json = await importFile('json', '{\n  "a": "x",\n  "b": \n}', '&ns=shop&locale=pl');
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ code: 'INVALID_JSON', message: expect.stringContaining('line 4') });
    const xmlAsPo = await importFile('po', '<xliff version="2.0"></xliff>', '&ns=shop&locale=pl');
    expect(xmlAsPo.status).toBe(400);
  });

  it('imports a unit with several notes as one note that the admin text search finds', async () => {
    const xml = `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
  <file id="f"><unit id="notes.pay"><notes><note>Button label</note><note>Max 12 characters</note></notes><segment><source>Pay</source><target>Zahlen</target></segment></unit></file>
</xliff>`;
    expect((await importFile('xliff', xml, '&ns=notes&apply=true')).status).toBe(200);
    const found = await call(`${api}/admin/i18n/translations?q=${encodeURIComponent('max 12')}`, { bearer: admin });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ items: [{ ns: 'notes', key: 'notes.pay', context: 'Button label\nMax 12 characters' }] });
    // A text search over every row (nothing matches) still answers.
    expect((await call(`${api}/admin/i18n/translations?q=zzz-nothing`, { bearer: admin })).status).toBe(200);
  });

  it('takes a multipart upload (field file) and refuses callers without admin:access', async () => {
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify({ 'cart.title': 'Koszyk' })], { type: 'application/json' }), 'shop.pl.json');
    const res = await fetch(`${api}/admin/i18n/import?ns=shop&locale=pl`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ format: 'json', dryRun: true, unchanged: 1 });
    const user = await token('bob', []);
    expect((await call(`${api}/admin/i18n/coverage`, { bearer: user })).status).toBe(403);
    expect((await call(`${api}/admin/i18n/export?locale=pl`)).status).toBe(401);
  });
});
