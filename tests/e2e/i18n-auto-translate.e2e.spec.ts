import { Topics } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { fingerprint } from '../../libs/i18n/src/coverage/fingerprint';
import { TranslationRepository } from '../../libs/i18n/src/translations/persistence/translation.repository';
import { call, json, testEnv, token } from '../support/http';

/**
 * Automatic translation of the catalog on `npm start` defaults (the `local` provider pseudo-localizes
 * deterministically): translate-missing to completion, provenance protecting human text, the review
 * queue, translation memory and the glossary. The translate flows are off so that only these calls
 * write translations.
 */
describe('i18n automatic translation: translate-missing, review queue, glossary', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let repository: TranslationRepository;
  const keysChanged: Array<{ ns?: string; keys: string[] }> = [];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ I18N_TRANSLATE_KEYS_PER_REQUEST: '3', I18N_AUTO_TRANSLATE_DISABLED: 'true' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    repository = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationRepository);
    await platform.bus.subscribe<{ ns?: string; keys: string[] }>([Topics.I18nKeysChanged], { groupId: 'test-auto-translate-keys' }, async (e) => {
      keysChanged.push(e.data);
    });
    for (const code of ['de', 'fr']) expect((await post('/admin/i18n/locales', { code })).status).toBe(201);
  });
  afterAll(() => platform?.close());

  const post = (path: string, body: unknown) => call(`${api}${path}`, { method: 'POST', bearer: admin, ...json(body) });
  const translate = (body: Record<string, unknown> = {}) => post('/admin/i18n/translations/translate-missing', body);
  const row = async (ns: string, key: string) => {
    const res = await call(`${api}/admin/i18n/translations?ns=${encodeURIComponent(ns)}&prefix=${encodeURIComponent(key)}`, { bearer: admin });
    return res.body.items.find((r: { key: string }) => r.key === key);
  };
  /** Calls translate-missing until it reports no work; resolves every answer. */
  const toCompletion = async (body: Record<string, unknown>) => {
    const answers = [];
    for (let i = 0; i < 20; i++) {
      const res = await translate(body);
      expect(res.status).toBe(200);
      answers.push(res.body);
      if (res.body.keysProcessed === 0) return answers;
    }
    throw new Error('translate-missing did not converge');
  };

  it('translates every missing cell a batch at a time until keysProcessed is 0, keeping placeholders; memory serves repeats', async () => {
    const texts: Record<string, string> = { a1: 'Hello {name}', a2: 'Save', a3: 'Save', a4: 'Cancel order', a5: 'You have <b>{count}</b> items', a6: 'Delete' };
    for (const [key, text] of Object.entries(texts)) expect((await post('/admin/i18n/translations', { ns: 'fill', key, translations: { en: text } })).status).toBe(201);
    await post('/admin/i18n/translations', { ns: 'fill', key: 'nosource', translations: { de: 'Nur Deutsch' } });
    await new Promise((r) => setTimeout(r, 200));
    const before = keysChanged.length;
    const answers = await toCompletion({ ns: 'fill' });
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const a of answers.slice(0, -1)) expect(a.keysProcessed).toBeLessThanOrEqual(3);
    expect(answers[0]).toMatchObject({ keysProcessed: 3, skippedProtected: 0, held: 0, failed: [], remaining: 3, missingSource: 1, usage: expect.objectContaining({ calls: expect.any(Number) }) });
    expect(answers.at(-1)).toMatchObject({ keysProcessed: 0, localesFilled: 0, remaining: 0, failed: [] });
    const total = answers.reduce((n, a) => n + a.localesFilled, 0);
    // pl, de and fr for six keys.
    expect(total).toBe(18);
    expect(answers.reduce((n, a) => n + a.memoryHits, 0)).toBe(3);
    const de = (await call(`${api}/i18n/messages?ns=fill&locale=de`)).body.messages;
    expect(Object.keys(de).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'nosource']);
    expect(de.a1).toContain('{name}');
    expect(de.a1).not.toBe('Hello {name}');
    expect(de.a5).toMatch(/<b>\{count\}<\/b>/);
    expect(de.a2).toBe(de.a3);
    const a3 = await row('fill', 'a3');
    expect(a3.provenance.de).toMatchObject({ source: 'machine', by: 'memory', source_hash: fingerprint('Save'), context_hash: fingerprint('') });
    expect((await row('fill', 'a1')).provenance.fr).toMatchObject({ source: 'machine', by: expect.stringContaining('local'), source_hash: fingerprint('Hello {name}') });
    // Rule 4: translation writes never announce the work signal.
    await new Promise((r) => setTimeout(r, 200));
    expect(keysChanged.slice(before).filter((e) => e.ns === 'fill')).toEqual([]);
  });

  it('human text survives an overwrite without includeProtected and is replaced with it; overwrite converges too', async () => {
    await post('/admin/i18n/translations', { ns: 'prot', key: 'title', translations: { en: 'Title', de: 'Überschrift' } });
    await call(`${api}/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json({ ns: 'prot', key: 'title', locale: 'fr', value: 'Titre' }) });
    const first = await toCompletion({ ns: 'prot', overwrite: true });
    expect(first[0]).toMatchObject({ keysProcessed: 1, localesFilled: 1, skippedProtected: 2 });
    let r = await row('prot', 'title');
    expect(r.translations).toMatchObject({ de: 'Überschrift', fr: 'Titre' });
    expect(r.provenance.de.source).toBe('human');
    expect(r.provenance.pl.source).toBe('machine');
    const forced = await toCompletion({ ns: 'prot', overwrite: true, includeProtected: true, locales: ['de'] });
    expect(forced[0]).toMatchObject({ keysProcessed: 1, localesFilled: 1, skippedProtected: 0 });
    r = await row('prot', 'title');
    expect(r.translations.de).not.toBe('Überschrift');
    expect(r.provenance.de).toMatchObject({ source: 'machine', source_hash: fingerprint('Title') });
    expect(r.translations.fr).toBe('Titre');
  });

  it('an explicit overwrite replaces current machine text once per pass; human text stays without includeProtected; bad instants are 400', async () => {
    expect((await post('/admin/i18n/translations', { ns: 'ow', key: 'close', translations: { en: 'Close' } })).status).toBe(201);
    expect((await toCompletion({ ns: 'ow' }))[0]).toMatchObject({ keysProcessed: 1, localesFilled: 3 });
    const made = (await row('ow', 'close')).provenance;
    await new Promise((r) => setTimeout(r, 10));

    const pass = await toCompletion({ ns: 'ow', overwrite: true, includeProtected: true });
    expect(pass[0]).toMatchObject({ keysProcessed: 1, localesFilled: 3, skippedProtected: 0, overwriteBefore: expect.any(String) });
    expect(pass.at(-1)).toMatchObject({ keysProcessed: 0, remaining: 0 });
    const redone = (await row('ow', 'close')).provenance;
    for (const l of ['de', 'fr', 'pl']) {
      expect(redone[l]).toMatchObject({ source: 'machine', source_hash: fingerprint('Close') });
      expect(Date.parse(redone[l].at)).toBeGreaterThan(Date.parse(made[l].at));
    }

    await call(`${api}/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json({ ns: 'ow', key: 'close', locale: 'fr', value: 'Fermer' }) });
    await new Promise((r) => setTimeout(r, 10));
    const kept = await toCompletion({ ns: 'ow', overwrite: true });
    expect(kept[0]).toMatchObject({ keysProcessed: 1, localesFilled: 2, skippedProtected: 1 });
    expect((await row('ow', 'close')).translations.fr).toBe('Fermer');

    const noOverwrite = await translate({ ns: 'ow', overwriteBefore: new Date().toISOString() });
    expect(noOverwrite.status).toBe(400);
    expect(JSON.stringify(noOverwrite.body.details)).toContain('overwriteBefore needs overwrite');
    const future = await translate({ ns: 'ow', overwrite: true, overwriteBefore: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.status).toBe(400);
    expect(JSON.stringify(future.body.details)).toContain('must not be in the future');
    const badMode = await translate({ ns: 'ow', mode: 'sometimes' });
    expect(badMode.status).toBe(400);
    expect(JSON.stringify(badMode.body.details)).toContain('mode must be missing or missing_and_stale');
  });

  it('held candidates: listed beside the source and what readers see, approved or rejected, released by a note change', async () => {
    await post('/admin/i18n/translations', { ns: 'rev', key: 'pay', translations: { en: 'Pay' }, context: 'salary, not a button' });
    // The offline reviewer passes every pseudo-localized candidate; a flagged one is held as the gate would hold it.
    const at = new Date().toISOString();
    const held = (locale: string) =>
      repository.setPending(
        { ns: 'rev', key: 'pay' },
        locale,
        { text: `${locale}: Bezahlen`, status: 'held', by: 'local/pseudo', source_hash: fingerprint('Pay'), context_hash: fingerprint('salary, not a button'), review: { ok: false, reason: 'wrong sense' }, at },
        new Date(),
      );
    await held('de');
    await held('fr');
    const list = await call(`${api}/admin/i18n/translations/pending?ns=rev`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      items: [
        {
          ns: 'rev',
          key: 'pay',
          context: 'salary, not a button',
          source: { locale: 'en', text: 'Pay' },
          entries: {
            de: expect.objectContaining({ status: 'held', candidate: 'de: Bezahlen', released: false, readersSee: { text: 'Pay', locale: 'en' } }),
            fr: expect.objectContaining({ status: 'held', candidate: 'fr: Bezahlen', readersSee: { text: 'Pay', locale: 'en' } }),
          },
        },
      ],
      nextCursor: null,
    });
    // Held cells block translation: only pl is filled.
    expect((await toCompletion({ ns: 'rev' }))[0]).toMatchObject({ keysProcessed: 1, localesFilled: 1 });
    expect((await row('rev', 'pay')).translations.de).toBeUndefined();

    const approved = await post('/admin/i18n/translations/pending/approve', { ns: 'rev', key: 'pay', locale: 'de' });
    expect(approved.status).toBe(200);
    expect(approved.body.translations.de).toBe('de: Bezahlen');
    expect(approved.body.provenance.de).toMatchObject({ source: 'machine', by: 'local/pseudo', review: { approved: true, by: 'alice' } });
    expect(approved.body.pending.de).toBeUndefined();
    expect((await call(`${api}/i18n/messages?ns=rev&locale=de`)).body.messages.pay).toBe('de: Bezahlen');

    const rejected = await post('/admin/i18n/translations/pending/reject', { ns: 'rev', key: 'pay', locale: 'fr', reason: 'means salary' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.pending.fr).toMatchObject({ status: 'rejected', review: { rejected: { by: 'alice', reason: 'means salary' } } });
    expect((await translate({ ns: 'rev' })).body).toMatchObject({ keysProcessed: 0, remaining: 0 });
    expect((await call(`${api}/admin/i18n/translations/pending?ns=rev`, { bearer: admin })).body.items[0].entries.fr.status).toBe('rejected');

    // A new note releases the rejected entry; the live write clears it.
    expect((await post('/admin/i18n/translations', { ns: 'rev', key: 'pay', context: 'monthly salary' })).status).toBe(200);
    expect((await call(`${api}/admin/i18n/translations/pending?ns=rev`, { bearer: admin })).body.items[0].entries.fr.released).toBe(true);
    expect((await translate({ ns: 'rev', review: true })).body).toMatchObject({ keysProcessed: 1, localesFilled: 1, held: 0 });
    const after = await row('rev', 'pay');
    expect(after.pending).toEqual({});
    expect(after.provenance.fr).toMatchObject({ source: 'machine', context_hash: fingerprint('monthly salary'), review: { ok: true } });
    expect((await call(`${api}/admin/i18n/translations/pending?ns=rev`, { bearer: admin })).body.items).toEqual([]);

    // An edited approval publishes human text.
    await held('fr');
    const edited = await post('/admin/i18n/translations/pending/approve', { ns: 'rev', key: 'pay', locale: 'fr', text: 'Salaire' });
    expect(edited.body.provenance.fr).toMatchObject({ source: 'human', by: 'alice' });
  });

  it('approve or reject with nothing held answers 404 with the standard error body; bad bodies 400', async () => {
    const none = await post('/admin/i18n/translations/pending/approve', { ns: 'rev', key: 'pay', locale: 'de' });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'I18N_NOTHING_HELD', message: expect.any(String), requestId: expect.any(String) });
    expect((await post('/admin/i18n/translations/pending/reject', { key: 'nope', locale: 'de' })).status).toBe(404);
    expect((await post('/admin/i18n/translations/pending/approve', { key: 'pay' })).status).toBe(400);
    const bad = await translate({ locales: ['not a locale'], overwrite: 'yes' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.details)).toMatch(/locales[\s\S]*overwrite|overwrite[\s\S]*locales/);
    expect((await call(`${api}/admin/i18n/translations/translate-missing`, { method: 'POST', ...json({}) })).status).toBe(401);
    const user = await token('bob', []);
    expect((await call(`${api}/admin/i18n/translations/pending`, { bearer: user })).status).toBe(403);
  });

  it('an empty body is valid and walks every namespace; with nothing to do it answers keysProcessed 0, remaining 0', async () => {
    // Every namespace: the console's and widget's seeded strings (English and Polish) still lack de and fr.
    const all = await translate({});
    expect(all.status).toBe(200);
    expect(all.body.keysProcessed).toBeLessThanOrEqual(3);
    expect(all.body.remaining).toBeGreaterThan(100);
    await toCompletion({ ns: '' });
    expect((await translate({ ns: '' })).body).toMatchObject({ keysProcessed: 0, localesFilled: 0, remaining: 0, failed: [] });
  });

  it('glossary: replaced as a whole and read back; bad entries are refused with 400', async () => {
    expect((await call(`${api}/admin/i18n/glossary`, { bearer: admin })).body).toEqual({ entries: [] });
    const entries = [{ term: 'Flowplane', doNotTranslate: true }, { term: 'workflow', locale: 'de', translation: 'Arbeitsablauf' }, { term: 'node', translation: 'nœud', locale: 'fr' }];
    const put = await call(`${api}/admin/i18n/glossary`, { method: 'PUT', bearer: admin, ...json({ entries }) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ entries });
    expect((await call(`${api}/admin/i18n/glossary`, { bearer: admin })).body).toEqual({ entries });
    const putBad = (body: unknown) => call(`${api}/admin/i18n/glossary`, { method: 'PUT', bearer: admin, ...json(body) });
    const noTranslation = await putBad({ entries: [{ term: 'workflow', locale: 'de' }] });
    expect(noTranslation.status).toBe(400);
    expect(noTranslation.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
    expect(JSON.stringify(noTranslation.body.details)).toContain('translation');
    expect((await putBad({ entries: [{ term: '', doNotTranslate: true }] })).status).toBe(400);
    expect((await putBad({ entries: [{ term: 'x'.repeat(201), doNotTranslate: true }] })).status).toBe(400);
    expect((await putBad({ entries: Array.from({ length: 501 }, (_, i) => ({ term: `t${i}`, doNotTranslate: true })) })).status).toBe(400);
    expect((await putBad({ entries: [{ term: 'x', doNotTranslate: true, colour: 'red' }] })).status).toBe(400);
    // The refused writes changed nothing; an empty list clears it.
    expect((await call(`${api}/admin/i18n/glossary`, { bearer: admin })).body).toEqual({ entries });
    expect((await putBad({ entries: [] })).body).toEqual({ entries: [] });
  });
});
