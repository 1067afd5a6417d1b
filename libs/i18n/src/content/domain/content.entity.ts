import type { LocaleMap } from './localized-text';
import type { SourceUnit, TranslationState, UnitTexts } from './translation-state';

/**
 * A page slug: lowercase letters and digits in `-`-separated words, up to 100 characters (`privacy`,
 * `about-us`, `2025-offer`). No `/`, so a slug is one URL segment under every locale code
 * (`/<locale>/<slug>` in the sitemap) and one path parameter of the API.
 */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 100;

/** A fragment key: lowercase letters and digits in words joined by `-`, `_` or `.` (`footer`, `nav.main`), up to 100 characters. */
export const FRAGMENT_KEY_PATTERN = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
export const FRAGMENT_KEY_MAX = 100;

/** The SEO fields of a page, each a locale-to-text map. */
export interface PageSeo {
  title?: LocaleMap;
  description?: LocaleMap;
}

/** Set by the legal-pages seeder; an admin write removes it, which is how a page an admin edited is told apart. */
export interface SeedMark {
  template: string;
  /** Hash of the seeded prose without its rendered date. */
  prose: string;
}

export interface Page {
  slug: string;
  title: LocaleMap;
  /** HTML, stored as written (scripts included: never executed by the platform, escaped by nobody). */
  body: LocaleMap;
  seo: PageSeo;
  translation: TranslationState;
  seeded?: SeedMark;
  /** Undefined on a record stored without a readable time (an older version, or written by hand). */
  createdAt?: Date;
  updatedAt?: Date;
}

export interface Fragment {
  key: string;
  data: unknown;
  translation: TranslationState;
  /** Undefined on a record stored without a readable time, as for pages. */
  createdAt?: Date;
  updatedAt?: Date;
}

/** Every locale any field of the page holds text in. */
export function pageLocales(p: Pick<Page, 'title' | 'body' | 'seo'>): string[] {
  return [...new Set([p.title, p.body, p.seo.title ?? {}, p.seo.description ?? {}].flatMap((m) => Object.keys(m)))].sort();
}

const PAGE_FIELDS = ['title', 'body', 'seo.title', 'seo.description'] as const;

/**
 * A page's translation units (rule 12): `title` and `body` are hashed into the source hash, the SEO
 * fields are translated but not hashed. A field without source text is no unit.
 */
export function pageUnits(p: Pick<Page, 'title' | 'body' | 'seo'>, sourceLocale: string): { units: SourceUnit[]; texts: UnitTexts } {
  const field = (unit: string): LocaleMap | undefined => (unit === 'title' ? p.title : unit === 'body' ? p.body : unit === 'seo.title' ? p.seo.title : p.seo.description);
  const texts: UnitTexts = (unit, locale) => {
    const v = field(unit)?.[locale];
    return typeof v === 'string' ? v : undefined;
  };
  const units: SourceUnit[] = [];
  for (const unit of PAGE_FIELDS) {
    const text = texts(unit, sourceLocale);
    if (text) units.push({ unit, text, hashed: unit === 'title' || unit === 'body' });
  }
  return { units, texts };
}
