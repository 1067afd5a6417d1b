import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { EdgeCache, surrogateMaxAgeMs, TeeToCache } from './edge-cache';
import { tagsOfEvent } from './edge-cache-purger';
import { mergeVary } from './forwarded-headers';

function request(url: string, headers: Record<string, string> = {}, method = 'GET'): IncomingMessage {
  return { url, method, headers } as unknown as IncomingMessage;
}

/** A response that records what was written. */
function response(): ServerResponse & { written: { status?: number; headers: Record<string, unknown>; body?: Buffer } } {
  const written: { status?: number; headers: Record<string, unknown>; body?: Buffer } = { headers: {} };
  return {
    written,
    destroyed: false,
    setHeader(name: string, value: unknown) {
      written.headers[name.toLowerCase()] = value;
    },
    getHeader(name: string) {
      return written.headers[name.toLowerCase()];
    },
    removeHeader(name: string) {
      delete written.headers[name.toLowerCase()];
    },
    writeHead(status: number) {
      written.status = status;
    },
    end(body?: Buffer) {
      written.body = body;
    },
  } as never;
}

const PAGE = { 'content-type': 'application/json', vary: 'Accept-Language, Cookie', 'surrogate-control': 'max-age=2', 'surrogate-key': 'page:about settings', 'x-request-id': 'upstream-id' };

