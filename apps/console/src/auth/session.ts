/**
 * The console's bearer token: kept in sessionStorage (gone when the tab closes), given by the
 * development sign-in (pasted, or `#token=<jwt>` on first load, which is then removed from the
 * address bar) or by the OpenID Connect sign-in.
 */

const KEY = 'flowplane.console.token';
const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

export function currentToken(): string | undefined {
  return storage()?.getItem(KEY) ?? undefined;
}

export function setToken(token: string | undefined): void {
  const s = storage();
  if (token) s?.setItem(KEY, token);
  else s?.removeItem(KEY);
  for (const l of listeners) l();
}

/** Calls `listener` whenever the token changes; answers the unsubscribe. */
export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Takes `#token=<jwt>` from the address (first load of a link such as
 * `http://localhost:8080/console/#token=$TOKEN`), keeps it and removes it from the address bar and
 * the history entry, so it is neither bookmarked nor sent on.
 */
export function takeTokenFromHash(loc: Location = location, hist: History = history): boolean {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ''));
  const token = params.get('token');
  if (!token) return false;
  params.delete('token');
  const rest = params.toString();
  hist.replaceState(hist.state, '', `${loc.pathname}${loc.search}${rest ? `#${rest}` : ''}`);
  setToken(token.trim());
  return true;
}
