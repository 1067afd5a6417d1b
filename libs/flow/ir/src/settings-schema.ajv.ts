import Ajv2020, { type Options } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** The dialect node settings schemas declare in `$schema`. */
export const SETTINGS_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The editor hints a node settings schema may carry (spec "Node setting hints for a profile
 * selector"), each with the meta-schema its value must satisfy. Registered as annotation-only
 * keywords, so strict mode accepts them and a malformed hint (`x-order: "1"`) fails schema
 * compilation instead of being ignored.
 */
export const SETTINGS_SCHEMA_KEYWORDS: Readonly<Record<string, Record<string, unknown>>> = {
  /** Schema level: the form's property order. */
  'x-ui': { type: 'object', properties: { order: { type: 'array', items: { type: 'string' } } } },
  /** Property level: position in the form. */
  'x-order': { type: 'number' },
  /** A profile selector: `<kind>` or `<module>/<kind>`. */
  'x-profile-kind': { type: 'string', minLength: 1 },
  /** Sibling keys the selected profile supplies defaults for. */
  'x-overrides': { type: 'array', items: { type: 'string' } },
  /** A blank node value defers to the profile. */
  'x-profile-overridable': { type: 'boolean' },
  /** Set by `GET /flows/nodes` when a selector's profiles could not be listed. */
  'x-options-unavailable': { type: 'boolean' },
};

/**
 * The one ajv configuration for node settings schemas: draft 2020-12, strict mode (unknown keywords
 * and dubious constructs are schema errors), every error reported, formats checked (`uri`, `email`,
 * ...), our `x-` hints registered. Data is never coerced, defaulted or mutated.
 *
 * `options` may relax it, for example `{strict: false}` for schemas written by third parties
 * (remote node manifests), which may use keywords of their own.
 */
export function createSettingsAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, useDefaults: false, coerceTypes: false, ...options });
  addFormats(ajv);
  for (const [keyword, metaSchema] of Object.entries(SETTINGS_SCHEMA_KEYWORDS)) ajv.addKeyword({ keyword, metaSchema, schemaType: metaSchemaType(metaSchema) });
  return ajv;
}

function metaSchemaType(metaSchema: Record<string, unknown>): 'object' | 'number' | 'string' | 'array' | 'boolean' {
  return metaSchema['type'] as 'object' | 'number' | 'string' | 'array' | 'boolean';
}