describe('EdgeCache', () => {
  let now = 1_000_000;
  const cache = (maxBytes = 1024 * 1024) => new EdgeCache({ maxBytes, now: () => now });
  const fill = (c: EdgeCache, url: string, headers: Record<string, string> = {}, body = '{"title":"About"}', upstream: Record<string, string> = PAGE, service: 'i18n' | 'profiles' = 'i18n') => {
    const req = request(url, headers);
    const s = c.storable(200, upstream);
    expect(s).toBeDefined();
    c.store(service, req, c.generation, 200, upstream, s!, Buffer.from(body));
  };

  beforeEach(() => {
    now = 1_000_000;
  });

  it('reads max-age from Surrogate-Control only; no-store, 0 and junk keep nothing', () => {
    expect(surrogateMaxAgeMs('max-age=30')).toBe(30_000);
    expect(surrogateMaxAgeMs('content="ESI/1.0", max-age=5')).toBe(5_000);
    expect(surrogateMaxAgeMs('max-age=5, no-store')).toBe(0);
    expect(surrogateMaxAgeMs('max-age=0')).toBe(0);
    expect(surrogateMaxAgeMs('max-age=abc')).toBe(0);
    expect(surrogateMaxAgeMs(undefined)).toBe(0);
  });

  it('stores only 200 answers an upstream marked, without cookies or Vary: *', () => {
    const c = cache();
    expect(c.storable(200, PAGE)).toEqual({ maxAgeMs: 2000, vary: ['accept-language', 'cookie'], tags: ['page:about', 'settings'] });
    expect(c.storable(404, PAGE)).toBeUndefined();
    expect(c.storable(200, { ...PAGE, 'surrogate-control': undefined })).toBeUndefined();
    expect(c.storable(200, { ...PAGE, 'set-cookie': 'a=b' })).toBeUndefined();
    expect(c.storable(200, { ...PAGE, vary: '*' })).toBeUndefined();
    expect(c.storable(200, { ...PAGE, 'content-length': String(2 * 1024 * 1024) })).toBeUndefined();
    expect(new EdgeCache({ maxBytes: 0 }).storable(200, PAGE)).toBeUndefined();
  });

  it('takes only GET requests without credentials or a body', () => {
    const c = cache();
    expect(c.accepts(request('/api/v1/pages/about'))).toBe(true);
    expect(c.accepts(request('/api/v1/pages/about', { authorization: 'Bearer x' }))).toBe(false);
    expect(c.accepts(request('/api/v1/pages/about', {}, 'POST'))).toBe(false);
    expect(c.accepts(request('/api/v1/pages/about', { 'content-length': '3' }))).toBe(false);
    expect(c.accepts(request(`/api/v1/pages/${'a'.repeat(3000)}`))).toBe(false);
    expect(new EdgeCache({ maxBytes: 0 }).accepts(request('/api/v1/pages/about'))).toBe(false);
    expect(EdgeCache.bypasses(request('/x', { 'cache-control': 'no-cache' }))).toBe(true);
    expect(EdgeCache.bypasses(request('/x', { pragma: 'no-cache' }))).toBe(true);
    expect(EdgeCache.bypasses(request('/x', { 'cache-control': 'max-age=60' }))).toBe(false);
  });

  it('answers from a stored entry with its headers and Age, never the upstream request id or surrogate headers', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about');
    now += 1500;
    const hit = c.lookup('i18n', request('/api/v1/pages/about'));
    expect(hit).toBeDefined();
    const res = response();
    c.serve(hit!, request('/api/v1/pages/about'), res);
    expect(res.written.status).toBe(200);
    expect(res.written.body?.toString()).toBe('{"title":"About"}');
    expect(res.written.headers).toMatchObject({ 'content-type': 'application/json', vary: 'Accept-Language, Cookie', age: '1', 'content-length': 17 });
    expect(Object.keys(res.written.headers)).not.toEqual(expect.arrayContaining(['x-request-id']));
    expect(Object.keys(res.written.headers).filter((h) => h.startsWith('surrogate'))).toEqual([]);
  });

  it('answers 304 without a body when If-None-Match names the stored ETag', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about', {}, '{"title":"About"}', { ...PAGE, etag: 'W/"11-abc"' });
    const hit = c.lookup('i18n', request('/api/v1/pages/about'))!;
    for (const [inm, status] of [['W/"11-abc"', 304], ['"other", "11-abc"', 304], ['*', 304], ['"other"', 200], ['', 200]] as const) {
      const res = response();
      c.serve(hit, request('/api/v1/pages/about', inm ? { 'if-none-match': inm } : {}), res);
      expect({ inm, status: res.written.status, body: res.written.body?.toString() }).toEqual({ inm, status, body: status === 304 ? undefined : '{"title":"About"}' });
      expect(res.written.headers.etag).toBe('W/"11-abc"');
    }
  });

  it('keeps one entry per value of the headers the answer varies on, and per service', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about', { 'accept-language': 'de' }, '{"title":"Über"}');
    expect(c.lookup('i18n', request('/api/v1/pages/about', { 'accept-language': 'de' }))).toBeDefined();
    expect(c.lookup('i18n', request('/api/v1/pages/about', { 'accept-language': 'en' }))).toBeUndefined();
    expect(c.lookup('i18n', request('/api/v1/pages/about', { 'accept-language': 'de', cookie: 'lang=pl' }))).toBeUndefined();
    expect(c.lookup('i18n', request('/api/v1/pages/about?lang=en', { 'accept-language': 'de' }))).toBeUndefined();
    expect(c.lookup('profiles', request('/api/v1/pages/about', { 'accept-language': 'de' }))).toBeUndefined();
  });

  it('replaces an entry with a newer answer for the same request, and a URL whose answers vary differently', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about', {}, '{"v":1}');
    fill(c, '/api/v1/pages/about', {}, '{"v":2}');
    expect(c.lookup('i18n', request('/api/v1/pages/about'))?.body.toString()).toBe('{"v":2}');
    expect(c.size).toBe(1);
    fill(c, '/api/v1/pages/about', {}, '{"v":3}', { ...PAGE, vary: 'Accept-Language' });
    expect(c.lookup('i18n', request('/api/v1/pages/about', { cookie: 'a=b' }))?.body.toString()).toBe('{"v":3}');
    expect(c.size).toBe(1);
  });

  it('expires entries at their max-age', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about');
    now += 1999;
    expect(c.lookup('i18n', request('/api/v1/pages/about'))).toBeDefined();
    now += 1;
    expect(c.lookup('i18n', request('/api/v1/pages/about'))).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('drops every entry of a service on a successful write to it, and none for reads, failures or other services', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about');
    fill(c, '/api/v1/profiles/x', {}, '{}', PAGE, 'profiles');
    c.wrote('GET', 'i18n', 200);
    c.wrote('PUT', 'i18n', 400);
    c.wrote('POST', 'flow-runtime' as never, 201);
    expect(c.size).toBe(2);
    c.wrote('PUT', 'i18n', 200);
    expect(c.lookup('i18n', request('/api/v1/pages/about'))).toBeUndefined();
    expect(c.lookup('profiles', request('/api/v1/profiles/x'))).toBeDefined();
  });

  it('drops a service\'s entries on its write without visiting other services\' entries', () => {
    const c = cache(64 * 1024 * 1024);
    for (let i = 0; i < 20_000; i++) fill(c, `/api/v1/pages/p${i}`, {}, '{}');
    fill(c, '/api/v1/profiles/x', {}, '{}', PAGE, 'profiles');
    const started = performance.now();
    for (let i = 0; i < 1000; i++) c.wrote('POST', 'profiles', 201);
    // A thousand writes to a service holding nothing: constant time each, not a pass over 20,000 entries.
    expect(performance.now() - started).toBeLessThan(50);
    expect(c.size).toBe(20_000);
    c.wrote('PUT', 'i18n', 200);
    expect(c.size).toBe(0);
  });

  it('does not keep an answer whose upstream call began before a drop (a read racing a write)', () => {
    const c = cache();
    const req = request('/api/v1/pages/about');
    const began = c.generation;
    c.wrote('PUT', 'i18n', 200);
    c.store('i18n', req, began, 200, PAGE, c.storable(200, PAGE)!, Buffer.from('old'));
    expect(c.lookup('i18n', req)).toBeUndefined();
    c.store('i18n', req, c.generation, 200, PAGE, c.storable(200, PAGE)!, Buffer.from('new'));
    expect(c.lookup('i18n', req)?.body.toString()).toBe('new');
  });

  it('drops the entries of a purged tag only', () => {
    const c = cache();
    fill(c, '/api/v1/pages/about');
    fill(c, '/api/v1/pages/terms', {}, '{}', { ...PAGE, 'surrogate-key': 'page:terms settings' });
    c.purgeTags(['page:about']);
    expect(c.lookup('i18n', request('/api/v1/pages/about'))).toBeUndefined();
    expect(c.lookup('i18n', request('/api/v1/pages/terms'))).toBeDefined();
    c.purgeTags(['settings']);
    expect(c.size).toBe(0);
  });

  it('stays within its byte bound by dropping the oldest entries', () => {
    const c = cache(100);
    fill(c, '/a', {}, 'x'.repeat(40));
    fill(c, '/b', {}, 'x'.repeat(40));
    fill(c, '/c', {}, 'x'.repeat(40));
    expect(c.lookup('i18n', request('/a'))).toBeUndefined();
    expect(c.lookup('i18n', request('/b'))).toBeDefined();
    expect(c.lookup('i18n', request('/c'))).toBeDefined();
    fill(c, '/d', {}, 'x'.repeat(20));
    expect(c.size).toBe(3);
    // An answer larger than the whole cache is passed on, not kept.
    c.store('i18n', request('/e'), c.generation, 200, PAGE, c.storable(200, PAGE)!, Buffer.alloc(101));
    expect(c.lookup('i18n', request('/e'))).toBeUndefined();
  });

  it('maps content and settings events to the tags upstreams put on their answers', () => {
    expect(tagsOfEvent('content.page.changed', { type: 'page', id: 'about', slug: 'about' })).toEqual(['page:about']);
    expect(tagsOfEvent('content.fragment.changed', { type: 'fragment', id: 'menu', key: 'menu' })).toEqual(['fragment:menu']);
    expect(tagsOfEvent('settings.updated', { module: 'site', keys: ['name'] })).toEqual(['settings']);
    expect(tagsOfEvent('content.page.changed', {})).toBe('all');
    expect(tagsOfEvent('flow.published', {})).toEqual([]);
  });
});

