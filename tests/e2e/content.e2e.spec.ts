import { Topics } from '@flowplane/contracts';
import { STORE } from '@flowplane/platform/service';
import type { Store } from '@flowplane/platform/store';
import { ContentRepository } from '../../libs/i18n/src/content/persistence/content.repository';
import { LocaleRepository } from '../../libs/i18n/src/locales/persistence/locale.repository';
import { SeedLegalPagesUseCase } from '../../libs/i18n/src/content/use-cases/seed-legal-pages.use-case';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

interface Changed {
  type: string;
  id: string;
  action: string;
  source_changed: boolean;
}

/** Localized content: pages, fragments, legal pages and the sitemap through the gateway of `npm start`. */
describe('localized content: pages, fragments, legal pages, sitemap', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  const events: Changed[] = [];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    await platform.bus.subscribe<Changed>([Topics.ContentPageChanged, Topics.ContentFragmentChanged], { groupId: 'test-content-changed' }, async (e) => {
      events.push(e.data);
    });
    const settings = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: 'Acme <&> Co', pl: 'Akme' }, support_email: 'help@acme.test' } }) });
    expect(settings.status).toBe(200);
    // Public settings reach the i18n service through its cached reader.
    await until(() => call(`${api}/pages/privacy?lang=en`), (r) => typeof r.body?.title === 'string' && r.body.body.includes('help@acme.test'));
  });
  afterAll(() => platform?.close());

  const putPage = (slug: string, body: unknown) => call(`${api}/admin/content/pages/${slug}`, { method: 'PUT', bearer: admin, ...json(body) });
  const putFragment = (key: string, body: unknown) => call(`${api}/admin/content/fragments/${key}`, { method: 'PUT', bearer: admin, ...json(body) });
  const seeder = () => platform.services.find((s) => s.name === 'i18n')!.app.get(SeedLegalPagesUseCase);

  it('seeds the legal pages with review required, their tokens expanded when read', async () => {
    const list = await call(`${api}/admin/content/pages`, { bearer: admin });
    expect(list.status).toBe(200);
    const privacy = list.body.items.find((p: { slug: string }) => p.slug === 'privacy');
    expect(privacy).toMatchObject({ seededFrom: 'privacy', translation: { reviewRequired: true, locales: { en: 'current', pl: 'current' } } });
    expect(list.body.items.map((p: { slug: string }) => p.slug)).toEqual(expect.arrayContaining(['privacy', 'terms']));
    const pl = await call(`${api}/pages/privacy?lang=pl`);
    expect(pl.status).toBe(200);
    expect(pl.body).toMatchObject({ slug: 'privacy', locale: 'pl', title: 'Polityka prywatności' });
    expect(pl.body.body).toContain('Polityka prywatności Akme');
    expect(pl.body.body).toContain('<a href="mailto:help@acme.test">help@acme.test</a>');
    expect(pl.body.body).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}">/);
  });

  it('re-seeds without a write when only the date differs, never overwrites an edited page, never brings back a deleted one', async () => {
    const before = (await call(`${api}/admin/content/pages/privacy`, { bearer: admin })).body;
    const seen = events.length;
    const nextYear = new Date(Date.now() + 365 * 24 * 3600_000);
    expect(await seeder().execute(nextYear)).toEqual({ privacy: 'unchanged', terms: 'unchanged' });
    const after = (await call(`${api}/admin/content/pages/privacy`, { bearer: admin })).body;
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.body.en).toBe(before.body.en);
    await new Promise((r) => setTimeout(r, 200));
    expect(events.slice(seen).filter((e) => e.id === 'privacy' || e.id === 'terms')).toEqual([]);

    expect((await putPage('privacy', { title: { en: 'Our privacy policy' }, body: before.body })).status).toBe(200);
    expect(await seeder().execute(nextYear)).toMatchObject({ privacy: 'kept' });
    const edited = (await call(`${api}/admin/content/pages/privacy`, { bearer: admin })).body;
    expect(edited).toMatchObject({ title: { en: 'Our privacy policy' }, translation: { reviewRequired: true } });
    expect(edited.seededFrom).toBeUndefined();

    expect((await call(`${api}/admin/content/pages/terms`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect(await seeder().execute(nextYear)).toMatchObject({ terms: 'deleted' });
    expect((await call(`${api}/pages/terms`)).status).toBe(404);
  });

  it('creates (201) and replaces (200) a page; reads it in two locales: title plain, body HTML with token values escaped', async () => {
    const page = {
      title: { en: 'About [[ site.name ]]', pl: 'O firmie [[ site.name ]]' },
      body: { en: '<p class="x">Hello from <b>[[ site.name ]]</b> [[ site.nope ]]</p>', pl: '<p>Witamy w <b>[[ site.name ]]</b></p>' },
      seo: { description: { en: 'All about [[ site.name ]]' } },
    };
    const created = await putPage('about-us', page);
    expect(created.status).toBe(201);
    // Polish title and body were written beside the source, the SEO description has no Polish yet.
    expect(created.body).toMatchObject({ slug: 'about-us', title: page.title, translation: { translationReady: false, sourceHash: null, locales: { en: 'current', pl: 'missing' } } });
    const units = Object.fromEntries(created.body.translation.units.map((u: { unit: string; locales: string[] }) => [u.unit, u.locales]));
    expect(units).toEqual({ title: ['pl'], body: ['pl'], 'seo.description': [] });
    const replaced = await putPage('about-us', { ...page, translationReady: true });
    expect(replaced.status).toBe(200);
    expect(replaced.body.translation.translationReady).toBe(true);

    const en = await call(`${api}/pages/about-us?lang=en`);
    expect(en.status).toBe(200);
    expect(en.body).toEqual({
      slug: 'about-us',
      locale: 'en',
      title: 'About Acme <&> Co',
      body: '<p class="x">Hello from <b>Acme &lt;&amp;&gt; Co</b> [[ site.nope ]]</p>',
      seo: { description: 'All about Acme <&> Co' },
      updatedAt: replaced.body.updatedAt,
    });
    expect(en.headers.get('content-language')).toBe('en');
    const pl = await call(`${api}/pages/about-us`, { headers: { cookie: 'lang=pl-PL' } });
    expect(pl.body).toMatchObject({ locale: 'pl-PL', title: 'O firmie Akme', body: '<p>Witamy w <b>Akme</b></p>', seo: { description: 'All about Akme' } });
    expect(pl.headers.get('content-language')).toBe('pl');
    const de = await call(`${api}/pages/about-us`, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(de.body).toMatchObject({ locale: 'de-DE', title: 'About Acme <&> Co' });
  });

  it('serves a rendered page again until the page or a setting changes', async () => {
    await putPage('news', { title: { en: 'News of [[ site.name ]]' }, body: { en: '<p>First</p>' } });
    const first = await call(`${api}/pages/news?lang=en`);
    const again = await call(`${api}/pages/news?lang=en`);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('content-language')).toBe('en');
    expect(again.headers.get('x-request-id')).toEqual(expect.any(String));
    await putPage('news', { title: { en: 'Latest of [[ site.name ]]' }, body: { en: '<p>Second</p>' } });
    expect((await call(`${api}/pages/news?lang=en`)).body).toMatchObject({ title: 'Latest of Acme <&> Co', body: '<p>Second</p>' });
    const renamed = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: 'Globex', pl: 'Akme' } } }) });
    expect(renamed.status).toBe(200);
    const fresh = await until(() => call(`${api}/pages/news?lang=en`), (r) => r.body?.title === 'Latest of Globex');
    expect(fresh.body.title).toBe('Latest of Globex');
    expect((await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: 'Acme <&> Co', pl: 'Akme' } } }) })).status).toBe(200);
    await until(() => call(`${api}/pages/news?lang=en`), (r) => r.body?.title === 'Latest of Acme <&> Co');
    expect((await call(`${api}/admin/content/pages/news`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/pages/news?lang=en`)).status).toBe(404);
  });

  it('tracks translation state per active locale: a source edit makes the other locales stale; SEO is not source', async () => {
    await putPage('state', { title: { en: 'One', pl: 'Jeden' }, body: { en: '<p>1</p>', pl: '<p>1</p>' } });
    const seen = events.length;
    const seoOnly = await putPage('state', { title: { en: 'One', pl: 'Jeden' }, body: { en: '<p>1</p>', pl: '<p>1</p>' }, seo: { title: { en: 'SEO' } } });
    expect(seoOnly.body.translation.locales).toEqual({ en: 'current', pl: 'missing' });
    const edited = await putPage('state', { title: { en: 'One!', pl: 'Jeden' }, body: { en: '<p>1</p>', pl: '<p>1</p>' }, retranslate: true });
    expect(edited.body.translation).toMatchObject({ retranslate: true, locales: { en: 'current', pl: 'stale' } });
    expect(edited.body.translation.units.find((u: { unit: string }) => u.unit === 'title').locales).toEqual([]);
    const events2 = await until(async () => events.slice(seen).filter((e) => e.id === 'state'), (e) => e.length >= 2);
    expect(events2).toEqual([
      { type: 'page', id: 'state', slug: 'state', action: 'updated', source_changed: false },
      { type: 'page', id: 'state', slug: 'state', action: 'updated', source_changed: true },
    ]);
  });

  it('lists pages a page at a time', async () => {
    const first = await call(`${api}/admin/content/pages?limit=1`, { bearer: admin });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(`${api}/admin/content/pages?limit=1&cursor=${first.body.nextCursor}`, { bearer: admin });
    expect(second.body.items[0].slug > first.body.items[0].slug).toBe(true);
    expect((await call(`${api}/admin/content/pages?cursor=nope`, { bearer: admin })).status).toBe(400);
  });

  it('answers 400 for a bad slug or body, 404 for an unknown page, 401/403 without admin:access, and deletes', async () => {
    const bad = await putPage('Not_A_Slug', { title: {}, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, code: 'CONTENT_INVALID_INPUT', requestId: expect.any(String) });
    expect((await putPage('ok', { title: { 'bad locale!': 'x' }, body: {} })).status).toBe(400);
    expect((await putPage('ok', { title: {}, body: {}, colour: 'red' })).status).toBe(400);
    const missing = await call(`${api}/pages/no-such-page`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'CONTENT_PAGE_NOT_FOUND', requestId: expect.any(String) });
    expect((await call(`${api}/admin/content/pages/no-such-page`, { bearer: admin })).status).toBe(404);
    expect((await call(`${api}/admin/content/pages`)).status).toBe(401);
    expect((await call(`${api}/admin/content/pages`, { bearer: await token('bob') })).status).toBe(403);
    await putPage('gone', { title: { en: 'Gone' }, body: { en: '' } });
    expect((await call(`${api}/admin/content/pages/gone`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/admin/content/pages/gone`, { method: 'DELETE', bearer: admin })).status).toBe(404);
    expect((await call(`${api}/pages/gone`)).status).toBe(404);
  });

  it('stores fragments with markers intact and serves them projected, tokens expanded as plain text', async () => {
    const data = {
      links: [
        { href: '/privacy', label: { _i18n: { en: 'Privacy', pl: 'Prywatność' } } },
        { href: '/terms', label: { _i18n: { en: 'Terms' } } },
      ],
      copyright: '© [[ site.name ]]',
      banner: { _i18n: { en: 'Welcome to [[ site.name ]]', pl: 'Witamy w [[ site.name ]]' } },
      mixed: { _i18n: { en: 'x' }, other: true },
      'dotted.name': 1,
    };
    const created = await putFragment('footer', { data });
    expect(created.status).toBe(201);
    expect(created.body.translation.units.map((u: { unit: string }) => u.unit)).toEqual(['/links/0/label', '/links/1/label', '/banner']);
    expect(created.body.translation.locales).toEqual({ en: 'current', pl: 'missing' });
    expect((await putFragment('footer', { data, translationReady: true })).status).toBe(200);
    expect((await call(`${api}/admin/content/fragments/footer`, { bearer: admin })).body.data).toEqual(data);
    const pl = await call(`${api}/fragments/footer?lang=pl`);
    expect(pl.status).toBe(200);
    expect(pl.body).toEqual({
      key: 'footer',
      locale: 'pl',
      data: {
        links: [
          { href: '/privacy', label: 'Prywatność' },
          { href: '/terms', label: 'Terms' },
        ],
        copyright: '© Akme',
        banner: 'Witamy w Akme',
        mixed: { _i18n: { en: 'x' }, other: true },
        'dotted.name': 1,
      },
    });
    expect((await call(`${api}/fragments/footer?lang=en`)).body.data.copyright).toBe('© Acme <&> Co');
    const list = await call(`${api}/admin/content/fragments`, { bearer: admin });
    expect(list.body.items.map((f: { key: string }) => f.key)).toContain('footer');
    expect((await call(`${api}/admin/content/fragments/footer`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/fragments/footer`)).status).toBe(404);
  });

  it('refuses a "$" field name anywhere with a 400 naming its path; takes a fragment 10 levels deep with 10,000 leaves; 413 beyond the leaf limit', async () => {
    const dollar = await putFragment('nav', { data: { items: [{ ok: 1 }, { child: { $where: 'x' } }] } });
    expect(dollar.status).toBe(400);
    expect(dollar.body).toMatchObject({ code: 'CONTENT_INVALID_INPUT', details: [{ field: '/data/items/1/child/$where' }] });
    expect((await putFragment('Bad Key', { data: {} })).status).toBe(400);

    let deep: unknown = Array.from({ length: 10_000 }, (_, i) => ({ _i18n: { en: `L${i}`, pl: `E${i}` } }));
    for (let i = 0; i < 9; i++) deep = { level: deep };
    const big = await putFragment('deep', { data: deep });
    expect(big.status).toBe(201);
    let served = (await call(`${api}/fragments/deep?lang=pl`)).body.data;
    for (let i = 0; i < 9; i++) served = served.level;
    expect(served).toHaveLength(10_000);
    expect(served[9_999]).toBe('E9999');
    const tooMany = await putFragment('wide', { data: Array.from({ length: 20_001 }, () => 1) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toMatchObject({ statusCode: 413, code: 'CONTENT_TOO_LARGE' });
  });

  it('publishes content.fragment.changed after each write', async () => {
    const seen = events.length;
    await putFragment('banner', { data: { text: { _i18n: { en: 'Sale' } } } });
    await putFragment('banner', { data: { text: { _i18n: { en: 'Sale', pl: 'Wyprzedaż' } } } });
    await putFragment('banner', { data: { text: { _i18n: { en: 'Big sale', pl: 'Wyprzedaż' } } } });
    const got = await until(async () => events.slice(seen).filter((e) => e.id === 'banner'), (e) => e.length >= 3);
    expect(got.map((e) => [e.type, e.action, e.source_changed])).toEqual([
      ['fragment', 'created', true],
      ['fragment', 'updated', false],
      ['fragment', 'updated', true],
    ]);
  });

  it('reads a page and a locale stored without timestamps: admin lists and reads, the public read and the sitemap answer without a date', async () => {
    const store = platform.services.find((s) => s.name === 'i18n')!.app.get<Store>(STORE);
    // As an older version or a hand-made import would have stored it: no createdAt, updatedAt or translation state.
    await store.collection(ContentRepository.PAGES).insertOne({ _id: 'legacy', title: { en: 'Legacy' }, body: { en: '<p>From before</p>' } });
    const list = await call(`${api}/admin/content/pages?limit=100`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body.items.find((p: { slug: string }) => p.slug === 'legacy')).toMatchObject({ slug: 'legacy', createdAt: null, updatedAt: null, translation: { translationReady: false } });
    const one = await call(`${api}/admin/content/pages/legacy`, { bearer: admin });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ createdAt: null, updatedAt: null });
    const read = await call(`${api}/pages/legacy?lang=en`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ slug: 'legacy', title: 'Legacy', body: '<p>From before</p>', updatedAt: null });
    const sitemap = await fetch(`${platform.url}/sitemap.xml`);
    expect(sitemap.status).toBe(200);
    const entry = (await sitemap.text()).split('<url>').find((u) => u.includes('/en/legacy</loc>'));
    expect(entry).toBeDefined();
    expect(entry).not.toContain('<lastmod>');
    // The next write gives it times again.
    const saved = await putPage('legacy', { title: { en: 'Legacy' }, body: { en: '<p>From before</p>' } });
    expect(saved.status).toBe(200);
    expect(saved.body.updatedAt).toEqual(expect.any(String));

    // The same for a locale of the registry written by hand.
    await store.collection(LocaleRepository.COLLECTION).insertOne({ code: 'xx', active: false });
    const locales = await call(`${api}/admin/i18n/locales`, { bearer: admin });
    expect(locales.status).toBe(200);
    expect(locales.body.find((l: { code: string }) => l.code === 'xx')).toMatchObject({ code: 'xx', active: false, createdAt: null, updatedAt: null });
    expect((await call(`${api}/admin/i18n/locales/xx`, { method: 'DELETE', bearer: admin })).status).toBe(200);
  });

  it('serves /sitemap.xml at the gateway root: every page under each active locale it has content in, with hreflang and x-default alternates', async () => {
    const cz = await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'cz' }) });
    expect(cz.status).toBe(201);
    expect((await putPage('kontakt', { title: { en: 'Contact', cz: 'Kontakt' }, body: { en: '<p>Write to us</p>', cz: '<p>Napište nám</p>' } })).status).toBe(201);
    const res = await fetch(`${platform.url}/sitemap.xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = (await res.text()).replaceAll('127.0.0.1', 'localhost');
    const origin = platform.url.replace('127.0.0.1', 'localhost');
    expect(xml).toContain(`<loc>${origin}/cz/kontakt</loc>`);
    // about-us has no Czech text: /cz/about-us would only show the English page, so it is not listed.
    expect(xml).not.toContain(`${origin}/cz/about-us`);
    expect(xml).toContain(`<loc>${origin}/pl/about-us</loc>`);
    const kontakt = xml.split('<url>').filter((u) => u.includes('/kontakt</loc>'));
    expect(kontakt).toHaveLength(2);
    for (const entry of kontakt) {
      expect(entry).toContain(`<xhtml:link rel="alternate" hreflang="cs" href="${origin}/cz/kontakt"/>`);
      expect(entry).toContain(`<xhtml:link rel="alternate" hreflang="x-default" href="${origin}/en/kontakt"/>`);
      expect(entry).not.toContain('hreflang="pl"');
    }
    expect(xml).toContain('hreflang="pl"');
    expect(xml).toMatch(/<xhtml:link rel="alternate" hreflang="en" href="[^"]+\/en\/privacy"\/>/);
    const set = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { base_url: 'https://www.acme.test' } }) });
    expect(set.status).toBe(200);
    const based = await until(
      async () => (await fetch(`${platform.url}/sitemap.xml`)).text(),
      (t) => t.includes('https://www.acme.test/'),
    );
    expect(based).toContain('<loc>https://www.acme.test/pl/about-us</loc>');
    expect((await call(`${api}/admin/i18n/locales/cz`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect(await (await fetch(`${platform.url}/sitemap.xml`)).text()).not.toContain('/cz/');
  });
});
