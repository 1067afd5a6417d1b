/**
 * What the console learns from the platform before it draws anything: `GET /console/config.json`
 * (public, no secrets), which the gateway answers from its environment — `oidc` present when
 * CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID are set. Without it (a 404, the Vite dev server,
 * an answer that is not JSON) the console offers the development sign-in.
 */
export interface ConsoleConfig {
  oidc?: {
    issuer: string;
    clientId: string;
    /** The token claim holding the permissions (default `perms`). */
    permissionsClaim: string;
    scope: string;
  };
}

export async function loadConfig(fetchImpl: typeof fetch = fetch): Promise<ConsoleConfig> {
  try {
    const res = await fetchImpl(`${import.meta.env.BASE_URL}config.json`, { headers: { accept: 'application/json' } });
    if (!res.ok) return {};
    const body = (await res.json()) as { oidc?: Partial<NonNullable<ConsoleConfig['oidc']>> };
    const o = body?.oidc;
    if (!o || typeof o.issuer !== 'string' || !o.issuer || typeof o.clientId !== 'string' || !o.clientId) return {};
    return { oidc: { issuer: o.issuer, clientId: o.clientId, permissionsClaim: typeof o.permissionsClaim === 'string' && o.permissionsClaim ? o.permissionsClaim : 'perms', scope: typeof o.scope === 'string' && o.scope ? o.scope : 'openid profile' } };
  } catch {
    return {};
  }
}