describe('mergeVary', () => {
  it('joins the gateway\'s Vary and the upstream\'s, each field once, the gateway\'s first', () => {
    expect(mergeVary('Origin', 'Accept-Language, Cookie')).toBe('Origin, Accept-Language, Cookie');
    expect(mergeVary('Origin', 'origin, Cookie')).toBe('Origin, Cookie');
    expect(mergeVary(undefined, 'Cookie')).toBe('Cookie');
    expect(mergeVary(['Origin', 'Accept-Encoding'], ['Cookie'])).toBe('Origin, Accept-Encoding, Cookie');
    expect(mergeVary(undefined, undefined)).toBeUndefined();
  });

  it('keeps Vary: * as it is, and passes on an upstream Vary that is not a list of field names', () => {
    expect(mergeVary('Origin', '*')).toBe('*');
    expect(mergeVary('Origin', 'not a field')).toBe('not a field');
  });
});

describe('TeeToCache', () => {
  it('passes the body on and hands over a copy once it ended whole', async () => {
    const res = new PassThrough();
    const seen: Buffer[] = [];
    res.on('data', (c: Buffer) => seen.push(c));
    let kept: Buffer | undefined;
    const tee = new TeeToCache(res as unknown as ServerResponse, (b) => (kept = b));
    tee.write(Buffer.from('{"a":'));
    tee.end(Buffer.from('1}'));
    await new Promise((r) => tee.once('finish', r));
    expect(Buffer.concat(seen).toString()).toBe('{"a":1}');
    expect(kept?.toString()).toBe('{"a":1}');
  });

  it('keeps nothing when the answer broke off', async () => {
    const res = new PassThrough();
    res.resume();
    let kept: Buffer | undefined;
    const tee = new TeeToCache(res as unknown as ServerResponse, (b) => (kept = b));
    tee.on('error', () => undefined);
    tee.write(Buffer.from('{"a":'));
    tee.destroy(new Error('upstream reset'));
    await new Promise((r) => setImmediate(r));
    expect(kept).toBeUndefined();
    expect(res.destroyed).toBe(true);
  });
});
