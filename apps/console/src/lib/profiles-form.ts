import { plainT, type JsonSchema, type Translate } from './flow-types';
import { validateValue } from './settings-validator';

/**
 * Pure logic of the profiles and settings area: forms generated from the field definitions the
 * API gives (`GET /admin/profiles/kinds`, `GET /admin/settings/{module}`), the masked secrets
 * (the mask is sent back untouched unless the user replaces or clears the secret), the secrets
 * that must be typed again when an endpoint field changes, and per-locale overrides of localized
 * settings (clearing one sends an empty text, so the default applies again).
 */

/** The mask the API shows for a sensitive value that is set (eight U+2022 bullets); sent back, it keeps the stored value. */
export const MASK = '\u2022'.repeat(8);

export type FieldType = 'string' | 'number' | 'boolean' | 'textarea' | 'secret' | 'url' | 'json';

/** What the console needs of a profile field or a module setting declaration. */
export interface FieldDef {
  key: string;
  label: string;
  type: FieldType;
  required?: boolean;
  sensitive?: boolean;
  /** Profiles: where the kind's secrets are sent (provider, base URL). */
  endpoint?: boolean;
  description?: string;
  options?: string[];
  optionsUnavailable?: boolean;
  default?: unknown;
  env_var?: string;
  localized?: boolean;
}

/** Form state of one field: text for text-like inputs (numbers and JSON included), a boolean for a checkbox. */
export type FieldValue = string | boolean;

/** Whether a field is a secret: sensitive, or typed `secret`. */
export function isSecret(f: FieldDef): boolean {
  return f.sensitive === true || f.type === 'secret';
}

/** The form state of stored values: a set secret reads as the mask, JSON as indented text, an absent value as blank. */
export function toFormState(fields: readonly FieldDef[], values: Record<string, unknown> | undefined): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const f of fields) {
    const v = values?.[f.key];
    if (f.type === 'boolean') out[f.key] = v === true || v === 'true';
    else if (v === undefined || v === null) out[f.key] = '';
    else if (f.type === 'json') out[f.key] = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    else out[f.key] = String(v);
  }
  return out;
}

/** The JSON Schema of a kind's fields, for the console's eval-free validator (the server stays the judge). */
export function fieldsSchema(fields: readonly FieldDef[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) {
    const p: JsonSchema = {};
    if (f.type === 'number') p['type'] = 'number';
    else if (f.type === 'boolean') p['type'] = 'boolean';
    else if (f.type !== 'json') p['type'] = 'string';
    if (f.options?.length && !f.optionsUnavailable) p['enum'] = f.options;
    if (f.type === 'url') p['pattern'] = '^https?://';
    properties[f.key] = p;
  }
  return { type: 'object', properties, required: fields.filter((f) => f.required).map((f) => f.key) };
}

/**
 * The values to send from a form state, with the problems found before sending (by field key).
 * Blank fields are left out of a new profile and sent as "" (clears) on an update; a secret still
 * showing the mask is sent as the mask (kept); numbers and JSON are parsed.
 */
export function fromFormState(
  fields: readonly FieldDef[],
  state: Record<string, FieldValue>,
  opts: { creating: boolean },
  $t: Translate = plainT,
): { values: Record<string, unknown>; problems: Record<string, string> } {
  const values: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const f of fields) {
    const raw = state[f.key];
    if (f.type === 'boolean') {
      values[f.key] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (text.trim() === '') {
      if (f.required && !(isSecret(f) && text === MASK)) problems[f.key] = $t('profiles.check.required', 'This field is required.');
      else if (!opts.creating) values[f.key] = '';
      continue;
    }
    if (isSecret(f) && text === MASK) {
      values[f.key] = MASK;
      continue;
    }
    if (isSecret(f) && text.includes('\u2022')) {
      problems[f.key] = $t('profiles.check.partialMask', 'Type the whole new secret: part of the mask cannot be stored.');
      continue;
    }
    if (f.type === 'number') {
      const n = Number(text.trim());
      if (!Number.isFinite(n)) problems[f.key] = $t('profiles.check.number', 'Enter a number.');
      else values[f.key] = n;
    } else if (f.type === 'json') {
      try {
        values[f.key] = JSON.parse(text);
      } catch {
        problems[f.key] = $t('profiles.check.json', 'Enter valid JSON.');
      }
    } else {
      values[f.key] = f.type === 'textarea' ? text : text.trim();
    }
  }
  const checkable = Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== '' && !problems[k] && v !== MASK));
  for (const e of validateValue(fieldsSchema(fields.filter((f) => !f.required || checkable[f.key] !== undefined || values[f.key] === MASK)), checkable, $t)) {
    const key = e.property.split('.').filter(Boolean)[0];
    if (key && !problems[key] && e.name !== 'required') problems[key] = e.message;
  }
  return { values, problems };
}

