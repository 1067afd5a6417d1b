import { MASK_TOKEN } from '@flowplane/contracts';
import type { FieldProblem } from '@flowplane/platform/http';
import type { LiveOptions } from '../kinds/live-options.client';
import { liveSourceOf, type ResolvedField, type ResolvedKind } from '../kinds/profile-kind.model';

/** How incoming values combine with the stored ones. */
export type ConfigWriteMode =
  /** The incoming config is the whole config (create, upsert): stored keys it omits are dropped. */
  | 'replace'
  /** The incoming config is a patch (update, duplicate patches): stored keys it omits are kept. */
  | 'merge';

export interface ConfigWriteInput {
  kind: ResolvedKind;
  /** What is stored now (`{}` for a new profile); the mask token keeps a sensitive value from here. */
  stored: Readonly<Record<string, unknown>>;
  incoming: Readonly<Record<string, unknown>>;
  mode: ConfigWriteMode;
  /** Live options of fields with an `options_ref`, by field key; a missing or unavailable entry skips the membership check. */
  live?: ReadonlyMap<string, LiveOptions>;
  /** Prefix of the field names in problems (`config`, `configPatches`). */
  path?: string;
}

export interface ConfigWriteResult {
  config: Record<string, unknown>;
  /** Every failing field, in the platform validation pipe's shape. */
  problems: FieldProblem[];
}

const MASK_CHAR = MASK_TOKEN[0];
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+/i;

/**
 * Applies a config write to the stored config and validates the result against the kind.
 *
 * - A key that is not a field of the kind is refused.
 * - The mask token on a sensitive field keeps the stored value (rule 20); on any other field it is
 *   an ordinary value. Any other value with the mask character on a sensitive field is refused (a
 *   partial mask would be stored as the secret).
 * - Changing an endpoint field (provider, base URL) while keeping a stored secret is refused: the
 *   secret must be re-entered or cleared.
 * - A url field must not carry credentials (`https://user:pass@host`).
 * - An empty string (or null) clears the field.
 * - Values must fit the field type: strings for string, textarea, secret and url (an absolute URL);
 *   numbers, or strings that parse as a decimal number, for number (stored as a number); true or
 *   false for boolean; anything for json.
 * - Inline options, else the live options of `options_ref`, bound the value. When the live source is
 *   unavailable the membership check is skipped: the owner of the list being down must not block
 *   profile edits, and the runtime still refuses an unknown provider when the profile is used.
 * - A required field without a value (and without a declared default) is refused.
 */
export function applyConfigWrite(input: ConfigWriteInput): ConfigWriteResult {
  const { kind, stored, incoming, mode, live } = input;
  const path = input.path ?? 'config';
  const config: Record<string, unknown> = mode === 'merge' ? { ...stored } : {};
  const problems = new Map<string, string[]>();
  const fail = (key: string, problem: string) => {
    const name = `${path}.${key}`;
    problems.set(name, [...(problems.get(name) ?? []), problem]);
  };

  for (const [key, value] of Object.entries(incoming)) {
    const field = kind.fieldMap.get(key);
    if (!field) {
      fail(key, `${key} is not a field of kind ${kind.id}`);
      continue;
    }
    if (field.sensitive && value === MASK_TOKEN) {
      if (stored[key] !== undefined) config[key] = stored[key];
      else delete config[key];
      continue;
    }
    if (field.sensitive && typeof value === 'string' && value.includes(MASK_CHAR)) {
      // A truncated or padded mask (a UI that trimmed it, a copy of part of it) would otherwise be
      // stored as the secret and sent to the provider.
      fail(key, `${key} contains the mask character \u2022 but is not the mask token (exactly eight of them): send the mask token to keep the stored value, a new value to replace it, or an empty string to clear it`);
      continue;
    }
    if (value === '' || value === null || value === undefined) {
      delete config[key];
      continue;
    }
    const checked = checkValue(field, value, live?.get(key));
    if ('problems' in checked) {
      for (const p of checked.problems) fail(key, p);
      delete config[key];
    } else {
      config[key] = checked.value;
    }
  }

  for (const field of kind.fields) {
    if (!field.required || config[field.key] !== undefined || field.default !== undefined) continue;
    if (!problems.has(`${path}.${field.key}`)) fail(field.key, `${field.key} is required`);
  }

  // An endpoint value that was itself refused is reported once, not again as a change.
  const refused = (key: string) => problems.has(`${path}.${key}`);
  requireSecretsReentered(kind, stored, incoming, mode, config, refused, fail);

  return { config, problems: [...problems].map(([field, list]) => ({ field, problems: list })) };
}

/**
 * A secret is only ever sent to the endpoint stored with it, so changing an endpoint field
 * (provider, base URL) while keeping a stored secret (the mask token sent back, or the key left out
 * of a patch) is refused: whoever redirects the endpoint must know the secret, or clear it.
 */
function requireSecretsReentered(
  kind: ResolvedKind,
  stored: Readonly<Record<string, unknown>>,
  incoming: Readonly<Record<string, unknown>>,
  mode: ConfigWriteMode,
  config: Readonly<Record<string, unknown>>,
  refused: (key: string) => boolean,
  fail: (key: string, problem: string) => void,
): void {
  const changed = kind.fields
    .filter((f) => f.endpoint && !refused(f.key) && !sameValue(stored[f.key], config[f.key]))
    .map((f) => f.key);
  if (changed.length === 0) return;
  for (const field of kind.fields) {
    if (!field.sensitive || isUnset(stored[field.key])) continue;
    const has = Object.prototype.hasOwnProperty.call(incoming, field.key);
    const kept = has ? incoming[field.key] === MASK_TOKEN : mode === 'merge';
    if (!kept) continue;
    fail(
      field.key,
      `${field.key} must be re-entered when ${changed.join(' or ')} changes: the stored secret is only sent to the endpoint it was stored with; send the secret again, or an empty string to clear it`,
    );
  }
}

function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function sameValue(a: unknown, b: unknown): boolean {
  if (isUnset(a) && isUnset(b)) return true;
  return typeof a === 'string' && typeof b === 'string' ? a.trim() === b.trim() : a === b;
}

function checkValue(
  field: ResolvedField,
  value: unknown,
  live: LiveOptions | undefined,
): { value: unknown } | { problems: string[] } {
  const key = field.key;
  let normalized: unknown = value;
  switch (field.type) {
    case 'string':
    case 'textarea':
    case 'secret':
      if (typeof value !== 'string') return { problems: [`${key} must be a string`] };
      break;
    case 'url':
      if (typeof value !== 'string' || !isAbsoluteUrl(value))
        return { problems: [`${key} must be an absolute URL (for example https://api.example.com/v1)`] };
      if (hasCredentials(value))
        return { problems: [`${key} must not contain credentials (user:password@): put a key in a sensitive field of the profile instead`] };
      break;
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) break;
      if (typeof value === 'string' && DECIMAL.test(value.trim())) {
        normalized = Number(value.trim());
        break;
      }
      return { problems: [`${key} must be a number`] };
    case 'boolean':
      if (typeof value !== 'boolean') return { problems: [`${key} must be true or false`] };
      break;
    case 'json':
      break;
  }
  const allowed = field.options ?? (liveSourceOf(field) && live?.available ? live.options : undefined);
  if (allowed && !allowed.includes(String(normalized))) {
    return { problems: [`${key} must be one of: ${allowed.join(', ') || '(no options are registered)'}`] };
  }
  return { value: normalized };
}

function hasCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

function isAbsoluteUrl(value: string): boolean {
  if (!ABSOLUTE_URL.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
