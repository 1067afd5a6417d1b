import { buildSitemap, hasContentIn } from './sitemap';

describe('sitemap', () => {
  const locales = [
    { code: 'cz', languageTag: 'cs' },
    { code: 'en', languageTag: 'en' },
    { code: 'pl', languageTag: 'pl' },
    { code: 'pt-BR', languageTag: 'pt-BR' },
  ];
  const at = new Date('2026-03-01T10:00:00Z');
  const urls = (xml: string) => xml.split('<url>').slice(1);
  const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);

  it('lists a page only under the locales it has a body in (its base language counts), each with x-default', () => {
    const xml = buildSitemap(
      'https://www.acme.test/',
      [{ slug: 'about', updatedAt: at, title: { en: 'About', pl: 'O nas', cz: 'O nás' }, body: { en: '<p>Hi</p>', pl: '<p>Cześć</p>', pt: '<p>Olá</p>', cz: '' } }],
      locales,
      'en',
    );
    // cz has a title but no body: its readers would read the English page, so it is no Czech version.
    expect(locs(xml)).toEqual(['https://www.acme.test/en/about', 'https://www.acme.test/pl/about', 'https://www.acme.test/pt-BR/about']);
    for (const entry of urls(xml)) {
      expect(entry).toContain('<lastmod>2026-03-01T10:00:00.000Z</lastmod>');
      expect(entry).toContain('<xhtml:link rel="alternate" hreflang="x-default" href="https://www.acme.test/en/about"/>');
      expect(entry).toContain('<xhtml:link rel="alternate" hreflang="pt-BR" href="https://www.acme.test/pt-BR/about"/>');
      expect(entry).not.toContain('hreflang="cs"');
    }
  });

  it('points x-default at a listed locale when the page lacks the fallback one, and leaves out a page with no content in any active locale', () => {
    const xml = buildSitemap(
      'http://localhost',
      [
        { slug: 'polski', title: { pl: 'Tylko po polsku' }, body: { pl: '<p>Treść</p>' } },
        { slug: 'deutsch', updatedAt: at, title: { de: 'Nur Deutsch' }, body: { de: '<p>Inhalt</p>' } },
      ],
      locales,
      'en',
    );
    expect(locs(xml)).toEqual(['http://localhost/pl/polski']);
    expect(xml).toContain('<xhtml:link rel="alternate" hreflang="x-default" href="http://localhost/pl/polski"/>');
    // Stored without a time: no lastmod rather than a failed sitemap.
    expect(xml).not.toContain('<lastmod>');
  });

  it('judges a page without body text by its title', () => {
    expect(hasContentIn({ title: { en: 'Soon' }, body: {} }, 'en')).toBe(true);
    expect(hasContentIn({ title: { en: 'Soon' }, body: {} }, 'pl')).toBe(false);
    expect(hasContentIn({ title: { en: 'Soon', pl: 'Wkrótce' }, body: { en: '<p>x</p>' } }, 'pl')).toBe(false);
  });
});
