/**
 * Module-setting references in node configs: a top-level string value `$setting:<module>/<key>` is
 * replaced at run time, before the handler runs, by the effective value of that module setting, so
 * a flow names "the support address" instead of copying it and follows the setting when an admin
 * changes it. Alternatives separated by `||` are tried in order and the first non-empty one wins;
 * an alternative that is not a reference is a literal:
 * `$setting:assistant/handoff_notify_to || $setting:site/support_email || support@localhost`.
 * A value that does not start with `$setting:` is never touched.
 */

/** Reads one effective module setting (undefined or empty when unset). */
export interface SettingsReaderLike {
  get(module: string, key: string): Promise<unknown>;
}

const PREFIX = '$setting:';
const REF = /^\$setting:([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*)$/;

/** One alternative of a reference chain. */
export type SettingAlternative = { module: string; key: string } | { literal: string };

/** A config key whose value is a reference chain. */
export interface SettingRef {
  key: string;
  alternatives: readonly SettingAlternative[];
}

/** Parses a config value; undefined when it is not a reference (it then stays as it is). */
export function parseSettingRef(value: unknown): SettingAlternative[] | undefined {
  if (typeof value !== 'string' || !value.trimStart().startsWith(PREFIX)) return undefined;
  return value.split('||').map((part): SettingAlternative => {
    const text = part.trim();
    const m = REF.exec(text);
    return m ? { module: m[1], key: m[2] } : { literal: text };
  });
}

/** The reference chains among the top-level values of a config. */
export function settingRefsOf(config: Readonly<Record<string, unknown>>): SettingRef[] {
  const out: SettingRef[] = [];
  for (const key of Object.keys(config)) {
    const alternatives = parseSettingRef(config[key]);
    if (alternatives) out.push({ key, alternatives });
  }
  return out;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/**
 * The value of a chain: the first alternative that is non-empty, or an empty string. Reader
 * failures reject (the step fails, or goes to its Error port), never substitute a later fallback
 * silently: mail meant for the configured address must not go to the default one.
 */
export async function resolveSettingRef(alternatives: readonly SettingAlternative[], reader: SettingsReaderLike): Promise<string> {
  for (const a of alternatives) {
    const text = 'literal' in a ? a.literal : asText(await reader.get(a.module, a.key));
    if (text !== '') return text;
  }
  return '';
}
