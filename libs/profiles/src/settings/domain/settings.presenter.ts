import { MASK_TOKEN, type ModuleSettings } from '@flowplane/contracts';
import type { EffectiveSetting, SettingSource } from './setting-value.resolver';

/** One setting field as an admin sees it: the declaration, the effective value and where it came from. */
export interface AdminSettingView {
  key: string;
  type: string;
  label: string;
  description?: string;
  default?: unknown;
  env_var?: string;
  options?: readonly string[];
  public: boolean;
  sensitive: boolean;
  localized: boolean;
  /** Masked for sensitive fields; an object map locale to text for localized fields; null when unset. */
  value: unknown;
  source: SettingSource;
  /** Localized fields: where each locale's text came from (`stored` marks an override). */
  localeSources?: Record<string, string>;
}

/** A module's settings as an admin sees them. */
export interface AdminModuleSettingsView {
  module: string;
  label?: string;
  /** The locale a plain string for a localized field is taken as. */
  sourceLocale: string;
  fields: AdminSettingView[];
  /** Sensitive fields that have a value (stored, env or default), so a form can show "set". */
  secretsSet: string[];
}

/** Builds the admin view; sensitive values (and defaults) never leave unmasked. */
export function presentModuleSettings(module: ModuleSettings, effective: EffectiveSetting[], sourceLocale: string): AdminModuleSettingsView {
  const fields = effective.map((e): AdminSettingView => {
    const f = e.field;
    const sensitive = f.sensitive === true;
    const view: AdminSettingView = {
      key: f.key,
      type: f.type,
      label: f.label,
      public: f.public === true,
      sensitive,
      localized: f.localized === true,
      value: e.source === 'unset' && !f.localized ? null : sensitive ? MASK_TOKEN : e.value,
      source: e.source,
    };
    if (f.description !== undefined) view.description = f.description;
    if (f.default !== undefined) view.default = sensitive ? MASK_TOKEN : f.default;
    if (f.env_var !== undefined) view.env_var = f.env_var;
    if (f.options !== undefined) view.options = f.options;
    if (e.localeSources) view.localeSources = e.localeSources;
    return view;
  });
  return {
    module: module.module,
    ...(module.label !== undefined ? { label: module.label } : {}),
    sourceLocale,
    fields,
    secretsSet: effective.filter((e) => e.field.sensitive && e.source !== 'unset').map((e) => e.field.key),
  };
}

/** Effective unmasked values for other services (internal route only). */
export function presentInternalValues(module: string, effective: EffectiveSetting[]) {
  return {
    module,
    values: Object.fromEntries(effective.map((e) => [e.field.key, e.source === 'unset' && !e.field.localized ? null : e.value])),
    sources: Object.fromEntries(effective.map((e) => [e.field.key, e.source])),
  };
}
