import type { FieldType } from '../settings/setting-field';

/**
 * Profile kinds (spec: assistant-deployments-profiles.md "Profile kind and profile"). A module declares
 * its kinds here, in contracts; the profiles service registers every declared kind.
 */

/** The literal mask token: eight U+2022 bullets. Sent back on a write, it keeps the stored value. */
export const MASK_TOKEN = '\u2022'.repeat(8);

/** Live option sources a kind field may reference through `options_ref`. */
export type OptionSource = 'llm.providers' | 'guard.guards';

/** One field of a profile kind, as declared (before `setting_ref` inheritance). */
export interface ProfileFieldDeclaration {
  key: string;
  label?: string;
  type?: FieldType;
  required?: boolean;
  /** Name of a live option source; `options` wins when both are given. */
  options_ref?: OptionSource;
  options?: readonly string[];
  sensitive?: boolean;
  description?: string;
  default?: unknown;
  env_var?: string;
  /**
   * `<module>/<key>` or `<module>.<key>`: inherit label, description, type, sensitive, env_var,
   * default and options from that module setting field; keys given inline here win.
   */
  setting_ref?: string;
  /** A blank value in a node's config defers to the profile (node setting hint `x-profile-overridable`). */
  overridable?: boolean;
  /**
   * Says where the kind's secrets are sent (a provider, a base URL). While a profile holds a secret,
   * nothing may override such a field (a node, a module's flat settings), and changing it on the
   * profile requires re-entering the secrets: a secret only ever goes to the endpoint stored with it.
   */
  endpoint?: boolean;
}

/** A profile kind as declared by its owner module. */
export interface ProfileKindDeclaration {
  id: string;
  /** Owner module; profiles of this kind are addressed by (module, kind, id). */
  module: string;
  name: string;
  description?: string;
  icon?: string;
  fields: readonly ProfileFieldDeclaration[];
}
