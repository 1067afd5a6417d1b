import { get, type IncomingHttpHeaders } from 'node:http';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/**
 * The gateway's cache of public answers, seen from outside on `npm start`: public pages are answered
 * by the gateway itself once read (an `Age` header says so), and every way a page can change shows
 * on the next read without waiting for the entry to expire.
 */
const ADMIN_ORIGIN = 'https://admin.example.com';

describe('gateway cache of public pages', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    // A listed origin: CORS answers it by name, so answers vary on Origin as well.
    platform = await startStandalone({ env: testEnv({ GATEWAY_CORS_ORIGINS: ADMIN_ORIGIN }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    const put = await call(`${api}/admin/content/pages/edge-about`, { method: 'PUT', bearer: admin, ...json({ title: { en: 'About [[ site.name ]]', pl: 'O [[ site.name ]]' }, body: { en: '<p>First</p>', pl: '<p>Pierwsza</p>' } }) });
    expect(put.status).toBe(201);
  });
  afterAll(() => platform?.close());

  const read = (path: string, headers: Record<string, string> = {}) => call(`${api}${path}`, { headers });
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      get(`${api}${path}`, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      }).on('error', reject);
    });
  /**
   * Stores a new entry for `path` (a read asking for a fresh answer fills the cache) and checks the
   * next read is answered from it. Retried: an earlier write's event landing meanwhile drops it.
   */
  const freshEntry = (path: string) =>
    until(
      async () => {
        await read(path, { 'cache-control': 'no-cache' });
        return read(path);
      },
      (r) => r.headers.get('age') === '0',
      3000,
    );

  it('answers a repeated read from the gateway, with Age, its own request id and no surrogate headers', async () => {
    const first = await read('/pages/edge-about?lang=en', { 'x-request-id': 'edge-first-0001' });
    const second = await read('/pages/edge-about?lang=en', { 'x-request-id': 'edge-second-001' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('age')).toMatch(/^\d+$/);
    expect(second.headers.get('content-language')).toBe('en');
    expect(second.headers.get('x-request-id')).toBe('edge-second-001');
    expect(second.headers.get('x-content-type-options')).toBe('nosniff');
    for (const r of [first, second]) {
      expect(r.headers.get('surrogate-control')).toBeNull();
      expect(r.headers.get('surrogate-key')).toBeNull();
    }
  });

  it('answers a revalidation with 304 when the page did not change, from the cache and from the service', async () => {
    // node:http, not fetch: fetch adds Cache-Control: no-cache to a request with If-None-Match. The
    // Accept-Language fetch sends (`*`) goes along: the page varies on it.
    const revalidate = (etag: string) => rawGet('/pages/edge-about?lang=en', { 'accept-language': '*', 'if-none-match': etag });
    const fromCache = await until(
      async () => {
        const fresh = await freshEntry('/pages/edge-about?lang=en');
        return revalidate(fresh.headers.get('etag') ?? 'none');
      },
      (r) => r.status === 304 && r.headers.age !== undefined,
      3000,
    );
    expect(fromCache.status).toBe(304);
    expect(fromCache.headers.age).toBeDefined();
    expect(fromCache.body).toBe('');
    // The service's own answer of a rendered page (before Express) carries the ETag Express would, and honours it.
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    const direct = (headers: Record<string, string>) => call(`${i18n.url}/api/v1/pages/edge-about?lang=en`, { headers });
    const first = await direct({});
    const second = await direct({});
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const conditional = await new Promise<number>((resolve, reject) => {
      get(`${i18n.url}/api/v1/pages/edge-about?lang=en`, { headers: { 'if-none-match': first.headers.get('etag')! } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(conditional).toBe(304);
    expect((await revalidate('W/"stale"')).status).toBe(200);
  });

  it('keeps the Vary of CORS beside the page\'s own, proxied and from the cache', async () => {
    const headers = { origin: ADMIN_ORIGIN };
    const proxied = await read('/pages/edge-about?lang=en', { ...headers, 'cache-control': 'no-cache' });
    const cached = await read('/pages/edge-about?lang=en', headers);
    expect(cached.headers.get('age')).not.toBeNull();
    for (const r of [proxied, cached]) {
      expect(r.headers.get('access-control-allow-origin')).toBe(ADMIN_ORIGIN);
      expect(r.headers.get('vary')).toBe('Origin, Accept-Language, Cookie');
    }
  });

  it('keeps the languages apart', async () => {
    await read('/pages/edge-about', { 'accept-language': 'pl' });
    const pl = await read('/pages/edge-about', { 'accept-language': 'pl' });
    await read('/pages/edge-about', { 'accept-language': 'en' });
    const en = await read('/pages/edge-about', { 'accept-language': 'en' });
    expect(pl.headers.get('age')).not.toBeNull();
    expect(en.headers.get('age')).not.toBeNull();
    expect(pl.body.body).toBe('<p>Pierwsza</p>');
    expect(en.body.body).toBe('<p>First</p>');
  });

  it('serves an edit made through the gateway on the very next read', async () => {
    await read('/pages/edge-about?lang=en');
    expect((await read('/pages/edge-about?lang=en')).headers.get('age')).not.toBeNull();
    const put = await call(`${api}/admin/content/pages/edge-about`, { method: 'PUT', bearer: admin, ...json({ title: { en: 'About [[ site.name ]]', pl: 'O [[ site.name ]]' }, body: { en: '<p>Second</p>', pl: '<p>Druga</p>' } }) });
    expect(put.status).toBe(200);
    const after = await read('/pages/edge-about?lang=en');
    expect(after.body.body).toBe('<p>Second</p>');
  });

  it('drops a page when a setting its tokens read changes (settings.updated), well before the entry would expire', async () => {
    // A fresh entry: it would live 2 s from here.
    expect((await freshEntry('/pages/edge-about?lang=en')).headers.get('age')).toBe('0');
    const settings = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: 'Edge Co' } } }) });
    expect(settings.status).toBe(200);
    // The entry would live 2 s; the event drops it (and i18n's own render) within a few milliseconds.
    const fresh = await until(() => read('/pages/edge-about?lang=en'), (r) => r.body?.title === 'About Edge Co', 1000);
    expect(fresh.body.title).toBe('About Edge Co');
  });

  it('drops a page changed behind the gateway (content.page.changed), and a deleted page is gone', async () => {
    expect((await freshEntry('/pages/edge-about?lang=en')).headers.get('age')).toBe('0');
    // A write that does not pass through the gateway: the i18n service called directly.
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    const direct = await call(`${i18n.url}/api/v1/admin/content/pages/edge-about`, { method: 'PUT', bearer: admin, ...json({ title: { en: 'About [[ site.name ]]' }, body: { en: '<p>Third</p>' } }) });
    expect(direct.status).toBe(200);
    const fresh = await until(() => read('/pages/edge-about?lang=en'), (r) => r.body?.body === '<p>Third</p>', 1000);
    expect(fresh.body.body).toBe('<p>Third</p>');
    expect((await call(`${api}/admin/content/pages/edge-about`, { method: 'DELETE', bearer: admin })).status).toBe(200);
    expect((await read('/pages/edge-about?lang=en')).status).toBe(404);
  });

  it('never answers from the cache a request with credentials or one asking for a fresh answer, and never keeps a 404', async () => {
    await call(`${api}/admin/content/pages/edge-terms`, { method: 'PUT', bearer: admin, ...json({ title: { en: 'Terms' }, body: { en: '<p>T</p>' } }) });
    await read('/pages/edge-terms?lang=en');
    expect((await read('/pages/edge-terms?lang=en')).headers.get('age')).not.toBeNull();
    expect((await call(`${api}/pages/edge-terms?lang=en`, { bearer: admin })).headers.get('age')).toBeNull();
    expect((await read('/pages/edge-terms?lang=en', { 'cache-control': 'no-cache' })).headers.get('age')).toBeNull();
    await read('/pages/edge-missing');
    const missing = await read('/pages/edge-missing');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('age')).toBeNull();
  });
});
