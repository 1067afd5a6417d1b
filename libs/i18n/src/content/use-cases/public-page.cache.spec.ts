import { PUBLIC_PAGE_TTL_MS, PublicPageCache, type RenderedPage } from './public-page.cache';

const page = (title: string): RenderedPage => ({ page: { slug: 'a', locale: 'en', title, body: '', seo: {}, updatedAt: '' }, contentLocale: 'en' });

describe('PublicPageCache', () => {
  it('keeps a render per (slug, locale) until the slug is dropped', () => {
    const cache = new PublicPageCache();
    cache.set('a', 'en', page('A'), cache.mark());
    cache.set('a', 'pl', page('A pl'), cache.mark());
    cache.set('b', 'en', page('B'), cache.mark());
    expect(cache.get('a', 'pl')?.page.title).toBe('A pl');
    cache.drop('a');
    expect(cache.get('a', 'en')).toBeUndefined();
    expect(cache.get('a', 'pl')).toBeUndefined();
    expect(cache.get('b', 'en')?.page.title).toBe('B');
    cache.clear();
    expect(cache.get('b', 'en')).toBeUndefined();
  });

  it('never stores a render that started before a drop (a read racing a write)', () => {
    const cache = new PublicPageCache();
    const started = cache.mark();
    cache.drop('a');
    cache.set('a', 'en', page('old'), started);
    expect(cache.get('a', 'en')).toBeUndefined();
  });

  it('serves an entry for the settings TTL at most', () => {
    let now = 1_000;
    const cache = new PublicPageCache(() => now);
    cache.set('a', 'en', page('A'), cache.mark());
    now += PUBLIC_PAGE_TTL_MS - 1;
    expect(cache.get('a', 'en')).toBeDefined();
    now += 1;
    expect(cache.get('a', 'en')).toBeUndefined();
  });

  it('bounds the text it holds: made-up locales on a large page cost renders, never memory', () => {
    const cache = new PublicPageCache();
    const big: RenderedPage = { ...page('A'), page: { ...page('A').page, body: 'x'.repeat(1024 * 1024) } };
    for (let i = 0; i < 100; i++) cache.set('a', `x${i}`, big, cache.mark());
    expect(cache.size).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(cache.get('a', 'x99')).toBeDefined();
    cache.drop('a');
    expect(cache.size).toBe(0);
  });
});
