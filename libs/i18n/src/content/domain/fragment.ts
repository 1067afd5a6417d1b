import type { FieldProblem } from '@flowplane/platform/http';
import { expandPlain, hasSettingsToken, type SettingLookup } from '../../tokens/settings-tokens';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { type LocaleMap, pickText } from './localized-text';
import type { SourceUnit, UnitTexts } from './translation-state';

/** The key of a localized leaf: `{_i18n: {locale: text}}` (settings rule 10). */
export const MARKER = '_i18n';

/**
 * Limits of a fragment's `data`, checked before it is stored. A fragment 10 levels deep with 10,000
 * leaves fits them; what does not fit is refused with the standard error body (400 for the shape:
 * depth, `$` names, a malformed marker; 413 for the size: leaves, bytes).
 */
export const FRAGMENT_LIMITS = Object.freeze({
  /** Nesting levels of objects and arrays below `data` itself. */
  maxDepth: 32,
  /** Scalars and markers (a marker is one leaf, whatever its locales). */
  maxLeaves: 20_000,
  /** Serialized JSON of `data`, in UTF-8 bytes. */
  maxBytes: 1024 * 1024,
});

/** Why `data` was refused: `tooLarge` is a 413, the rest a 400. */
export interface FragmentProblem {
  tooLarge: boolean;
  details: FieldProblem[];
}

/** Whether `value` is a marker: a plain object whose only key is `_i18n` (a map with other keys is ordinary). */
export function isMarker(value: unknown): value is { _i18n: LocaleMap } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  let n = 0;
  for (const k in value) {
    if (k !== MARKER || ++n > 1) return false;
  }
  return n === 1;
}

/** JSON Pointer (RFC 6901) token of one key. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Checks a fragment's `data`: no field name starting with `$` anywhere (rule 10), every marker a map
 * of locale codes to strings, and the limits above. Problems name the JSON Pointer of the offending
 * field below the body (`/data/links/0/$ref`); at most 20 are listed.
 */
export function checkFragmentData(data: unknown): FragmentProblem | undefined {
  const details: FieldProblem[] = [];
  let leaves = 0;
  let tooDeep = false;
  const add = (field: string, problem: string) => {
    if (details.length < 20) details.push({ field, problems: [problem] });
  };
  const walk = (value: unknown, path: string, depth: number): void => {
    if (value === null || typeof value !== 'object') {
      leaves++;
      return;
    }
    if (depth > FRAGMENT_LIMITS.maxDepth) {
      if (!tooDeep) add(path, `data nests deeper than ${FRAGMENT_LIMITS.maxDepth} levels`);
      tooDeep = true;
      return;
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) walk(value[i], `${path}/${i}`, depth + 1);
      return;
    }
    if (isMarker(value)) {
      leaves++;
      const map = value._i18n as unknown;
      if (map === null || typeof map !== 'object' || Array.isArray(map)) {
        add(`${path}/${MARKER}`, 'a localized leaf maps locale codes to text: {"_i18n": {"en": "…"}}');
        return;
      }
      for (const [locale, text] of Object.entries(map)) {
        if (!LOCALE_CODE_PATTERN.test(locale)) add(`${path}/${MARKER}/${pointerToken(locale)}`, `"${locale.slice(0, 40)}" is not a locale code`);
        else if (typeof text !== 'string') add(`${path}/${MARKER}/${pointerToken(locale)}`, 'the text of a localized leaf must be a string');
      }
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const at = `${path}/${pointerToken(k)}`;
      if (k.startsWith('$')) add(at, 'a field name may not begin with "$"');
      walk(v, at, depth + 1);
    }
  };
  walk(data, '/data', 0);
  if (details.length) return { tooLarge: false, details };
  if (leaves > FRAGMENT_LIMITS.maxLeaves) return { tooLarge: true, details: [{ field: '/data', problems: [`data holds ${leaves} leaves, more than ${FRAGMENT_LIMITS.maxLeaves}`] }] };
  const bytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
  if (bytes > FRAGMENT_LIMITS.maxBytes) return { tooLarge: true, details: [{ field: '/data', problems: [`data is ${bytes} bytes as JSON, more than ${FRAGMENT_LIMITS.maxBytes}`] }] };
  return undefined;
}

/** Every marker of `data` by its JSON Pointer (`/links/0/label`), in document order. */
export function markersOf(data: unknown): Array<{ pointer: string; map: LocaleMap }> {
  const out: Array<{ pointer: string; map: LocaleMap }> = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) walk(value[i], `${path}/${i}`);
      return;
    }
    if (isMarker(value)) {
      out.push({ pointer: path, map: value._i18n });
      return;
    }
    for (const [k, v] of Object.entries(value)) walk(v, `${path}/${pointerToken(k)}`);
  };
  walk(data, '');
  return out;
}

/** A fragment's translation units: each marked leaf, its source text the source locale's (all hashed into the source hash). */
export function fragmentUnits(data: unknown, sourceLocale: string): { units: SourceUnit[]; texts: UnitTexts } {
  const markers = markersOf(data);
  const byPointer = new Map(markers.map((m) => [m.pointer, m.map]));
  const units = markers.map((m) => ({ unit: m.pointer, text: typeof m.map[sourceLocale] === 'string' ? m.map[sourceLocale] : '', hashed: true }));
  const texts: UnitTexts = (unit, locale) => {
    const v = byPointer.get(unit)?.[locale];
    return typeof v === 'string' ? v : undefined;
  };
  return { units, texts };
}

/**
 * Settings rule 10: a copy of `data` with every marker replaced by its text for the chain (requested,
 * base, fallback, then any non-empty value; empty when none), and tokens expanded as plain text in
 * that text and in every other string leaf (rule 1: any string served). The stored value is never
 * modified: objects and arrays are rebuilt on the way.
 */
export function projectFragment(data: unknown, chain: readonly string[], lookup: SettingLookup): unknown {
  return project(data, chain, lookup);
}

function project(value: unknown, chain: readonly string[], lookup: SettingLookup): unknown {
  if (typeof value === 'string') return hasSettingsToken(value) ? expandPlain(value, lookup) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = project(value[i], chain, lookup);
    return out;
  }
  const obj = value as Record<string, unknown>;
  if (isMarker(obj)) {
    const text = pickText(obj._i18n as LocaleMap, chain)?.text ?? '';
    return hasSettingsToken(text) ? expandPlain(text, lookup) : text;
  }
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    // A JSON `__proto__` key is data: define it, never assign it (which would set the prototype).
    if (k === '__proto__') Object.defineProperty(out, k, { value: project(obj[k], chain, lookup), enumerable: true, writable: true, configurable: true });
    else out[k] = project(obj[k], chain, lookup);
  }
  return out;
}
