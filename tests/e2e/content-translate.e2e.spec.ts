import { Topics } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/**
 * Translation of localized content through the gateway of `npm start`, on the
 * `local` provider (deterministic pseudo-localization with a `[de] ` marker): the ready gate, a
 * page translated and read in German, a review-required page held then approved, a stale approve
 * refused then forced, the preview, and the sweep's three reasons with a quiet period and a budget.
 * The quiet period is 3 seconds here (CONTENT_TRANSLATE_QUIET_MINUTES=0.05) so a test can wait it out.
 */
describe('localized content: translation runs, review queue, preview, sweep', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    // Automatic translation and page search on, as `npm start` has them: the sweep's scheduler entry is seeded.
    platform = await startStandalone({ env: testEnv({ CONTENT_TRANSLATE_QUIET_MINUTES: '0.05', I18N_AUTO_TRANSLATE_DISABLED: 'false', CONTENT_PAGE_SEARCH: 'true' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
  }, 60_000);
  afterAll(() => platform?.close());

  const putPage = (slug: string, body: unknown) => call(`${api}/admin/content/pages/${slug}`, { method: 'PUT', bearer: admin, ...json(body) });
  const run = (body: unknown) => call(`${api}/admin/content/translations/run`, { method: 'POST', bearer: admin, ...json(body) });
  const post = (path: string, body: unknown) => call(`${api}/admin/content/translations/${path}`, { method: 'POST', bearer: admin, ...json(body) });

  it('seeds the content-translate-sweep scheduler entry (45 3 * * * UTC) before i18n reports ready', async () => {
    const ready = await until(() => call(`${platform.services.find((s) => s.name === 'i18n')!.url}/readyz`), (r) => r.status === 200, 20_000, 20);
    expect(ready.status).toBe(200);
    const schedule = await call(`${api}/flows/schedules/content-translate-sweep`, { bearer: admin });
    expect(schedule.status).toBe(200);
    expect(schedule.body).toMatchObject({ id: 'content-translate-sweep', cron: '45 3 * * *', topic: Topics.ContentTranslateSweep, enabled: true, source: 'seed' });
  });

  it('skips a page not marked ready and reports it, then translates it once marked and serves it in German', async () => {
    const page = { title: { en: 'About [[ site.name ]]' }, body: { en: '<p>We <strong>rent</strong> bikes.</p>' }, seo: { description: { en: 'Bike rental' } } };
    expect((await putPage('about-us', page)).status).toBe(201);
    const skipped = await run({ pages: ['about-us'] });
    expect(skipped.status).toBe(200);
    expect(skipped.body).toMatchObject({ translated: 0, failed: [], pending: 0, skipped: [{ type: 'page', id: 'about-us', reason: 'not ready' }], reason: 'nothing_to_do' });

    expect((await putPage('about-us', { ...page, translationReady: true })).status).toBe(200);
    const dry = await run({ pages: ['about-us'], dryRun: true });
    expect(dry.body).toMatchObject({ translated: 6, dryRun: true });
    const done = await run({ pages: ['about-us'] });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ translated: 6, failed: [], pending: 0, skipped: [], reason: null, remaining: 0 });

    const de = await call(`${api}/pages/about-us?lang=de`);
    expect(de.status).toBe(200);
    expect(de.body.title).toMatch(/^\[de\] /);
    // The HTML body keeps its tags; only the text between them is (pseudo-)translated.
    expect(de.body.body).toMatch(/^\[de\] <p>.*<strong>.*<\/strong>.*<\/p>$/);
    expect(de.body.seo.description).toMatch(/^\[de\] /);
    expect(de.headers.get('content-language')).toBe('de');
    const state = await call(`${api}/admin/content/pages/about-us`, { bearer: admin });
    expect(state.body.translation).toMatchObject({ locales: { de: 'current', pl: 'current', en: 'current' }, stale: false });
    expect((await run({ pages: ['about-us'] })).body).toMatchObject({ translated: 0, reason: 'nothing_to_do' });
  });

  it('translates the marked leaves of a fragment', async () => {
    const data = { links: [{ href: '/about-us', label: { _i18n: { en: 'About us' } } }] };
    expect((await call(`${api}/admin/content/fragments/footer`, { method: 'PUT', bearer: admin, ...json({ data, translationReady: true }) })).status).toBe(201);
    expect((await run({ fragments: ['footer'], locales: ['de'] })).body).toMatchObject({ translated: 1, reason: null });
    const de = await call(`${api}/fragments/footer?lang=de`);
    expect(de.body.data.links[0].label).toMatch(/^\[de\] /);
  });

  it('holds a review-required page in the queue (readers keep the source), previews it, and approves it', async () => {
    const page = { title: { en: 'Refunds' }, body: { en: '<p>Refunds within 14 days.</p>' }, translationReady: true, reviewRequired: true };
    expect((await putPage('refunds', page)).status).toBe(201);
    expect((await run({ pages: ['refunds'], locales: ['de'] })).body).toMatchObject({ translated: 0, pending: 2, reason: null });
    const reader = await call(`${api}/pages/refunds?lang=de`);
    expect(reader.body.title).toBe('Refunds');
    // Held candidates are not translated again on the next run.
    expect((await run({ pages: ['refunds'], locales: ['de'] })).body).toMatchObject({ pending: 0, reason: 'nothing_to_do' });

    const queue = await call(`${api}/admin/content/translations/pending`, { bearer: admin });
    expect(queue.status).toBe(200);
    const mine = queue.body.items.filter((i: { id: string }) => i.id === 'refunds');
    expect(mine).toHaveLength(2);
    expect(mine.find((i: { unit: string }) => i.unit === 'title')).toMatchObject({ type: 'page', locale: 'de', source: 'Refunds', current: 'Refunds', sourceChanged: false, candidate: expect.stringMatching(/^\[de\] /) });

    const preview = await call(`${api}/admin/content/pages/refunds/preview?locale=de`, { bearer: admin });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ slug: 'refunds', locale: 'de', title: expect.stringMatching(/^\[de\] /) });
    expect((await call(`${api}/pages/refunds?lang=de`)).body.title).toBe('Refunds');
    expect((await call(`${api}/admin/content/pages/no-such-page/preview?locale=de`, { bearer: admin })).status).toBe(404);

    const approved = await post('approve', { type: 'page', id: 'refunds', locale: 'de' });
    expect(approved.status).toBe(200);
    expect(approved.body.approved.map((a: { unit: string }) => a.unit).sort()).toEqual(['body', 'title']);
    expect((await call(`${api}/pages/refunds?lang=de`)).body.title).toMatch(/^\[de\] /);
    const nothing = await post('approve', { type: 'page', id: 'refunds', locale: 'de' });
    expect(nothing.status).toBe(404);
    expect(nothing.body).toMatchObject({ statusCode: 404, code: 'CONTENT_NOTHING_PENDING' });
  });

  it('refuses to approve a candidate whose source moved (409) unless forced; reject discards one for a fresh run', async () => {
    const page = { title: { en: 'Shipping' }, body: { en: '<p>We ship in 2 days.</p>' }, translationReady: true, reviewRequired: true };
    expect((await putPage('shipping', page)).status).toBe(201);
    await run({ pages: ['shipping'], locales: ['de'] });
    expect((await putPage('shipping', { ...page, body: { en: '<p>We ship in 3 days.</p>' } })).status).toBe(200);
    const item = (await call(`${api}/admin/content/translations/pending`, { bearer: admin })).body.items.find((i: { id: string; unit: string }) => i.id === 'shipping' && i.unit === 'body');
    expect(item).toMatchObject({ sourceChanged: true, source: '<p>We ship in 3 days.</p>' });

    const refused = await post('approve', { type: 'page', id: 'shipping', locale: 'de', unit: 'body' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'CONTENT_CANDIDATE_STALE', requestId: expect.any(String) });
    const forced = await post('approve', { type: 'page', id: 'shipping', locale: 'de', unit: 'body', force: true, text: '<p>Versand in 3 Tagen.</p>' });
    expect(forced.status).toBe(200);
    expect(forced.body.approved).toEqual([{ unit: 'body', forced: true }]);
    expect((await call(`${api}/pages/shipping?lang=de`)).body.body).toBe('<p>Versand in 3 Tagen.</p>');

    const rejected = await post('reject', { type: 'page', id: 'shipping', locale: 'de', unit: 'title' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ rejected: 1 });
    expect((await post('reject', { type: 'page', id: 'shipping', locale: 'de' })).status).toBe(404);
    expect((await run({ pages: ['shipping'], locales: ['de'] })).body).toMatchObject({ pending: 1 });
    expect((await post('reject', { type: 'fragment', id: 'nope', locale: 'de' })).status).toBe(404);
    expect((await post('approve', { type: 'post', id: 'x', locale: 'de' })).status).toBe(400);
  });

  it('sweeps: waits for edits to settle, stops at the budget, then says there is nothing to do', async () => {
    // Whatever earlier tests left to do is done first, so the sweep below sees only this page.
    await run({});
    expect((await putPage('sweep-page', { title: { en: 'Sweep' }, body: { en: '<p>Swept</p>' }, translationReady: true })).status).toBe(201);
    const sweep = async (payload: Record<string, unknown> = {}) => {
      const firedAt = new Date(Date.now() + Math.floor(Math.random() * 1000)).toISOString();
      await platform.bus.publish(Topics.ContentTranslateSweep, { firedAt, ...payload });
      const last = await until(() => call(`${api}/admin/content/translations/last-sweep`, { bearer: admin }), (r) => r.body?.last?.firedAt === firedAt, 10_000, 50);
      return last.body.last.report;
    };
    expect(await sweep()).toMatchObject({ translated: 0, reason: 'waiting_for_quiet', skipped: expect.arrayContaining([{ type: 'page', id: 'sweep-page', reason: 'waiting for quiet' }]) });
    await new Promise((r) => setTimeout(r, 3_100));
    expect(await sweep({ budget: 1 })).toMatchObject({ translated: 1, remaining: 3, reason: 'budget_exhausted', failed: [] });
    expect(await sweep()).toMatchObject({ translated: 3, remaining: 0, reason: null });
    expect((await call(`${api}/pages/sweep-page?lang=de`)).body.title).toMatch(/^\[de\] /);
    expect(await sweep()).toMatchObject({ translated: 0, reason: 'nothing_to_do' });
    const last = await call(`${api}/admin/content/translations/last-sweep`, { bearer: admin });
    expect(last.body).toMatchObject({ enabled: true, quietMinutes: 0.05, budget: 200 });
  }, 30_000);

  it('keeps a search index of pages per locale: a German query finds the German page, an English one the English page', async () => {
    const bikes = { title: { en: 'Bike rental', de: 'Fahrradverleih' }, body: { en: '<p>We rent bicycles and helmets by the day.</p>', de: '<p>Wir vermieten Fahrräder und Helme tageweise.</p>' } };
    const ferry = { title: { en: 'Ferry tickets', de: 'Fährtickets' }, body: { en: '<p>Buy ferry tickets to the islands.</p>', de: '<p>Kaufen Sie Fährtickets zu den Inseln.</p>' } };
    expect((await putPage('bikes', bikes)).status).toBe(201);
    expect((await putPage('ferry', ferry)).status).toBe(201);
    const search = (index: string, text: string) => call(`${api}/search/indexes/${index}/query`, { method: 'POST', bearer: admin, ...json({ text, limit: 3 }) });
    const top = async (index: string, text: string, slug: string) =>
      until(() => search(index, text), (r) => r.status === 200 && r.body.hits?.[0]?.id === slug, 15_000, 100);
    const de = await top('pages-de', 'Fahrräder vermieten', 'bikes');
    expect(de.body.hits[0].payload).toMatchObject({ slug: 'bikes', locale: 'de', title: 'Fahrradverleih' });
    expect((await top('pages-de', 'Fährtickets Inseln', 'ferry')).body.hits[0].payload.title).toBe('Fährtickets');
    expect((await top('pages-en', 'rent bicycles', 'bikes')).body.hits[0].payload.title).toBe('Bike rental');
    // A change reaches the index; a deleted page leaves it.
    expect((await putPage('ferry', { ...ferry, body: { ...ferry.body, de: '<p>Wir verkaufen Fahrkarten für Fähren und Boote.</p>' } })).status).toBe(200);
    await top('pages-de', 'Fahrkarten Boote', 'ferry');
    expect((await call(`${api}/admin/content/pages/ferry`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    await until(() => search('pages-de', 'Fahrkarten Boote'), (r) => r.status === 200 && !r.body.hits.some((h: { id: string }) => h.id === 'ferry'), 15_000, 100);
  }, 60_000);

  it('keeps page search in step with settings and locales: a renamed site reindexes its pages, a new locale gets every page', async () => {
    const search = (index: string, text: string) => call(`${api}/search/indexes/${index}/query`, { method: 'POST', bearer: admin, ...json({ text, limit: 10 }) });
    const titled = (index: string, text: string, title: string) =>
      until(() => search(index, text), (r) => r.status === 200 && r.body.hits?.some((h: { id: string; payload: { title: string } }) => h.id === 'welcome' && h.payload.title === title), 15_000, 100);
    const settings = (name: unknown) => call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name } }) });
    expect((await settings('Acme')).status).toBe(200);
    expect((await putPage('welcome', { title: { en: 'Welcome to [[ site.name ]]' }, body: { en: '<p>Opening hours and directions.</p>' } })).status).toBe(201);
    await titled('pages-en', 'Welcome opening hours', 'Welcome to Acme');
    // No page write: the settings change alone refreshes what search holds.
    expect((await settings('Globex')).status).toBe(200);
    await titled('pages-en', 'Welcome opening hours', 'Welcome to Globex');
    // A locale added now: every page is indexed in it, also those untouched since (the seeded privacy page).
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'fr' }) })).status).toBe(201);
    await titled('pages-fr', 'Welcome opening hours', 'Welcome to Globex');
    const privacy = await until(() => search('pages-fr', 'privacy policy'), (r) => r.status === 200 && r.body.hits?.some((h: { id: string }) => h.id === 'privacy'), 15_000, 100);
    expect(privacy.status).toBe(200);
    expect((await settings('')).status).toBe(200);
    expect((await call(`${api}/admin/i18n/locales/fr`, { method: 'DELETE', bearer: admin })).status).toBe(200);
  }, 60_000);

  it('refuses bad run bodies with the standard error body', async () => {
    const bad = await run({ pages: ['Not A Slug'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
    expect((await run({ locales: ['no such locale'] })).status).toBe(400);
  });
});
