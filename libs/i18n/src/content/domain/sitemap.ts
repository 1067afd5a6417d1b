import { escapeHtml } from '../../tokens/settings-tokens';

/** A locale as the sitemap needs it: its URL code and BCP 47 tag. */
export interface SitemapLocale {
  code: string;
  languageTag: string;
}

/**
 * The sitemap (sitemaps.org 0.9 with xhtml alternates): one `<url>` per page and active locale at
 * `<base>/<locale code>/<slug>`, each listing every locale's URL as `<xhtml:link rel="alternate"
 * hreflang="<language tag>">`, so search engines pair the languages of one page.
 */
export function buildSitemap(base: string, pages: ReadonlyArray<{ slug: string; updatedAt?: Date }>, locales: readonly SitemapLocale[]): string {
  const root = base.replace(/\/+$/, '');
  const url = (code: string, slug: string) => escapeHtml(`${root}/${encodeURIComponent(code)}/${slug}`);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">'];
  for (const p of pages) {
    const alternates = locales.map((l) => `    <xhtml:link rel="alternate" hreflang="${escapeHtml(l.languageTag)}" href="${url(l.code, p.slug)}"/>`);
    for (const l of locales) {
      // lastmod is optional in sitemaps.org 0.9: a page stored without a time has none.
      const lastmod = p.updatedAt ? [`    <lastmod>${p.updatedAt.toISOString()}</lastmod>`] : [];
      out.push('  <url>', `    <loc>${url(l.code, p.slug)}</loc>`, ...lastmod, ...alternates, '  </url>');
    }
  }
  out.push('</urlset>', '');
  return out.join('\n');
}

/** The origin a request reached, from the gateway's X-Forwarded-Proto/Host (or Host); undefined when malformed. */
export function requestOrigin(headers: Record<string, string | string[] | undefined>): string | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim();
  const host = first(headers['x-forwarded-host']) || first(headers.host);
  const proto = first(headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
  if (!host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) return undefined;
  return `${proto}://${host}`;
}
