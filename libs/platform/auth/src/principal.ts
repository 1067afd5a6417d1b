/** The verified caller of a request, built from the bearer token's claims. */
export interface Principal {
  sub: string;
  perms: string[];
  /** Absent in the token means true. */
  active: boolean;
  superuser: boolean;
  /** True for service tokens: `sub: svc:<caller>`, audience `svc:<this service>`, signed with the service secret. */
  service: boolean;
  /** Audiences of an internal token (`svc:profiles`, `node:crm/lookup`); absent on user tokens. */
  audience?: string[];
  /**
   * The node type of a remote node step token (`sub: run:<runId>/<nodeId>`, audience `node:<type>`):
   * it identifies one run step to that node's handler and opens nothing else.
   */
  node?: string;
}

/** Prefix of service token subjects and audiences (`svc:flow-runtime`). */
export const SERVICE_PREFIX = 'svc:';
/** Prefix of node step token audiences (`node:crm/lookup`). */
export const NODE_PREFIX = 'node:';
/** Prefix of node step token subjects (`run:<runId>/<nodeId>`). */
export const RUN_PREFIX = 'run:';

/** The audiences of a claim set as a list (`aud` may be a string or an array). */
export function audiencesOf(claims: Record<string, unknown>): string[] {
  const aud = claims.aud;
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return [];
}

/** True when the claims are those of an internal token (service or node step), judged by audience. */
export function isInternalAudience(audiences: readonly string[]): boolean {
  return audiences.some((a) => a.startsWith(SERVICE_PREFIX) || a.startsWith(NODE_PREFIX));
}

/**
 * Builds a principal from verified JWT claims, rejecting malformed claim types. `internal` is set
 * only when the token was verified as an internal token (service secret, internal audience): only
 * then may it be a service or a node step.
 */
export function principalFromClaims(claims: Record<string, unknown>, internal = false): Principal {
  const sub = claims.sub;
  if (typeof sub !== 'string' || !sub) throw new Error('token has no subject');
  const perms = claims.perms ?? [];
  if (!Array.isArray(perms) || perms.some((p) => typeof p !== 'string')) throw new Error('perms must be an array of strings');
  if (claims.active !== undefined && typeof claims.active !== 'boolean') throw new Error('active must be a boolean');
  if (claims.superuser !== undefined && typeof claims.superuser !== 'boolean') throw new Error('superuser must be a boolean');
  const principal: Principal = {
    sub,
    perms: perms as string[],
    active: claims.active !== false,
    superuser: claims.superuser === true,
    service: false,
  };
  if (!internal) return principal;
  const audience = audiencesOf(claims);
  principal.audience = audience;
  // An internal token never carries user powers.
  principal.superuser = false;
  const nodes = audience.filter((a) => a.startsWith(NODE_PREFIX));
  if (nodes.length) {
    if (!sub.startsWith(RUN_PREFIX) || nodes.length !== 1 || audience.length !== 1) throw new Error('a node step token has subject run:<runId>/<nodeId> and one node audience');
    principal.node = nodes[0].slice(NODE_PREFIX.length);
    principal.perms = [];
    return principal;
  }
  if (!sub.startsWith(SERVICE_PREFIX)) throw new Error('a service token has subject svc:<name>');
  principal.service = true;
  return principal;
}
