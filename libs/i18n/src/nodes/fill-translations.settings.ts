import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { isRequestLocale } from '@flowplane/platform/http';
import type { FillMode } from '../auto-translate/auto-translate.ports';

/** Keys a fill node works through per run when `limit` is not set (localization.md, Limits). */
export const DEFAULT_FILL_LIMIT = 200;
/** Largest `limit` a node may ask for: a run must answer within its step timeout. */
export const MAX_FILL_LIMIT = 10_000;

const FILL_MODES: readonly FillMode[] = ['missing', 'missing_and_stale'];

/**
 * Settings of `i18n/fill-translations` (localization.md, "Fill node settings"). There is no
 * overwrite setting (automatic translation rule 8): an unattended flow at most re-translates stale
 * machine text.
 */
export const FILL_NODE_SETTINGS_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  type: 'object',
  properties: {
    keys: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      maxItems: MAX_FILL_LIMIT,
      title: 'Keys',
      description: "Keys to fill. Empty: the triggering event's `payload.keys` (and `payload.ns`).",
      'x-order': 1,
    },
    all_keys: {
      type: 'boolean',
      default: false,
      title: 'All keys',
      description: 'Must be on for an empty key list to mean the whole catalog (every namespace).',
      'x-order': 2,
    },
    mode: {
      type: 'string',
      enum: [...FILL_MODES],
      default: 'missing',
      title: 'Mode',
      description: '`missing`: only locales with no text. `missing_and_stale`: also machine text whose source or translator note changed since it was translated.',
      'x-order': 3,
    },
    locales: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      title: 'Locales',
      description: 'Restrict the languages filled. Empty: every active locale but the source.',
      'x-order': 4,
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_FILL_LIMIT,
      default: DEFAULT_FILL_LIMIT,
      title: 'Limit',
      description: 'Keys worked on per run; the rest waits for the next run (the report says how many remain).',
      'x-order': 5,
    },
    review: {
      type: 'boolean',
      default: true,
      title: 'Review',
      description: 'Run the review gate before writing: a flagged candidate of a key with a translator note is held for approval.',
      'x-order': 6,
    },
  },
  additionalProperties: false,
  'x-ui': { order: ['keys', 'all_keys', 'mode', 'locales', 'limit', 'review'] },
} as const;

/** The node's settings, read. */
export interface FillNodeSettings {
  /** Explicit keys; undefined or empty: the event's keys, or the whole catalog with `allKeys`. */
  keys?: string[];
  allKeys: boolean;
  mode: FillMode;
  locales?: string[];
  limit: number;
  review: boolean;
}

/** A setting that cannot be read as its kind. */
export class FillSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FillSettingsError';
  }
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A scalar wrapped the way some stores and drivers hand back stored numbers and strings: Mongo's
 * extended JSON (`{$numberInt: "5"}`, `{$numberLong: "5"}`, `{$numberDouble: "5"}`) or a boxed
 * primitive. Anything else comes back unchanged.
 */
function unwrap(value: unknown): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && ['$numberInt', '$numberLong', '$numberDouble', '$numberDecimal'].includes(keys[0])) return value[keys[0]];
  }
  return value;
}

/**
 * A stored list read by its kind (rule 7): an array; a comma- or newline-separated string; or an
 * object with numeric keys (how a generic list type serialises), in key order. Items may be strings
 * or numbers; blanks are dropped. `undefined`/`null` give undefined.
 */
export function readList(value: unknown, name: string): string[] | undefined {
  const v = unwrap(value);
  if (v === undefined || v === null) return undefined;
  let items: unknown[];
  if (Array.isArray(v)) items = v;
  else if (typeof v === 'string') items = v.split(/[,\n]/);
  else if (isObject(v) && Object.keys(v).every((k) => /^\d+$/.test(k))) {
    items = Object.keys(v)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => v[k]);
  } else throw new FillSettingsError(`${name} must be a list of strings`);
  const out: string[] = [];
  for (const raw of items) {
    const item = unwrap(raw);
    if (item === undefined || item === null) continue;
    if (typeof item !== 'string' && !(typeof item === 'number' && Number.isFinite(item))) throw new FillSettingsError(`${name} must be a list of strings`);
    const s = String(item).trim();
    if (s !== '' && !out.includes(s)) out.push(s);
  }
  return out;
}

/** A stored whole number read by its kind: a number (any integer width), a bigint, or a string of digits. */
export function readInteger(value: unknown, name: string, fallback: number, min: number, max: number): number {
  const v = unwrap(value);
  if (v === undefined || v === null || v === '') return fallback;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (typeof v === 'string' && /^\s*[+-]?\d+(\.0+)?\s*$/.test(v)) n = Number(v.trim());
  else throw new FillSettingsError(`${name} must be a whole number`);
  if (!Number.isInteger(n)) throw new FillSettingsError(`${name} must be a whole number`);
  if (n < min || n > max) throw new FillSettingsError(`${name} must be between ${min} and ${max}`);
  return n;
}

/** A stored flag read by its kind: a boolean, `true`/`false`/`yes`/`no`/`on`/`off`/`1`/`0` as text, or 1/0. */
export function readBoolean(value: unknown, name: string, fallback: boolean): boolean {
  const v = unwrap(value);
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(s)) return true;
    if (['false', 'no', 'off', '0'].includes(s)) return false;
  }
  throw new FillSettingsError(`${name} must be true or false`);
}

/** Reads the node's stored config by value kind; throws FillSettingsError naming the first bad setting. */
export function readFillNodeSettings(config: unknown): FillNodeSettings {
  const c = isObject(config) ? config : {};
  const modeValue = unwrap(c.mode);
  const mode = modeValue === undefined || modeValue === null || modeValue === '' ? 'missing' : typeof modeValue === 'string' ? modeValue.trim() : modeValue;
  if (!FILL_MODES.includes(mode as FillMode)) throw new FillSettingsError(`mode must be one of ${FILL_MODES.join(', ')}`);
  const locales = readList(c.locales, 'locales');
  const bad = locales?.find((l) => !isRequestLocale(l));
  if (bad !== undefined) throw new FillSettingsError(`locales: ${JSON.stringify(bad)} is not a locale code such as de or pt-BR`);
  const keys = readList(c.keys, 'keys');
  if (keys && keys.length > MAX_FILL_LIMIT) throw new FillSettingsError(`keys may name at most ${MAX_FILL_LIMIT} keys`);
  return {
    keys: keys?.length ? keys : undefined,
    allKeys: readBoolean(c.all_keys, 'all_keys', false),
    mode: mode as FillMode,
    locales: locales?.length ? locales : undefined,
    limit: readInteger(c.limit, 'limit', DEFAULT_FILL_LIMIT, 1, MAX_FILL_LIMIT),
    review: readBoolean(c.review, 'review', true),
  };
}
