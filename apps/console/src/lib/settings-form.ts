import { plainT, type JsonSchema, type Translate } from './flow-types';

/**
 * A node's settings schema (`GET /flows/nodes`, `settingsSchema`) → what @rjsf/core renders: the
 * JSON Schema (x-* hints removed, titles filled) and a uiSchema carrying the hints the spec gives a
 * studio:
 * - order: `x-order` (per property) first, then `x-ui.order` (schema level), then declaration,
 *   as the engine orders profile selectors (libs/flow/engine profileSelectors);
 * - `x-profile-kind`: a selector whose `enum` the registry filled with the live profile ids; with
 *   `x-options-unavailable` (profiles could not be listed) it stays a text field and says so;
 * - `x-overrides`: the selector's help names the sibling keys its profile supplies;
 * - `x-profile-overridable`: the field's help says a blank value uses the profile's, and
 *   formDataToConfig drops a blank value so the engine defers to the profile.
 */

export interface SettingsForm {
  schema: JsonSchema;
  uiSchema: Record<string, unknown>;
  /** Property keys in render order. */
  order: string[];
  /** Keys whose blank value defers to the profile. */
  overridable: string[];
  /** Profile selector keys with their kind. */
  selectors: Array<{ key: string; kind: string; options: string[] | undefined }>;
}

type Prop = JsonSchema & {
  title?: string;
  description?: string;
  enum?: unknown[];
  'x-profile-kind'?: string;
  'x-overrides'?: unknown;
  'x-profile-overridable'?: boolean;
  'x-order'?: number;
  'x-options-unavailable'?: boolean;
};

/** Property keys in form order: x-order, then x-ui.order, then declaration. */
export function propertyOrder(schema: JsonSchema | undefined): string[] {
  const props = (schema?.['properties'] ?? {}) as Record<string, Prop>;
  const ui = schema?.['x-ui'] as { order?: unknown } | undefined;
  const uiOrder = Array.isArray(ui?.order) ? (ui.order as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  return Object.keys(props)
    .map((key, index) => {
      const p = props[key];
      const at = uiOrder.indexOf(key);
      const order = typeof p?.['x-order'] === 'number' ? p['x-order'] : at >= 0 ? 1e6 + at : 2e6 + index;
      return { key, order };
    })
    .sort((a, b) => a.order - b.order)
    .map((e) => e.key);
}

/** A copy of a schema without x-* keywords (at every level), which JSON Schema validators and forms ignore or refuse. */
export function withoutHints<T>(value: T, names = false): T {
  if (Array.isArray(value)) return value.map((v) => withoutHints(v)) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  // Keys of `properties` and similar maps are property names, not keywords: an `x-`name stays.
  for (const [k, v] of Object.entries(value)) if (names || !k.startsWith('x-')) out[k] = withoutHints(v, !names && NAME_MAPS.has(k));
  return out as T;
}

const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function humanize(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}

/** The @rjsf schema and uiSchema of a settings schema. */
export function settingsToForm(settings: JsonSchema | undefined, $t: Translate = plainT): SettingsForm {
  const props = ((settings?.['properties'] ?? {}) as Record<string, Prop>) || {};
  const order = propertyOrder(settings);
  const uiSchema: Record<string, unknown> = { 'ui:order': [...order, '*'] };
  const overridable: string[] = [];
  const selectors: SettingsForm['selectors'] = [];
  const schemaProps: Record<string, JsonSchema> = {};
  for (const key of order) {
    const p = props[key] ?? {};
    const clean = withoutHints(p) as Prop;
    if (clean.title === undefined) clean.title = humanize(key);
    const ui: Record<string, unknown> = {};
    const help: string[] = [];
    const kind = typeof p['x-profile-kind'] === 'string' ? p['x-profile-kind'] : undefined;
    if (kind) {
      const options = Array.isArray(p.enum) ? p.enum.filter((v): v is string => typeof v === 'string') : undefined;
      selectors.push({ key, kind, options: p['x-options-unavailable'] ? undefined : options });
      if (p['x-options-unavailable']) {
        delete clean.enum;
        help.push($t('settings.profilesUnavailable', 'Profiles of kind {kind} could not be listed: type a profile id.', { kind }));
      } else if (!options?.length) {
        help.push($t('settings.noProfiles', 'No profile of kind {kind} exists yet.', { kind }));
      } else {
        help.push($t('settings.profileOfKind', 'A profile of kind {kind}.', { kind }));
      }
      const overrides = Array.isArray(p['x-overrides']) ? (p['x-overrides'] as unknown[]).filter((k): k is string => typeof k === 'string') : [];
      if (overrides.length) help.push($t('settings.overrides', 'The profile supplies defaults for: {keys}.', { keys: overrides.join(', ') }));
    }
    if (p['x-profile-overridable'] === true) {
      overridable.push(key);
      help.push($t('settings.overridable', 'Leave blank to use the value of the selected profile.'));
    }
    if (help.length) ui['ui:help'] = help.join(' ');
    if (clean['format'] === 'textarea' || (clean['type'] === 'string' && typeof clean['maxLength'] === 'number' && (clean['maxLength'] as number) > 200)) ui['ui:widget'] = 'textarea';
    if (Object.keys(ui).length) uiSchema[key] = ui;
    schemaProps[key] = clean;
  }
  const rest = withoutHints({ ...(settings ?? {}) }) as JsonSchema;
  const required = Array.isArray(rest['required']) ? (rest['required'] as string[]).filter((k) => !overridable.includes(k)) : undefined;
  const schema: JsonSchema = { ...rest, type: 'object', properties: schemaProps, ...(required ? { required } : {}) };
  return { schema, uiSchema, order, overridable, selectors };
}

/** The form data of a node config (a copy; absent config → {}). */
export function configToFormData(config: Record<string, unknown> | undefined): Record<string, unknown> {
  return structuredClone(config ?? {});
}

/** The node config of submitted form data: undefined values dropped, blank overridable values dropped (the profile decides). */
export function formDataToConfig(data: Record<string, unknown> | undefined, form: Pick<SettingsForm, 'overridable'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data ?? {})) {
    if (v === undefined) continue;
    if (form.overridable.includes(k) && (v === '' || v === null)) continue;
    out[k] = v;
  }
  return out;
}
