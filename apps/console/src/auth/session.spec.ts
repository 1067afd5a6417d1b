import { currentToken, onTokenChange, setToken, takeTokenFromHash } from './session';

/** sessionStorage, location and history stand-ins: Jest runs these specs in Node. */
function browser(hash: string) {
  const store = new Map<string, string>();
  (globalThis as unknown as { sessionStorage: unknown }).sessionStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  };
  const replaced: string[] = [];
  const loc = { hash, pathname: '/console/flows/a', search: '?q=1' } as Location;
  const hist = { state: null, replaceState: (_s: unknown, _t: string, url: string) => void replaced.push(url) } as unknown as History;
  return { store, replaced, loc, hist };
}

describe('console session token', () => {
  afterEach(() => delete (globalThis as { sessionStorage?: unknown }).sessionStorage);

  it('takes #token= from the address, keeps it in sessionStorage and removes it from the address bar', () => {
    const b = browser('#token=abc.def.ghi');
    const seen: string[] = [];
    const off = onTokenChange(() => seen.push(currentToken() ?? ''));
    expect(takeTokenFromHash(b.loc, b.hist)).toBe(true);
    off();
    expect(b.store.get('flowplane.console.token')).toBe('abc.def.ghi');
    expect(b.replaced).toEqual(['/console/flows/a?q=1']);
    expect(seen).toEqual(['abc.def.ghi']);
  });

  it('keeps other hash parameters and leaves an address without a token alone', () => {
    const b = browser('#token=t.u.v&x=1');
    takeTokenFromHash(b.loc, b.hist);
    expect(b.replaced).toEqual(['/console/flows/a?q=1#x=1']);
    const c = browser('#x=1');
    expect(takeTokenFromHash(c.loc, c.hist)).toBe(false);
    expect(c.replaced).toEqual([]);
    expect(currentToken()).toBeUndefined();
  });

  it('signs out by clearing the token', () => {
    browser('');
    setToken('a.b.c');
    expect(currentToken()).toBe('a.b.c');
    setToken(undefined);
    expect(currentToken()).toBeUndefined();
  });
});
