import { isBlankSetting, settingsProblems, type SettingsProblem } from '@flowplane/flow/ir';
import { interpretConfig, overridableKeys, profileSelectors, settingsDefaults, type ProfileKindModuleLookup } from './config-interpreter';
import type { SettingsSchema } from './node-manifest';

/**
 * Node configs checked against their settings schemas (JSON Schema, formats included), at the
 * three moments a config can go wrong:
 *
 * - a version is saved and published: `staticConfigProblems` judges the stored config as the engine
 *   will read it (interpreted by value kind, unknown keys dropped, defaults filled, blanks unset);
 *   a required key a selected profile may supply is not asked for, since the profile is merged
 *   only at run time;
 * - a step runs: `mergedConfigProblems` judges the config with the profiles merged in, which is
 *   where a profile's own values (an endpoint that is no URL, a model missing everywhere) show.
 */

/** Problems of a stored node config (save and publish). */
export function staticConfigProblems(
  schema: SettingsSchema | undefined,
  raw: Readonly<Record<string, unknown>> | undefined,
  kindModule?: ProfileKindModuleLookup,
): SettingsProblem[] {
  if (!schema) return [];
  const config = interpretConfig(schema, raw ?? {}).config;
  for (const [key, value] of Object.entries(settingsDefaults(schema))) if (config[key] === undefined) config[key] = value;
  const selectors = profileSelectors(schema, kindModule);
  const selected = selectors.some((s) => !isBlankSetting(config[s.key]));
  const supplied = selected ? new Set([...overridableKeys(schema), ...selectors.flatMap((s) => s.overrides)]) : undefined;
  return settingsProblems(schema, config, { profileSupplied: supplied });
}

/** Problems of the config a step runs with (own values over the merged profiles over defaults). */
export function mergedConfigProblems(schema: SettingsSchema | undefined, merged: Readonly<Record<string, unknown>>): SettingsProblem[] {
  return schema ? settingsProblems(schema, merged) : [];
}

/**
 * Values a document being saved spells with the wrong JSON type where the schema declares only
 * `boolean`: `"true"` in quotes is a string. The engine would read it as true, but everything else
 * that reads the stored document (the assistant's streaming capability, exports, other tools)
 * sees a string, so a new version must say what it means. Versions stored before keep running and
 * publishing as the engine reads them.
 */
export function storedTypeProblems(schema: SettingsSchema | undefined, raw: Readonly<Record<string, unknown>> | undefined): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    const value = raw?.[key];
    // Other strings do not convert at all, and settingsProblems already reports them.
    if (prop?.type === 'boolean' && typeof value === 'string' && ['true', 'false'].includes(value.trim().toLowerCase())) {
      out.push({ key, path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: `must be a boolean (true or false without quotes), got the string ${JSON.stringify(value)}` });
    }
  }
  return out;
}
