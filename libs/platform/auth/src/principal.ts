/** The verified caller of a request, built from the bearer token's claims. */
export interface Principal {
  sub: string;
  perms: string[];
  /** Absent in the token means true. */
  active: boolean;
  superuser: boolean;
  /** True for service tokens (`sub: svc:<name>` with perm `internal`). */
  service: boolean;
}

/** The permission carried by service tokens and required by `/internal/*` routes. */
export const INTERNAL_PERM = 'internal';

/** Builds a principal from verified JWT claims, rejecting malformed claim types. */
export function principalFromClaims(claims: Record<string, unknown>): Principal {
  const sub = claims.sub;
  if (typeof sub !== 'string' || !sub) throw new Error('token has no subject');
  const perms = claims.perms ?? [];
  if (!Array.isArray(perms) || perms.some((p) => typeof p !== 'string')) throw new Error('perms must be an array of strings');
  if (claims.active !== undefined && typeof claims.active !== 'boolean') throw new Error('active must be a boolean');
  if (claims.superuser !== undefined && typeof claims.superuser !== 'boolean') throw new Error('superuser must be a boolean');
  return {
    sub,
    perms: perms as string[],
    active: claims.active !== false,
    superuser: claims.superuser === true,
    service: sub.startsWith('svc:') && (perms as string[]).includes(INTERNAL_PERM),
  };
}
