import { Topics } from '@flowplane/contracts';
import { STORE } from '@flowplane/platform/service';
import type { Store } from '@flowplane/platform/store';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/** The message catalog, locales, messages and translation rows through the gateway of `npm start`. */
describe('i18n catalog, locales and translation rows', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  const keysChanged: Array<{ ns?: string; keys: string[]; reason?: string }> = [];
  const updated: Array<{ ns?: string; locale?: string }> = [];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ I18N_REPORT_KEYS_RATE_LIMIT: '5' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    await platform.bus.subscribe<{ ns?: string; keys: string[]; reason?: string }>([Topics.I18nKeysChanged], { groupId: 'test-keys-changed' }, async (e) => {
      keysChanged.push(e.data);
    });
    await platform.bus.subscribe<{ ns?: string; locale?: string }>([Topics.I18nUpdated], { groupId: 'test-updated' }, async (e) => {
      updated.push(e.data);
    });
  });
  afterAll(() => platform?.close());

  const put = (body: unknown) => call(`${api}/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json(body) });
  const row = (body: unknown) => call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json(body) });
  const catalog = (query: string, headers: Record<string, string> = {}) => call(`${api}/i18n/messages?${query}`, { headers });

  it('serves settings tokens expanded with the current setting: a settings change reaches a catalog already served', async () => {
    expect((await put({ ns: 'brand', key: 'title', locale: 'en', value: 'Welcome to [[ site.name ]]' })).status).toBeLessThan(300);
    const set = (name: string) => call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: name } } }) });
    expect((await set('Acme')).status).toBe(200);
    const first = await until(() => catalog('ns=brand&locale=en'), (r) => r.body?.messages?.title === 'Welcome to Acme');
    expect(first.body.messages.title).toBe('Welcome to Acme');
    expect((await set('Globex')).status).toBe(200);
    const second = await until(() => catalog('ns=brand&locale=en'), (r) => r.body?.messages?.title === 'Welcome to Globex', 3000);
    expect(second.body.messages.title).toBe('Welcome to Globex');
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('lists a message stored without timestamps with null times instead of failing the page', async () => {
    const store = platform.services.find((s) => s.name === 'i18n')!.app.get<Store>(STORE);
    // As an older version or a hand-made import would have stored it: no createdAt, updatedAt or stamps.
    await store.collection('translations').insertOne({ ns: 'legacy', key: 'old.title', translations: { en: 'Old' }, provenance: {}, pending: {}, modules: [] });
    const res = await call(`${api}/admin/i18n/messages?ns=legacy&locale=en`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([expect.objectContaining({ ns: 'legacy', key: 'old.title', value: 'Old', createdAt: null, updatedAt: null })]);
  });

  it('seeds pl (default) and en (fallback and source) on a fresh install, both active and public', async () => {
    const admins = await call(`${api}/admin/i18n/locales`, { bearer: admin });
    expect(admins.status).toBe(200);
    expect(admins.body.map((l: { code: string }) => l.code)).toEqual(['en', 'pl']);
    expect(admins.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'pl', languageTag: 'pl', active: true, isDefault: true }),
        expect.objectContaining({ code: 'en', languageTag: 'en', active: true, isFallback: true, isSource: true }),
      ]),
    );
    const pub = await call(`${api}/i18n/locales`);
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual([
      { code: 'en', languageTag: 'en', name: 'English' },
      { code: 'pl', languageTag: 'pl', name: 'polski' },
    ]);
  });

  it('manages locales: languageTag from the alias table or the admin, 409 on a duplicate, 400 on a bad code or tag', async () => {
    const cz = await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'cz', name: 'Čeština' }) });
    expect(cz.status).toBe(201);
    expect(cz.body).toMatchObject({ code: 'cz', languageTag: 'cs', active: true });
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'cz' }) })).status).toBe(409);
    const bad = await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'a/b' }) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
    expect(JSON.stringify(bad.body.details)).toContain('code');
    const badTag = await call(`${api}/admin/i18n/locales/cz`, { method: 'PUT', bearer: admin, ...json({ language: 'not a tag!' }) });
    expect(badTag.status).toBe(400);
    const unknownField = await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'se', colour: 'blue' }) });
    expect(unknownField.status).toBe(400);
    expect(JSON.stringify(unknownField.body)).toContain('colour');
    const overridden = await call(`${api}/admin/i18n/locales/cz`, { method: 'PUT', bearer: admin, ...json({ language: 'sk', active: false }) });
    expect(overridden.body).toMatchObject({ code: 'cz', language: 'sk', languageTag: 'sk', active: false });
    expect((await call(`${api}/i18n/locales`)).body.map((l: { code: string }) => l.code)).not.toContain('cz');
    expect((await call(`${api}/admin/i18n/locales/cz`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/admin/i18n/locales/cz`, { method: 'DELETE', bearer: admin })).status).toBe(404);
    expect((await call(`${api}/admin/i18n/locales`)).status).toBe(401);
  });

  it('serves the merged chain without ns, raw translations with ns, and the key when nothing matches', async () => {
    expect((await put({ key: 'greet', locale: 'en', value: 'Hello {{.Name}}' })).status).toBe(201);
    expect((await put({ key: 'greet', locale: 'pl', value: 'Cześć {{.Name}}' })).status).toBe(201);
    expect((await put({ key: 'greet', locale: 'pl', value: 'Witaj {{.Name}}' })).status).toBe(200);
    await put({ key: 'only.en', locale: 'en', value: 'Only English' });
    await put({ ns: 'shop', key: 'pay', locale: 'en', value: 'Pay' });
    const de = await catalog('locale=de-AT');
    expect(de.status).toBe(200);
    expect(de.body).toEqual({ locale: 'de-AT', namespace: '', messages: expect.objectContaining({ greet: 'Hello {{.Name}}', 'only.en': 'Only English' }) });
    const pl = await catalog('locale=pl-PL');
    expect(pl.body.messages).toMatchObject({ greet: 'Witaj {{.Name}}', 'only.en': 'Only English' });
    const shopPl = await catalog('ns=shop&locale=pl');
    expect(shopPl.body).toEqual({ locale: 'pl', namespace: 'shop', messages: {} });
    const shopEn = await catalog('ns=shop&locale=en');
    expect(shopEn.body.messages).toEqual({ pay: 'Pay' });
    const byCookie = await call(`${api}/i18n/messages`, { headers: { 'accept-language': 'en-GB;q=0.9, pl' } });
    expect(byCookie.body.locale).toBe('en-GB');
  });

  it('answers a strong ETag and 304 for If-None-Match until a write changes the bucket', async () => {
    const first = await catalog('locale=pl');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await catalog('locale=pl', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await put({ key: 'greet', locale: 'pl', value: 'Dzień dobry {{.Name}}' });
    const changed = await catalog('locale=pl', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.messages.greet).toBe('Dzień dobry {{.Name}}');
  });

  it('lists, pages and deletes messages; delete needs key and locale', async () => {
    const page1 = await call(`${api}/admin/i18n/messages?locale=en&limit=1`, { bearer: admin });
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(1);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await call(`${api}/admin/i18n/messages?locale=en&limit=1&cursor=${page1.body.nextCursor}`, { bearer: admin });
    expect(page2.body.items[0].key).not.toBe(page1.body.items[0].key);
    const searched = await call(`${api}/admin/i18n/messages?q=witaj`, { bearer: admin });
    expect(searched.body.items).toEqual([]);
    expect((await call(`${api}/admin/i18n/messages?key=greet`, { method: 'DELETE', bearer: admin })).status).toBe(400);
    expect((await call(`${api}/admin/i18n/messages?key=only.en&locale=en`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/admin/i18n/messages?key=only.en&locale=en`, { method: 'DELETE', bearer: admin })).status).toBe(404);
    expect((await catalog('locale=en')).body.messages['only.en']).toBeUndefined();
    expect((await call(`${api}/admin/i18n/messages?cursor=garbage`, { bearer: admin })).status).toBe(400);
  });

  it('upserts translation rows: named locales only, empty removes, human only where text changed, filters and cursor', async () => {
    const created = await row({ ns: 'ui', key: 'save', translations: { en: 'Save', pl: 'Zapisz', de: 'Speichern' }, context: 'Button' });
    expect(created.status).toBe(201);
    const before = created.body.provenance.de.at;
    await new Promise((r) => setTimeout(r, 5));
    const saved = await row({ ns: 'ui', key: 'save', translations: { en: 'Save', pl: 'Zachowaj', de: '' } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ ns: 'ui', key: 'save', translations: { en: 'Save', pl: 'Zachowaj' }, context: 'Button', modules: [] });
    expect(saved.body.translations.de).toBeUndefined();
    expect(saved.body.provenance.en.at).toBe(created.body.provenance.en.at);
    expect(saved.body.provenance.pl.at > before).toBe(true);
    await row({ ns: 'ui', key: 'cancel', translations: { en: 'Cancel' } });
    const missing = await call(`${api}/admin/i18n/translations?ns=ui&missing=pl`, { bearer: admin });
    expect(missing.body.items.map((r: { key: string }) => r.key)).toEqual(['cancel']);
    const paged = await call(`${api}/admin/i18n/translations?ns=ui&limit=1`, { bearer: admin });
    expect(paged.body.items.map((r: { key: string }) => r.key)).toEqual(['cancel']);
    const next = await call(`${api}/admin/i18n/translations?ns=ui&limit=1&cursor=${paged.body.nextCursor}`, { bearer: admin });
    expect(next.body).toMatchObject({ items: [{ key: 'save' }], nextCursor: null });
    const prefixed = await call(`${api}/admin/i18n/translations?prefix=sa`, { bearer: admin });
    expect(prefixed.body.items.map((r: { key: string }) => r.key)).toEqual(['save']);
    expect((await call(`${api}/admin/i18n/translations?limit=1001`, { bearer: admin })).status).toBe(400);
  });

  it('publishes i18n.keys_changed for new keys, source text and notes, never for a translation write', async () => {
    keysChanged.length = 0;
    await row({ ns: 'kc', key: 'k1', translations: { en: 'One' } });
    await row({ ns: 'kc', key: 'k1', translations: { pl: 'Jeden' } });
    await put({ ns: 'kc', key: 'k1', locale: 'de', value: 'Eins' });
    await row({ ns: 'kc', key: 'k1', translations: { en: 'One!' } });
    await row({ ns: 'kc', key: 'k1', context: 'a number' });
    await until(async () => keysChanged.length, (n) => n >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(keysChanged.filter((e) => e.ns === 'kc')).toEqual([
      { ns: 'kc', keys: ['k1'], reason: 'added' },
      { ns: 'kc', keys: ['k1'], reason: 'source_changed' },
      { ns: 'kc', keys: ['k1'], reason: 'context_changed' },
    ]);
    expect(updated.some((e) => e.ns === 'kc' && e.locale === 'de')).toBe(true);
  });

  it('registers reported keys write-once, upserts notes, accumulates modules, and limits the envelope', async () => {
    keysChanged.length = 0;
    const report = (body: unknown) => call(`${api}/i18n/report-keys`, { method: 'POST', ...json(body) });
    const first = await report({ keys: [{ key: 'r.hello', text: 'Hello', module: 'web' }, { key: 'greet', text: 'Hi!', module: 'web' }] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ created: 1, existing: 1, contextUpdated: 0, modulesAdded: 2 });
    const second = await report({ keys: [{ key: 'r.hello', text: 'Changed', module: 'app', context: 'Greeting' }] });
    expect(second.body).toEqual({ created: 0, existing: 1, contextUpdated: 1, modulesAdded: 1 });
    const rows = await call(`${api}/admin/i18n/translations?prefix=r.`, { bearer: admin });
    expect(rows.body.items[0]).toMatchObject({ key: 'r.hello', translations: { en: 'Hello' }, context: 'Greeting', modules: ['web', 'app'] });
    expect(rows.body.items[0].provenance.en.source).toBe('code');
    expect((await catalog('locale=en')).body.messages['greet']).toBe('Hello {{.Name}}');
    await until(async () => keysChanged.length, (n) => n >= 2);
    expect(keysChanged).toEqual(expect.arrayContaining([{ ns: '', keys: ['r.hello'], reason: 'added' }, { ns: '', keys: ['r.hello'], reason: 'context_changed' }]));
    const tooMany = await report({ keys: Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, text: 't', module: 'm' })) });
    expect([400, 413]).toContain(tooMany.status);
    const longKey = await report({ keys: [{ key: 'k'.repeat(201), text: 't', module: 'm' }] });
    expect(longKey.status).toBe(400);
  });

  it('refuses control characters, a huge value and unknown fields with 400; a broken placeholder is served raw', async () => {
    expect((await put({ key: 'bad\u0007key', locale: 'en', value: 'x' })).status).toBe(400);
    expect((await put({ ns: 'a\nb', key: 'k', locale: 'en', value: 'x' })).status).toBe(400);
    expect((await put({ key: 'k', locale: 'e n', value: 'x' })).status).toBe(400);
    const big = await put({ key: 'k', locale: 'en', value: 'x'.repeat(1024 * 1024) });
    expect([400, 413]).toContain(big.status);
    const unknown = await put({ key: 'k', locale: 'en', value: 'x', extra: 1 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('extra');
    expect((await put({ key: 'broken', locale: 'en', value: 'Hi {{.Name' })).status).toBe(201);
    expect((await catalog('locale=en')).body.messages.broken).toBe('Hi {{.Name');
  });

  it('rate limits report-keys per client address with 429 and Retry-After', async () => {
    let last = 0;
    let retry: string | null = null;
    for (let i = 0; i < 6; i++) {
      const res = await call(`${api}/i18n/report-keys`, { method: 'POST', ...json({ keys: [] }) });
      last = res.status;
      retry = res.headers.get('retry-after');
    }
    expect(last).toBe(429);
    expect(Number(retry)).toBeGreaterThan(0);
  });
});
