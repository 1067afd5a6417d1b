import { DECLARED_PROFILE_KINDS } from '@flowplane/contracts';
import type { JsonSchema } from '@flowplane/flow/ir';
import type { SettingsProperty, SettingsSchema } from './node-manifest';

/**
 * Node config interpretation (issue 4 item 3, localization spec rule 7): a stored config is read
 * by value kind, not by the concrete type a store produced. Numbers may arrive as strings, as
 * MongoDB extended-JSON wrappers (`{$numberInt: "5"}`) or as bigints; arrays as array-like objects
 * (`{"0": "a", "1": "b"}`) or JSON strings. The settings schema says what each key should be; the
 * interpreter converts what it can and keeps the rest as stored (with a warning). Keys unknown to
 * the schema are dropped with a warning (spec "Rules: templates" item 4).
 */

/** A problem found while interpreting a node's config; it becomes a `node.warning` run event. */
export interface ConfigWarning {
  code: 'UNKNOWN_CONFIG_KEY' | 'CONFIG_TYPE_MISMATCH';
  key: string;
  message: string;
}

/** The interpreted config and what was dropped or could not be converted. */
export interface InterpretedConfig {
  config: Record<string, unknown>;
  warnings: ConfigWarning[];
}

/** A settings property that selects a profile (`x-profile-kind`). */
export interface ProfileSelector {
  /** The config key holding the profile id. */
  key: string;
  /** Owner module of the kind (profiles are addressed by module, kind, id). */
  module: string;
  kind: string;
  /** `x-overrides`: sibling keys the profile supplies defaults for (informational). */
  overrides: readonly string[];
}

/** Maps a kind id to its owner module; the default reads the kinds declared in contracts. */
export type ProfileKindModuleLookup = (kind: string) => string | undefined;

const NOT_CONVERTED = Symbol('not-converted');

/** The module owning a declared profile kind (`llm-chat` → `llm`), from contracts' declarations. */
export function declaredKindModule(kind: string): string | undefined {
  return DECLARED_PROFILE_KINDS.find((k) => k.id === kind)?.module;
}

/**
 * Interprets `raw` against `schema`: known keys converted to their declared kind, unknown keys
 * dropped (unless `additionalProperties` is explicitly allowed). Without a schema (or one with no
 * `properties`) every key is kept, with value-kind unwrapping only. Never throws; inputs untouched.
 */
export function interpretConfig(
  schema: SettingsSchema | undefined,
  raw: Readonly<Record<string, unknown>> | undefined,
): InterpretedConfig {
  const config: Record<string, unknown> = {};
  const warnings: ConfigWarning[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { config, warnings };
  const properties = schema?.properties;
  const allowExtra = !properties || (schema?.additionalProperties !== undefined && schema.additionalProperties !== false);
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    const prop = properties && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    if (!prop) {
      if (allowExtra) {
        config[key] = interpretValue(undefined, value);
      } else {
        warnings.push({
          code: 'UNKNOWN_CONFIG_KEY',
          key,
          message: `config key ${JSON.stringify(key)} is not in the node's settings schema; dropped`,
        });
      }
      continue;
    }
    const converted = interpretValue(prop, value);
    config[key] = converted;
    const expected = typesOf(prop);
    if (expected.length && !isBlank(converted) && !expected.some((t) => matchesType(t, converted))) {
      warnings.push({
        code: 'CONFIG_TYPE_MISMATCH',
        key,
        message: `config key ${JSON.stringify(key)} should be ${expected.join(' or ')}, got ${kindOf(converted)}; kept as stored`,
      });
    }
  }
  return { config, warnings };
}

/**
 * One value read by kind: extended-JSON and bigint numbers unwrapped everywhere; then converted to
 * the schema's type when it declares one (numbers, integers, booleans, arrays, objects). A value
 * that does not convert is returned as it is.
 */
export function interpretValue(schema: JsonSchema | undefined, value: unknown): unknown {
  const v = unwrapNumber(value);
  const types = schema ? typesOf(schema) : [];
  if (types.length === 0) return normaliseUntyped(v);
  if (v === null || v === undefined) return v;
  for (const t of types) {
    const out = convert(t, schema as JsonSchema, v);
    if (out !== NOT_CONVERTED) return out;
  }
  return normaliseUntyped(v);
}

