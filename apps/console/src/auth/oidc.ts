import type { ConsoleConfig } from '../config';
import { setToken } from './session';

/**
 * OpenID Connect sign-in (authorization code with PKCE through oidc-client-ts, loaded only when the
 * platform configured an issuer). The access token becomes the console's bearer token; the gateway
 * verifies it against AUTH_JWKS_URL like any other user token.
 */
type Oidc = NonNullable<ConsoleConfig['oidc']>;

export const CALLBACK_PATH = 'signin-callback';

async function manager(oidc: Oidc) {
  const { UserManager, WebStorageStateStore } = await import('oidc-client-ts');
  const base = `${location.origin}${import.meta.env.BASE_URL}`;
  return new UserManager({
    authority: oidc.issuer,
    client_id: oidc.clientId,
    redirect_uri: `${base}${CALLBACK_PATH}`,
    post_logout_redirect_uri: base,
    response_type: 'code',
    scope: oidc.scope,
    userStore: new WebStorageStateStore({ store: sessionStorage }),
  });
}

export async function signInRedirect(oidc: Oidc): Promise<void> {
  await (await manager(oidc)).signinRedirect({ state: location.pathname });
}

/** Completes the redirect back from the issuer; answers the path to return to. */
export async function completeSignIn(oidc: Oidc): Promise<string> {
  const user = await (await manager(oidc)).signinRedirectCallback();
  setToken(user.access_token);
  return typeof user.state === 'string' && user.state.startsWith(import.meta.env.BASE_URL) ? user.state : import.meta.env.BASE_URL;
}
