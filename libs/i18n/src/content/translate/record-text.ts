import type { Fragment, Page } from '../domain/content.entity';
import { pageUnits } from '../domain/content.entity';
import { fragmentUnits, isMarker } from '../domain/fragment';
import type { SourceUnit, UnitTexts } from '../domain/translation-state';

/** A page or a fragment, addressed the same way by the translator and the review queue. */
export type ContentRecord = { type: 'page'; id: string; page: Page } | { type: 'fragment'; id: string; fragment: Fragment };

export type ContentType = ContentRecord['type'];

export function recordOfPage(page: Page): ContentRecord {
  return { type: 'page', id: page.slug, page };
}

export function recordOfFragment(fragment: Fragment): ContentRecord {
  return { type: 'fragment', id: fragment.key, fragment };
}

export function stateOf(r: ContentRecord): Page['translation'] {
  return r.type === 'page' ? r.page.translation : r.fragment.translation;
}

/** The record's last edit; undefined when it was stored without a time. */
export function updatedAtOf(r: ContentRecord): Date | undefined {
  return r.type === 'page' ? r.page.updatedAt : r.fragment.updatedAt;
}

/** The record's translation units in the source locale and its texts per (unit, locale). */
export function unitsOf(r: ContentRecord, sourceLocale: string): { units: SourceUnit[]; texts: UnitTexts } {
  return r.type === 'page' ? pageUnits(r.page, sourceLocale) : fragmentUnits(r.fragment.data, sourceLocale);
}

/** A JSON Pointer's tokens (RFC 6901): `/links/0/label` gives `links`, `0`, `label`. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The marker at `pointer` in `data`, or undefined when the pointer does not name one. */
export function markerAt(data: unknown, pointer: string): { _i18n: Record<string, string> } | undefined {
  let at: unknown = data;
  for (const token of pointerTokens(pointer)) {
    if (at === null || typeof at !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return isMarker(at) ? (at as { _i18n: Record<string, string> }) : undefined;
}

const PAGE_FIELD_NAMES = new Set(['title', 'body', 'seo.title', 'seo.description']);

/**
 * Writes `text` as the `locale` text of `unit` into the record, in place (the record is a copy the
 * caller read for this write). False when the unit does not exist (any more).
 */
export function setUnitText(r: ContentRecord, unit: string, locale: string, text: string): boolean {
  if (r.type === 'page') {
    if (!PAGE_FIELD_NAMES.has(unit)) return false;
    const p = r.page;
    if (unit === 'title') p.title = { ...p.title, [locale]: text };
    else if (unit === 'body') p.body = { ...p.body, [locale]: text };
    else if (unit === 'seo.title') p.seo = { ...p.seo, title: { ...(p.seo.title ?? {}), [locale]: text } };
    else p.seo = { ...p.seo, description: { ...(p.seo.description ?? {}), [locale]: text } };
    return true;
  }
  const marker = markerAt(r.fragment.data, unit);
  if (!marker) return false;
  marker._i18n = { ...marker._i18n, [locale]: text };
  return true;
}

/** A translator note for one unit: what the text is and how it is written (HTML or plain text). */
export function unitNote(r: ContentRecord, unit: string): string {
  if (r.type === 'page') {
    if (unit === 'title') return `The title of the web page "${r.id}". Plain text.`;
    if (unit === 'body') return `The body of the web page "${r.id}", HTML: keep every tag and attribute exactly as it is and translate only the text between them.`;
    if (unit === 'seo.title') return `The title shown in search results for the web page "${r.id}". Plain text.`;
    return `The meta description shown in search results for the web page "${r.id}". Plain text.`;
  }
  return `A text of the structured site block "${r.id}" (a menu, footer or banner) at ${unit}. Plain text, not markup.`;
}
