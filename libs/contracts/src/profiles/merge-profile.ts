import type { ProfileKindDeclaration } from './profile-kind';
import { assertSecretEndpointKept, type ProfileRef } from './secret-endpoint';

export * from './secret-endpoint';

/**
 * Profile merge (spec rule 18): a node resolves its profile and merges the profile's values
 * underneath its own config. Pure functions, shared by the profiles service (provenance report) and
 * by every service that runs nodes (through the ProfileResolver).
 */

/** Where a resolved value came from, lowest layer last. */
export type ValueSource = 'node' | 'profile' | 'setting' | 'default';

/** Every value source, highest precedence first. */
export const VALUE_SOURCES: readonly ValueSource[] = ['node', 'profile', 'setting', 'default'];

/** Options of `mergeProfile` and `mergeWithProvenance`. */
export interface MergeOptions {
  /**
   * Keys of fields marked `x-profile-overridable`: a blank node value there (null, or a string of
   * only whitespace) defers to the layers below instead of winning.
   */
  overridable?: ReadonlySet<string>;
  /**
   * The profile being merged. When given, a node value that would send the profile's secret to
   * another endpoint throws `ProfileEndpointOverrideError` (see `assertSecretEndpointKept`).
   */
  profileRef?: ProfileRef;
}

type Values = Readonly<Record<string, unknown>>;

/** Null, undefined, or a string with nothing but whitespace. */
export function isBlankValue(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * Whether a node's value for `key` wins over the profile: it is defined and, for an overridable
 * field, not blank.
 */
export function presentInNode(key: string, value: unknown, overridable?: ReadonlySet<string>): boolean {
  if (value === undefined) return false;
  return overridable === undefined || !overridable.has(key) || !isBlankValue(value);
}

/**
 * The node's effective config: the profile's values underneath, every key present in the node config
 * on top (present = defined and, for overridable fields, non-blank). A blank overridable node value
 * stays when the profile has nothing for that key. Inputs are never modified. With `options.profileRef`,
 * refuses a node value that would redirect the profile's secret.
 */
export function mergeProfile(
  profileValues: Values | undefined,
  nodeConfig: Values | undefined,
  options: MergeOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...profileValues };
  if (!nodeConfig) return out;
  const overridable = options.overridable;
  if (options.profileRef) assertSecretEndpointKept(options.profileRef, profileValues, nodeConfig, { overridable });
  for (const key in nodeConfig) {
    if (!Object.prototype.hasOwnProperty.call(nodeConfig, key)) continue;
    const value = nodeConfig[key];
    if (value === undefined) continue;
    if (presentInNode(key, value, overridable) || out[key] === undefined) out[key] = value;
  }
  return out;
}

/** The layers of a provenance report. */
export interface ProvenanceLayers extends MergeOptions {
  /** The node's own config (top layer). */
  node?: Values;
  /** The stored profile's values; null and undefined count as absent. */
  profile?: Values;
  /**
   * Module-setting values of `setting_ref` fields, only where the setting is actually set (a stored
   * value or its env var); a setting that only has its default belongs in `defaults`.
   */
  settings?: Values;
  /** Field defaults (bottom layer). */
  defaults?: Values;
}

/** Effective values and, per key, the layer that supplied each one. */
export interface Provenance {
  values: Record<string, unknown>;
  sources: Record<string, ValueSource>;
}

/**
 * Like `mergeProfile`, with module settings and defaults below the profile, and a field-level report
 * of who set each value: node over profile over setting over default. Keys no layer sets are absent.
 */
export function mergeWithProvenance(layers: ProvenanceLayers): Provenance {
  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const put = (layer: Values | undefined, source: ValueSource, skip: (v: unknown) => boolean): void => {
    if (!layer) return;
    for (const key in layer) {
      if (!Object.prototype.hasOwnProperty.call(layer, key)) continue;
      const value = layer[key];
      if (skip(value)) continue;
      values[key] = value;
      sources[key] = source;
    }
  };
  put(layers.defaults, 'default', (v) => v === undefined);
  put(layers.settings, 'setting', (v) => v === undefined);
  put(layers.profile, 'profile', (v) => v === undefined || v === null);
  if (layers.node) {
    const overridable = layers.overridable;
    for (const key in layers.node) {
      if (!Object.prototype.hasOwnProperty.call(layers.node, key)) continue;
      const value = layers.node[key];
      if (value === undefined) continue;
      if (presentInNode(key, value, overridable) || values[key] === undefined) {
        values[key] = value;
        sources[key] = 'node';
      }
    }
  }
  return { values, sources };
}

/** Keys of a kind's fields marked overridable (node setting hint `x-profile-overridable`). */
export function overridableKeys(kind: Pick<ProfileKindDeclaration, 'fields'>): Set<string> {
  return new Set(kind.fields.filter((f) => f.overridable).map((f) => f.key));
}