/** Properties marked `x-profile-kind`, in form order (`x-order`, then `x-ui.order`, then declaration). */
export function profileSelectors(
  schema: SettingsSchema | undefined,
  kindModule: ProfileKindModuleLookup = declaredKindModule,
): ProfileSelector[] {
  const properties = schema?.properties;
  if (!properties) return [];
  const out: Array<ProfileSelector & { order: number }> = [];
  const uiOrder = Array.isArray(schema?.['x-ui']?.order) ? (schema?.['x-ui']?.order as string[]) : [];
  let index = 0;
  for (const [key, prop] of Object.entries(properties)) {
    index++;
    const ref = prop?.['x-profile-kind'];
    if (typeof ref !== 'string' || ref.trim() === '') continue;
    const slash = ref.indexOf('/');
    const kind = slash > 0 ? ref.slice(slash + 1) : ref;
    const module = slash > 0 ? ref.slice(0, slash) : (kindModule(ref) ?? ref);
    const overrides = Array.isArray(prop['x-overrides']) ? prop['x-overrides'].filter((k) => typeof k === 'string') : [];
    const ui = uiOrder.indexOf(key);
    const order = typeof prop['x-order'] === 'number' ? prop['x-order'] : ui >= 0 ? 1e6 + ui : 2e6 + index;
    out.push({ key, module, kind, overrides, order });
  }
  return out.sort((a, b) => a.order - b.order).map(({ order: _order, ...s }) => s);
}

/** Keys whose blank node value defers to the profile (`x-profile-overridable: true`). */
export function overridableKeys(schema: SettingsSchema | undefined): Set<string> {
  const keys = new Set<string>();
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop?.['x-profile-overridable'] === true) keys.add(key);
  }
  return keys;
}

/** Declared `default` values of the schema's properties, interpreted like stored values. */
export function settingsDefaults(schema: SettingsSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop && prop.default !== undefined) out[key] = interpretValue(prop, prop.default);
  }
  return out;
}

function typesOf(schema: JsonSchema | SettingsProperty): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string' && x !== 'null');
  return [];
}

function convert(type: string, schema: JsonSchema, v: unknown): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && v.trim() !== '') {
        const n = Number(v.trim());
        if (Number.isFinite(n) && (type === 'number' || Number.isInteger(n))) return n;
      }
      return NOT_CONVERTED;
    }
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        const s = v.trim().toLowerCase();
        if (s === 'true') return true;
        if (s === 'false') return false;
      }
      return NOT_CONVERTED;
    }
    case 'array': {
      const arr = asArray(v);
      if (!arr) return NOT_CONVERTED;
      const items = schema.items;
      const itemSchema = items && typeof items === 'object' && !Array.isArray(items) ? (items as JsonSchema) : undefined;
      return arr.map((item) => interpretValue(itemSchema, item));
    }
    case 'object': {
      if (!isPlainObject(v)) return NOT_CONVERTED;
      const props = isPlainObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) out[k] = interpretValue(props[k], v[k]);
      return out;
    }
    case 'string':
      return typeof v === 'string' ? v : NOT_CONVERTED;
    default:
      return NOT_CONVERTED;
  }
}

/** Without a declared type: unwrap numbers inside arrays and objects, keep everything else. */
function normaliseUntyped(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => normaliseUntyped(unwrapNumber(x)));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = normaliseUntyped(unwrapNumber(v[k]));
    return out;
  }
  return v;
}

const NUMBER_WRAPPERS = ['$numberInt', '$numberLong', '$numberDouble', '$numberDecimal'];

function unwrapNumber(v: unknown): unknown {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && NUMBER_WRAPPERS.includes(keys[0])) {
      const n = Number(v[keys[0]]);
      if (!Number.isNaN(n)) return n;
    }
  }
  return v;
}

/** An array, an array-like object (`{"0": .., "1": ..}`, optionally with `length`), a Set or a JSON array string. */
function asArray(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  if (typeof v === 'string') {
    const s = v.trim();
    if (s.startsWith('[') && s.endsWith(']')) {
      try {
        const parsed: unknown = JSON.parse(s);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
  if (isPlainObject(v)) {
    const keys = Object.keys(v).filter((k) => k !== 'length');
    if (keys.length === 0) return 'length' in v && Number(v.length) === 0 ? [] : undefined;
    const out: unknown[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(v, String(i))) return undefined;
      out.push(v[String(i)]);
    }
    return out;
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
}

function matchesType(type: string, v: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof v === 'number';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return true;
  }
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v;
}