/**
 * The secrets to type again: a secret is only sent to the endpoint stored with it, so changing an
 * endpoint field (provider, base URL) while a secret is kept (still the mask) is refused by the
 * server. Answers the keys of the secrets still showing the mask when an endpoint field changed.
 */
export function secretsToReenter(fields: readonly FieldDef[], stored: Record<string, FieldValue>, state: Record<string, FieldValue>): string[] {
  const changed = fields.some((f) => f.endpoint && !isSecret(f) && norm(stored[f.key]) !== norm(state[f.key]));
  if (!changed) return [];
  return fields.filter((f) => isSecret(f) && state[f.key] === MASK).map((f) => f.key);
}

function norm(v: FieldValue | undefined): string {
  return typeof v === 'string' ? v.trim() : String(v ?? '');
}

/** A copy of a profile id that is free (`<id>-copy`, then `-copy-2`, ...). */
export function copyId(id: string, taken: readonly string[]): string {
  const base = `${id}-copy`;
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

/** One row of a localized setting's editor. */
export interface LocaleRow {
  locale: string;
  text: string;
  /** Where the text came from: `stored` is an override; `env`/`default` the fallback; `missing` when no text exists. */
  source: 'stored' | 'env' | 'default' | 'missing';
}

/**
 * The rows of a localized setting: every locale with text, then every other active locale (blank),
 * source locale first.
 */
export function localeRows(value: unknown, sources: Record<string, string> | undefined, locales: readonly string[], sourceLocale: string): LocaleRow[] {
  const map = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const codes = [...new Set([sourceLocale, ...Object.keys(map), ...locales])];
  return codes.map((locale) => {
    const text = typeof map[locale] === 'string' ? (map[locale] as string) : '';
    const s = sources?.[locale];
    return { locale, text, source: s === 'stored' || s === 'env' || s === 'default' ? s : text ? 'default' : 'missing' };
  });
}

/**
 * The locale map to send for edited rows: a changed text is sent, a cleared override is sent as ""
 * (the API removes it and the default applies again), untouched locales are left out. Undefined
 * when nothing changed.
 */
export function localePatch(before: readonly LocaleRow[], after: readonly LocaleRow[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const row of after) {
    const was = before.find((b) => b.locale === row.locale);
    const text = row.text.trim();
    if (row.source === 'stored' && was?.source === 'stored' && text === was.text.trim()) continue;
    if (row.source !== 'stored') {
      // Not an override (any more): clear a stored one, leave a fallback alone.
      if (was?.source === 'stored') out[row.locale] = '';
      continue;
    }
    if (text !== (was?.text.trim() ?? '')) out[row.locale] = text;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Which of the caller's permissions open the profiles part: any of these (README "Profiles and module settings"). */
export const PROFILES_READ = ['profiles:read', 'profiles:write', 'profiles:*'];
export const PROFILES_WRITE = ['profiles:write', 'profiles:*'];

/** Whether a caller holds any of the permissions (a superuser holds all). */
export function holdsAny(me: { perms: string[]; superuser: boolean; active: boolean } | undefined, perms: readonly string[]): boolean {
  if (!me || !me.active) return false;
  return me.superuser || perms.some((p) => me.perms.includes(p));
}
