import { i18nDefinition, TranslationService } from '@flowplane/i18n';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { type RunningService, startService } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { PublicCatalogService } from '../../libs/i18n/src/translations/use-cases/public-catalog.service';
import { call, metricsAuth, testEnv } from '../support/http';

/**
 * `GET /api/v1/i18n/messages` answers a built catalog before Express: the same status, headers and
 * body as the Nest route, which still answers the first request of a catalog and every error.
 */
describe('i18n catalog fast path', () => {
  let bus: MemoryEventBus;
  let store: Store;
  let svc: RunningService;
  let built: jest.SpyInstance;

  beforeAll(async () => {
    bus = MemoryEventBus.silent();
    store = createMemoryStore();
    svc = await startService(i18nDefinition, { env: testEnv(), bus, store });
    const t = svc.app.get(TranslationService);
    await t.upsert('', 'greet', 'en', 'Hello {{.Name}}');
    await t.upsert('', 'greet', 'pl', 'Witaj {{.Name}}');
    await t.upsert('', 'only.en', 'en', 'Only English');
    await t.upsert('shop', 'pay', 'en', 'Pay');
    // The Nest route builds bodies through `body`; the fast path only reads built ones.
    built = jest.spyOn(svc.app.get(PublicCatalogService), 'body');
  });
  afterAll(async () => {
    await svc?.close();
    await bus?.close();
    await store?.close();
  });

  const get = (query: string, headers: Record<string, string> = {}) => call(`${svc.url}/api/v1/i18n/messages${query}`, { headers });
  const headersOf = (h: Headers) => Object.fromEntries([...h.entries()].filter(([name]) => name !== 'date'));

  /** The answer of the Nest route (a fresh catalog) and of the fast path (the same catalog built) to one request. */
  async function bothPaths(query: string, headers: Record<string, string> = {}) {
    svc.app.get(TranslationService).invalidateAll();
    built.mockClear();
    const nest = await get(query, headers);
    expect(built).toHaveBeenCalledTimes(1);
    const fast = await get(query, headers);
    expect(built).toHaveBeenCalledTimes(1);
    return { nest, fast };
  }

  it.each([
    ['a locale', '?locale=pl', {}],
    ['a namespace', '?ns=shop&locale=en', {}],
    ['an unknown namespace', '?ns=nope&locale=pl', {}],
    ['the request locale from Accept-Language', '', { 'accept-language': 'en-GB;q=0.9, pl' }],
    ['the request locale from the lang cookie', '?lang=pl', { cookie: 'lang=en' }],
  ])('answers 200 for %s as the Nest route does', async (_what, query, headers) => {
    const { nest, fast } = await bothPaths(query, { ...headers, 'x-request-id': 'catalog-200' });
    expect(nest.status).toBe(200);
    expect(fast.status).toBe(200);
    expect(fast.text).toBe(nest.text);
    expect(headersOf(fast.headers)).toEqual(headersOf(nest.headers));
  });

  it('answers 304 on a current If-None-Match as the Nest route does, 200 on a stale one', async () => {
    const etag = (await get('?locale=pl')).headers.get('etag')!;
    const { nest, fast } = await bothPaths('?locale=pl', { 'if-none-match': etag, 'x-request-id': 'catalog-304' });
    expect(nest.status).toBe(304);
    expect(fast.status).toBe(304);
    expect(fast.text).toBe('');
    expect(headersOf(fast.headers)).toEqual(headersOf(nest.headers));
    expect((await get('?locale=pl', { 'if-none-match': '"stale"' })).status).toBe(200);
    expect((await get('?locale=pl', { 'if-none-match': `"stale", W/${etag}` })).status).toBe(304);
  });

  it('sets a request id and the security headers', async () => {
    await get('?locale=en');
    built.mockClear();
    const res = await get('?locale=en');
    expect(built).not.toHaveBeenCalled();
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    expect((await get('?locale=en', { 'x-request-id': 'given-id.1' })).headers.get('x-request-id')).toBe('given-id.1');
  });

  it.each([
    ['a locale that is not a code', '?locale=%3Cscript%3E', /locale must be a locale code/],
    ['an unknown field', '?locale=pl&extra=1', /extra/],
    ['a repeated field', '?locale=pl&locale=en', /locale/],
    ['a namespace with a control character', '?ns=a%01b&locale=pl', /control characters/],
  ])('leaves %s to the Nest route (400 with the error body)', async (_what, query, message) => {
    await get('?locale=pl');
    const res = await get(query, { 'x-request-id': 'bad-query' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', requestId: 'bad-query' });
    expect(JSON.stringify(res.body)).toMatch(message);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('counts its answers in the request metrics under the route', async () => {
    const metric = async () => {
      const text = (await call(`${svc.url}/metrics`, { headers: await metricsAuth() })).text;
      const line = text.split('\n').find((l) => l.startsWith('http_requests_total') && l.includes('route="/api/v1/i18n/messages"') && l.includes('status="304"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const etag = (await get('?locale=pl')).headers.get('etag')!;
    const before = await metric();
    built.mockClear();
    await get('?locale=pl', { 'if-none-match': etag });
    await get('?locale=pl', { 'if-none-match': etag });
    expect(built).not.toHaveBeenCalled();
    expect(await metric()).toBe(before + 2);
  });
});
