import { escapeHtml } from '../../tokens/settings-tokens';
import type { LocaleMap } from './localized-text';

/** A locale as the sitemap needs it: its URL code and BCP 47 tag. */
export interface SitemapLocale {
  code: string;
  languageTag: string;
}

/** A page as the sitemap needs it: its slug, last edit (none when stored without one), and texts. */
export interface SitemapPage {
  slug: string;
  updatedAt?: Date;
  title: LocaleMap;
  body: LocaleMap;
}

const hasText = (m: LocaleMap, l: string) => Object.prototype.hasOwnProperty.call(m, l) && typeof m[l] === 'string' && m[l] !== '';

/**
 * Whether readers of `code` get the page in their own language: its body has text in that locale or
 * in its base language (`pt-BR` is served `pt`). A locale that would only get the fallback
 * locale's text is not a language version of the page. A page without body text in any locale is
 * judged by its title.
 */
export function hasContentIn(page: Pick<SitemapPage, 'title' | 'body'>, code: string): boolean {
  const text = Object.values(page.body).some((v) => typeof v === 'string' && v !== '') ? page.body : page.title;
  const cut = code.search(/[-_]/);
  return hasText(text, code) || (cut > 0 && hasText(text, code.slice(0, cut)));
}

/**
 * The sitemap (sitemaps.org 0.9 with xhtml alternates): one `<url>` per page and active locale the
 * page has content in, at `<base>/<locale code>/<slug>`, each listing the page's other language
 * versions as `<xhtml:link rel="alternate" hreflang="<language tag>">` so search engines pair them,
 * plus `hreflang="x-default"` for readers of any other language: the version they are served, the
 * `defaultCode` locale's (the fallback locale) when the page has it, else its first listed one. A
 * page with content in no active locale is left out. `<lastmod>` is left out when the page was
 * stored without a time (it is optional in the protocol).
 */
export function buildSitemap(base: string, pages: readonly SitemapPage[], locales: readonly SitemapLocale[], defaultCode?: string): string {
  const root = base.replace(/\/+$/, '');
  const url = (code: string, slug: string) => escapeHtml(`${root}/${encodeURIComponent(code)}/${slug}`);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">'];
  for (const p of pages) {
    const listed = locales.filter((l) => hasContentIn(p, l.code));
    if (!listed.length) continue;
    const fallback = listed.find((l) => l.code === defaultCode) ?? listed[0];
    const alternates = [
      ...listed.map((l) => `    <xhtml:link rel="alternate" hreflang="${escapeHtml(l.languageTag)}" href="${url(l.code, p.slug)}"/>`),
      `    <xhtml:link rel="alternate" hreflang="x-default" href="${url(fallback.code, p.slug)}"/>`,
    ];
    const lastmod = p.updatedAt ? [`    <lastmod>${p.updatedAt.toISOString()}</lastmod>`] : [];
    for (const l of listed) out.push('  <url>', `    <loc>${url(l.code, p.slug)}</loc>`, ...lastmod, ...alternates, '  </url>');
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
