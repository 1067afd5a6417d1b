/** Where a profile lives: (module, kind, id). */
export interface ProfileAddress {
  module: string;
  kind: string;
  profileId: string;
}

/** A stored profile, as the repository returns it (unmasked). */
export interface Profile extends ProfileAddress {
  /** Storage id; the address is the public identity. */
  id: string;
  name: string;
  description?: string;
  /** Values by field key, sensitive ones included as stored. */
  config: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** `module/kind/id`, for messages and event keys. */
export function addressKey(a: ProfileAddress): string {
  return `${a.module}/${a.kind}/${a.profileId}`;
}

/** Profile ids travel in URL paths: letters, digits, `.`, `_` and `-`, at most 128, starting with a letter or digit. */
export const PROFILE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
