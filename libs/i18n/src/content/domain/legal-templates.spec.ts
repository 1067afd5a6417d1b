import { LEGAL_TEMPLATES, proseWithoutDate, renderLegal } from './legal-templates';
import { buildSitemap, requestOrigin } from './sitemap';

describe('legal templates (rule 12)', () => {
  const privacy = LEGAL_TEMPLATES.find((t) => t.slug === 'privacy')!;

  it('render the date in each locale and use the site settings as tokens', () => {
    const r = renderLegal(privacy, new Date('2026-11-25T10:00:00Z'));
    expect(r.body.en).toContain('<time datetime="2026-11-25">November 25, 2026</time>');
    expect(r.body.pl).toContain('<time datetime="2026-11-25">25 listopada 2026</time>');
    expect(r.body.en).toContain('[[ site.name ]]');
    expect(r.body.en).toContain('[[ site.support_email ]]');
  });

  it('compare the prose without the date, so a re-render on another day is no change', () => {
    const a = renderLegal(privacy, new Date('2026-11-25T00:00:00Z'));
    const b = renderLegal(privacy, new Date('2027-03-01T00:00:00Z'));
    expect(a.body.en).not.toBe(b.body.en);
    expect(proseWithoutDate(a)).toBe(proseWithoutDate(b));
    expect(proseWithoutDate({ ...a, body: { ...a.body, en: a.body.en.replace('never sell', 'sometimes sell') } })).not.toBe(proseWithoutDate(b));
  });
});

describe('sitemap', () => {
  it('lists a page under every locale it has text in, with hreflang alternates carrying the language tag', () => {
    const about = { slug: 'about', updatedAt: new Date('2026-01-02T03:04:05Z'), title: { en: 'About', cz: 'O nás' }, body: { en: '<p>Hi</p>', cz: '<p>Ahoj</p>' } };
    const xml = buildSitemap('https://example.com/', [about], [
      { code: 'en', languageTag: 'en' },
      { code: 'cz', languageTag: 'cs' },
    ]);
    expect(xml).toContain('<loc>https://example.com/en/about</loc>');
    expect(xml).toContain('<loc>https://example.com/cz/about</loc>');
    expect(xml.match(/<xhtml:link rel="alternate" hreflang="cs" href="https:\/\/example.com\/cz\/about"\/>/g)).toHaveLength(2);
    expect(xml).toContain('<lastmod>2026-01-02T03:04:05.000Z</lastmod>');
  });

  it('takes the origin from the forwarded host and refuses a malformed one', () => {
    expect(requestOrigin({ 'x-forwarded-host': 'shop.test:8080', 'x-forwarded-proto': 'https' })).toBe('https://shop.test:8080');
    expect(requestOrigin({ host: 'localhost:8080' })).toBe('http://localhost:8080');
    expect(requestOrigin({ host: 'evil"><x' })).toBeUndefined();
  });
});
