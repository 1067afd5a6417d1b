import { createFlowplaneClient, FlowplaneApiError, NetworkError, unwrap } from '@flowplane/client';
import { currentToken } from './auth/session';

/** The typed client of the platform, on the console's own origin, with the signed-in token. */
export const api = createFlowplaneClient({ baseUrl: location.origin, token: () => currentToken(), timeoutMs: 30_000 });
export { FlowplaneApiError, NetworkError, unwrap };

/** The caller as `GET /api/v1/auth/me` answers. */
export interface Me {
  sub: string;
  perms: string[];
  active: boolean;
  superuser: boolean;
}

export async function fetchMe(): Promise<Me> {
  return unwrap(await api.gateway.GET('/api/v1/auth/me')) as Me;
}

/** Whether the caller holds every permission (a superuser holds all; an inactive user none). */
export function can(me: Me | undefined, ...perms: string[]): boolean {
  if (!me || !me.active) return false;
  return me.superuser || perms.every((p) => me.perms.includes(p));
}

/** What the admin areas need (README: active user + admin:access). */
export const ADMIN = 'admin:access';

/** Whether an error means the token is no longer accepted. */
export function isUnauthorized(e: unknown): boolean {
  return e instanceof FlowplaneApiError && e.status === 401;
}
