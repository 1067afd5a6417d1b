import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { $t, CatalogLoadError, configureI18n, createTranslator, setLanguage } from './index';

/** A catalog service on node:http that answers like the i18n service: strong ETags and 304 on If-None-Match. */
interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  status: number;
}

const catalogs: Record<string, Record<string, string>> = {
  pl: { 'cart.title': 'Koszyk', 'cart.items': '{count, plural, one {# produkt} few {# produkty} many {# produktów} other {# produktu}}' },
  en: { 'cart.title': 'Cart' },
};
let version = 1;
const seen: Seen[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const record = (status: number) => seen.push({ url: req.url ?? '', headers: req.headers, status });
    if (url.pathname === '/api/v1/i18n/locales') {
      record(200);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify([{ code: 'en', languageTag: 'en', name: 'English' }, { code: 'pl', languageTag: 'pl', name: 'polski' }]));
      return;
    }
    if (url.pathname !== '/api/v1/i18n/messages') {
      record(404);
      res.statusCode = 404;
      res.end('{}');
      return;
    }
    const locale = url.searchParams.get('locale') ?? 'pl'; // the service's default
    const etag = `"${locale}-${version}"`;
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      record(304);
      res.statusCode = 304;
      res.end();
      return;
    }
    record(200);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ locale, namespace: url.searchParams.get('ns') ?? '', messages: catalogs[locale] ?? {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

describe('catalog loading', () => {
  it('revalidates with If-None-Match; a 304 keeps the catalog; a changed ETag brings the new one', async () => {
    const tr = createTranslator({ baseUrl: base, locale: 'pl' });
    await tr.load();
    expect(tr.t('cart.title', 'Cart')).toBe('Koszyk');
    expect(seen[0].headers['if-none-match']).toBeUndefined();

    await tr.load();
    expect(seen[1]).toMatchObject({ status: 304 });
    expect(seen[1].headers['if-none-match']).toBe('"pl-1"');
    expect(tr.t('cart.title', 'Cart')).toBe('Koszyk');
    expect(tr.t('cart.items', '', { count: 5 })).toBe('5 produktów');

    catalogs.pl['cart.title'] = 'Twój koszyk';
    version++;
    await tr.load();
    expect(seen[2]).toMatchObject({ status: 200 });
    expect(tr.t('cart.title', 'Cart')).toBe('Twój koszyk');
    catalogs.pl['cart.title'] = 'Koszyk';
  });

  it('asks for the locale and namespace; accepts the origin or the API root as base URL', async () => {
    const tr = createTranslator({ baseUrl: `${base}/api/v1/`, locale: 'en', ns: 'widget' });
    await tr.load();
    expect(seen[0].url).toBe('/api/v1/i18n/messages?locale=en&ns=widget');
    expect(tr.ns).toBe('widget');
  });

  it('without a locale (Node, no document) takes the service default from the answer', async () => {
    const tr = createTranslator({ baseUrl: base });
    expect(tr.locale).toBe('');
    await tr.load();
    expect(seen[0].url).toBe('/api/v1/i18n/messages');
    expect(tr.locale).toBe('pl');
    expect(tr.t('cart.items', '', { count: 22 })).toBe('22 produkty');
  });

  it('setLocale switches and loads; a catalog loaded before is revalidated, not refetched', async () => {
    const tr = createTranslator({ baseUrl: base, locale: 'pl' });
    await tr.load();
    await tr.setLocale('en');
    expect(tr.locale).toBe('en');
    expect(tr.t('cart.title')).toBe('Cart');
    await tr.setLocale('pl');
    expect(seen.map((s) => s.status)).toEqual([200, 200, 304]);
    expect(tr.t('cart.title')).toBe('Koszyk');
  });

  it('a failed load throws CatalogLoadError and $t keeps answering defaults', async () => {
    const tr = createTranslator({ baseUrl: `${base}/nowhere`, locale: 'pl' });
    await expect(tr.load()).rejects.toBeInstanceOf(CatalogLoadError);
    const down = createTranslator({ baseUrl: 'http://127.0.0.1:1', locale: 'pl' });
    await expect(down.load()).rejects.toThrow(/could not be loaded/);
    expect(down.t('cart.title', 'Cart')).toBe('Cart');
  });

  it('activeLocales lists the active locales', async () => {
    const tr = createTranslator({ baseUrl: base });
    expect((await tr.activeLocales()).map((l) => l.code)).toEqual(['en', 'pl']);
  });
});

describe('the shared translator and setLanguage', () => {
  it('the bound $t answers from the configured translator; setLanguage in Node switches its locale', async () => {
    const tr = configureI18n({ baseUrl: base, locale: 'en' });
    await tr.load();
    expect($t('cart.title', 'Basket')).toBe('Cart');
    await setLanguage('pl');
    expect(tr.locale).toBe('pl');
    expect($t('cart.title', 'Basket')).toBe('Koszyk');
  });

  it('in a browser sets the lang cookie (path /, SameSite=Lax, a year) and reloads; the cookie then picks the locale', async () => {
    const g = globalThis as Record<string, unknown>;
    const reload = jest.fn();
    const fakeDocument = { cookie: '', documentElement: { lang: 'en' } };
    g.document = fakeDocument;
    g.location = { reload };
    try {
      expect(createTranslator({ baseUrl: base }).locale).toBe('en');
      await createTranslator({ baseUrl: base }).setLanguage('pl');
      expect(fakeDocument.cookie).toBe('lang=pl; path=/; max-age=31536000; SameSite=Lax');
      expect(reload).toHaveBeenCalledTimes(1);
      expect(seen).toHaveLength(0);
      expect(createTranslator({ baseUrl: base }).locale).toBe('pl');
      expect(createTranslator({ baseUrl: base, locale: 'de' }).locale).toBe('de');
    } finally {
      delete g.document;
      delete g.location;
    }
  });

  it('where the page may not use cookies (an opaque origin throws SecurityError) it detects from <html lang> and switches without reload', async () => {
    const g = globalThis as Record<string, unknown>;
    const reload = jest.fn();
    const refuse = () => {
      throw new Error('SecurityError: access is denied for this document');
    };
    g.document = Object.defineProperty({ documentElement: { lang: 'en' } }, 'cookie', { get: refuse, set: refuse });
    g.location = { reload };
    try {
      const tr = createTranslator({ baseUrl: base });
      expect(tr.locale).toBe('en');
      await tr.setLanguage('pl');
      expect(reload).not.toHaveBeenCalled();
      expect(tr.locale).toBe('pl');
      expect(tr.t('cart.title')).toBe('Koszyk');
    } finally {
      delete g.document;
      delete g.location;
    }
  });
});
