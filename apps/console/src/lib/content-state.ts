/**
 * Translation state of a page's or fragment's units per locale, as the content editor shows it:
 * current (translated at the unit's present source), stale (text behind its source), missing (no
 * text), pending (a candidate waits for review). Pure logic, no DOM.
 */

export type UnitState = 'current' | 'stale' | 'missing' | 'pending';

export interface TranslationStateView {
  translationReady: boolean;
  reviewRequired: boolean;
  units: Array<{ unit: string; hash: string; locales: string[] }> | null;
  pending: Array<{ unit: string; locale: string; text: string; at: string }>;
  locales: Record<string, UnitState>;
}

export interface PageLike {
  title: Record<string, string>;
  body: Record<string, string>;
  seo?: { title?: Record<string, string>; description?: Record<string, string> };
}

/** The text a page holds for a unit (`title`, `body`, `seo.title`, `seo.description`) in a locale. */
export function pageUnitText(page: PageLike, unit: string, locale: string): string | undefined {
  const map = unit === 'title' ? page.title : unit === 'body' ? page.body : unit === 'seo.title' ? page.seo?.title : unit === 'seo.description' ? page.seo?.description : undefined;
  const t = map?.[locale];
  return t === undefined || t === '' ? undefined : t;
}

/** The value at a JSON Pointer (`/links/0/label`), or undefined. */
export function atPointer(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The text a fragment's marked leaf (`{"_i18n": {...}}`) holds in a locale. */
export function fragmentUnitText(data: unknown, pointer: string, locale: string): string | undefined {
  const leaf = atPointer(data, pointer);
  if (!leaf || typeof leaf !== 'object') return undefined;
  const marker = (leaf as Record<string, unknown>)['_i18n'];
  if (!marker || typeof marker !== 'object') return undefined;
  const t = (marker as Record<string, unknown>)[locale];
  return typeof t === 'string' && t !== '' ? t : undefined;
}

/** Every marked leaf of a fragment's data, by JSON Pointer (what the server calls its units). */
export function fragmentUnits(data: unknown, base = ''): string[] {
  if (!data || typeof data !== 'object') return [];
  const rec = data as Record<string, unknown>;
  if (!Array.isArray(data) && Object.keys(rec).length === 1 && rec['_i18n'] && typeof rec['_i18n'] === 'object') return [base];
  return Object.entries(rec).flatMap(([k, v]) => fragmentUnits(v, `${base}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

/**
 * The state of every (unit, locale): the source locale is current when it has text; another locale is
 * pending when a candidate waits, current when the unit lists it at its hash, missing without text,
 * else stale. Units named by the record win; without unit tracking the record's own list of units
 * (`fallbackUnits`) is used and a locale holding text counts as current (the server adopts it).
 */
export function unitStates(state: TranslationStateView, fallbackUnits: string[], locales: string[], sourceLocale: string, text: (unit: string, locale: string) => string | undefined): Array<{ unit: string; states: Record<string, UnitState> }> {
  const tracked = new Map((state.units ?? []).map((u) => [u.unit, u.locales]));
  const names = state.units && state.units.length ? state.units.map((u) => u.unit) : fallbackUnits;
  return names.map((unit) => {
    const states: Record<string, UnitState> = {};
    for (const locale of locales) {
      const has = text(unit, locale) !== undefined;
      if (state.pending.some((p) => p.unit === unit && p.locale === locale)) states[locale] = 'pending';
      else if (locale === sourceLocale) states[locale] = has ? 'current' : 'missing';
      else if (!has) states[locale] = 'missing';
      else if (!tracked.has(unit) || tracked.get(unit)!.includes(locale)) states[locale] = 'current';
      else states[locale] = 'stale';
    }
    return { unit, states };
  });
}
