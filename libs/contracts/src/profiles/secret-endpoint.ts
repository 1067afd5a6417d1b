import { DECLARED_MODULE_SETTINGS } from '../settings/module-settings';
import type { ModuleSettings, SettingField } from '../settings/setting-field';
import type { ProfileKindDeclaration } from './profile-kind';
import { DECLARED_PROFILE_KINDS } from './profile-kinds';

/**
 * A profile's secret is only ever sent to the endpoint stored with it. Anyone who may edit a flow
 * (or a module's flat settings) but not read a profile could otherwise select the profile and point
 * its endpoint at their own host to receive the key. Every consumer of a profile checks this rule
 * here: the flow engine's merge, the LLM client, and flow version save and publish.
 */

/** Where a profile lives. */
export interface ProfileRef {
  readonly module: string;
  readonly kind: string;
  readonly profileId: string;
}

/** The fields of a kind this rule looks at. */
export interface SecretEndpointFields {
  /** Fields whose values are secrets (declared sensitive, inherited sensitive, or of type secret). */
  readonly sensitive: readonly string[];
  /** Fields that say where those secrets go (`endpoint: true`). */
  readonly endpoint: readonly string[];
}

/** How an overlay combines with the profile. */
export interface EndpointOverrideOptions {
  /**
   * `node` (default): a value present in the overlay wins (spec rule 18), so any present endpoint
   * value is an override. `module`: the profile wins where it has a value (rule 19), so the overlay
   * overrides only where the profile's endpoint field is blank.
   */
  precedence?: 'node' | 'module';
  /** Keys whose blank overlay value defers to the profile (`x-profile-overridable`). */
  overridable?: ReadonlySet<string>;
}

function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function settingOf(ref: string, settings: readonly ModuleSettings[]): SettingField | undefined {
  const slash = ref.indexOf('/');
  const at = slash >= 0 ? slash : ref.indexOf('.');
  if (at <= 0) return undefined;
  const module = ref.slice(0, at);
  const key = ref.slice(at + 1);
  return settings.find((m) => m.module === module)?.fields.find((f) => f.key === key);
}

/** The sensitive and endpoint fields of a kind declaration (`setting_ref` inheritance applied). */
export function secretEndpointFieldsOf(
  kind: Pick<ProfileKindDeclaration, 'fields'>,
  settings: readonly ModuleSettings[] = DECLARED_MODULE_SETTINGS,
): SecretEndpointFields {
  const sensitive: string[] = [];
  const endpoint: string[] = [];
  for (const f of kind.fields) {
    const inherited = f.setting_ref ? settingOf(f.setting_ref, settings) : undefined;
    const type = f.type ?? inherited?.type;
    if ((f.sensitive ?? inherited?.sensitive) === true || type === 'secret') sensitive.push(f.key);
    if (f.endpoint === true) endpoint.push(f.key);
  }
  return { sensitive, endpoint };
}

let declared: Map<string, SecretEndpointFields> | undefined;

/** The rule's fields of a declared kind (module and kind id), or undefined for an undeclared kind. */
export function declaredSecretEndpointFields(module: string, kind: string): SecretEndpointFields | undefined {
  declared ??= new Map(DECLARED_PROFILE_KINDS.map((k) => [`${k.module}\u0000${k.id}`, secretEndpointFieldsOf(k)]));
  return declared.get(`${module}\u0000${kind}`);
}

/** Keys of every field any declared kind marks sensitive (for example `apiKey`), with their kinds. */
export function declaredSensitiveProfileKeys(): ReadonlyMap<string, readonly ProfileKindDeclaration[]> {
  const out = new Map<string, ProfileKindDeclaration[]>();
  for (const k of DECLARED_PROFILE_KINDS) {
    for (const key of secretEndpointFieldsOf(k).sensitive) out.set(key, [...(out.get(key) ?? []), k]);
  }
  return out;
}

/** The sensitive keys that hold a value in `values`. */
export function secretsHeld(fields: SecretEndpointFields, values: Readonly<Record<string, unknown>> | undefined): string[] {
  if (!values) return [];
  return fields.sensitive.filter((key) => !blank(values[key]));
}

/**
 * Endpoint keys that `overlay` would change for a profile holding a secret: with node precedence,
 * every endpoint key the overlay sets (defined, and non-blank where overridable); with module
 * precedence, every non-blank overlay value where the profile's own is blank. Empty when the profile
 * holds no secret.
 */
export function endpointOverrides(
  fields: SecretEndpointFields,
  profileValues: Readonly<Record<string, unknown>> | undefined,
  overlay: Readonly<Record<string, unknown>> | undefined,
  options: EndpointOverrideOptions = {},
): string[] {
  if (!overlay || fields.endpoint.length === 0 || secretsHeld(fields, profileValues).length === 0) return [];
  const overridable = options.overridable;
  return fields.endpoint.filter((key) => {
    const value = overlay[key];
    if (value === undefined) return false;
    if (options.precedence === 'module') return !blank(value) && blank(profileValues?.[key]);
    return overridable === undefined || !overridable.has(key) || !blank(value);
  });
}

/**
 * A consumer tried to send a profile's secret somewhere other than the profile's own endpoint.
 * Maps to 400 in the services' error filter; in a run, the step fails with this code.
 */
export class ProfileEndpointOverrideError extends Error {
  readonly code = 'PROFILE_ENDPOINT_OVERRIDE';
  readonly status = 400;
  readonly expose = true;

  constructor(
    readonly profile: ProfileRef,
    /** The endpoint keys that were overridden. */
    readonly keys: readonly string[],
    /** The sensitive keys the profile holds (names only). */
    readonly secrets: readonly string[],
  ) {
    super(endpointOverrideMessage(profile, keys, secrets));
    this.name = 'ProfileEndpointOverrideError';
  }
}

/** The explanation shared by the run-time error and the save and publish refusals. */
export function endpointOverrideMessage(profile: ProfileRef, keys: readonly string[], secrets: readonly string[]): string {
  const them = keys.length === 1 ? 'it' : 'them';
  return (
    `profile ${profile.module}/${profile.kind}/${profile.profileId} holds a secret (${secrets.join(', ')}) that is only sent to the ` +
    `endpoint stored with the profile, so ${keys.join(' and ')} may not be overridden: leave ${them} blank, ` +
    `or select a profile without a secret`
  );
}

/**
 * Throws `ProfileEndpointOverrideError` when `overlay` would send the secret of the profile at `ref`
 * to another endpoint. Kinds that declare no sensitive or no endpoint field are never refused.
 */
export function assertSecretEndpointKept(
  ref: ProfileRef,
  profileValues: Readonly<Record<string, unknown>> | undefined,
  overlay: Readonly<Record<string, unknown>> | undefined,
  options: EndpointOverrideOptions = {},
): void {
  const fields = declaredSecretEndpointFields(ref.module, ref.kind);
  if (!fields) return;
  const keys = endpointOverrides(fields, profileValues, overlay, options);
  if (keys.length) throw new ProfileEndpointOverrideError(ref, keys, secretsHeld(fields, profileValues));
}
