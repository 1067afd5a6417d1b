import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from './flow-document';
import { escapePointerToken } from './json-pointer.util';
import { schemaIssues } from './schema-issues.mapper';
import { createSettingsAjv } from './settings-schema.ajv';
import { hasOwn, isRecord } from './value.util';

/** One config value a node's settings schema refuses. */
export interface SettingsProblem {
  /** The top-level config key the problem is under (empty when it concerns the whole config). */
  key: string;
  /** JSON pointer inside the config (`/baseURL`, `/headers/X-Id`). */
  path: string;
  /** Why, in the words of the schema (`must match format "uri"`, `missing required field "eventName"`). */
  message: string;
}

export interface SettingsCheckOptions {
  /**
   * Keys a selected profile supplies: when missing from the config they are not reported as
   * required (the profile is merged in at run time, where the merged config is checked).
   */
  profileSupplied?: ReadonlySet<string>;
}

// Settings schemas of remote nodes are written by other services and may carry keywords of their
// own: validation is not strict (a schema's own strictness is checked where it is registered).
let ajv: Ajv2020 | undefined;
/** Compiled validators per settings schema object, that is per registered node type (a re-registered node brings a new object). */
const compiled = new WeakMap<object, ValidateFunction | null>();

function validatorOf(schema: JsonSchema): ValidateFunction | undefined {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  ajv ??= createSettingsAjv({ strict: false });
  let fn: ValidateFunction | null = null;
  try {
    // A node registered again may keep its `$id`: the newer schema replaces the older one.
    if (typeof schema.$id === 'string') ajv.removeSchema(schema.$id);
    fn = ajv.compile(schema);
  } catch {
    // A schema ajv cannot compile is refused when the node registers; nothing can be checked here.
    fn = null;
  }
  compiled.set(schema, fn);
  return fn ?? undefined;
}

/** Blank means "not set": editors send empty strings for untouched fields, and null clears a value. */
export function isBlankSetting(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * Checks a node config against its settings schema (JSON Schema 2020-12, formats included) and
 * returns every problem with its JSON pointer inside the config. Blank values count as unset, and
 * keys the schema does not declare are left out (the engine drops them, with a warning), so only
 * what the node would really receive is judged. Never throws.
 */
export function settingsProblems(schema: JsonSchema | undefined, config: Readonly<Record<string, unknown>> | undefined, options: SettingsCheckOptions = {}): SettingsProblem[] {
  if (!isRecord(schema)) return [];
  const validate = validatorOf(schema);
  if (!validate) return [];
  const declared = isRecord(schema.properties) ? schema.properties : undefined;
  const open = !declared || schema.additionalProperties === true || isRecord(schema.additionalProperties);
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config ?? {})) {
    if (isBlankSetting(value)) continue;
    if (!open && !hasOwn(declared, key)) continue;
    data[key] = value;
  }
  if (validate(data)) return [];
  const supplied = options.profileSupplied;
  const out: SettingsProblem[] = [];
  for (const issue of schemaIssues(validate.errors)) {
    const key = issue.path.split('/')[1] ?? '';
    const top = key.replace(/~1/g, '/').replace(/~0/g, '~');
    if (supplied?.has(top) && issue.path === `/${escapePointerToken(top)}` && issue.code === 'MISSING_FIELD') continue;
    out.push({ key: top, path: issue.path, message: issue.message });
  }
  return out;
}
