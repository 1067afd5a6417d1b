/**
 * The permissions an identity provider put in a claim of a token (`perms`, or a dotted path such as
 * `realm_access.roles`): an array of strings, or one string separated by spaces or commas. Display
 * only: what the caller may do is always the gateway's answer (`GET /api/v1/auth/me`).
 */
export function permissionsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claim.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), claims);
  if (Array.isArray(value)) return value.filter((p): p is string => typeof p === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/** The claims of a JWT, read without verifying it (the gateway verifies; this is for display). */
export function decodeClaims(token: string): Record<string, unknown> | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
