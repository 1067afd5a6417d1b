/**
 * Module settings (spec: localization.md "Rules: settings tokens and localized settings"; issue 3).
 * Modules declare their setting fields here, in contracts, so the profiles service (which stores
 * every module's settings) and the services that read them share one declaration.
 */

/** Value types shared by setting fields and profile kind fields. */
export type FieldType = 'string' | 'number' | 'boolean' | 'textarea' | 'secret' | 'url' | 'json';

/** Every field type, for validation and OpenAPI enums. */
export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'textarea', 'secret', 'url', 'json'];

/** One setting field of a module. */
export interface SettingField {
  key: string;
  type: FieldType;
  label: string;
  description?: string;
  /** Used when neither a stored value nor the env var is set. */
  default?: unknown;
  /** Environment variable consulted when no value is stored. */
  env_var?: string;
  /** Allowed values (inline). */
  options?: readonly string[];
  /** A string value must match this regular expression (its source; anchor it). */
  pattern?: string;
  /** What `pattern` allows, in words, for the 400 (for example `up to 40 letters, digits, "_" or "-"`). */
  patternHint?: string;
  /** A number value must be a whole number. */
  integer?: boolean;
  /** Smallest allowed number value. */
  min?: number;
  /** Largest allowed number value. */
  max?: number;
  /** Readable without a token through GET /api/v1/settings/{module}/{key} (never when sensitive). */
  public?: boolean;
  /** Masked in every read, event and log. */
  sensitive?: boolean;
  /** One value per locale (a locale-to-string map). Never together with `sensitive`. */
  localized?: boolean;
}

/** The settings a module declares. */
export interface ModuleSettings {
  module: string;
  /** Shown in admin UIs. */
  label?: string;
  fields: readonly SettingField[];
}
