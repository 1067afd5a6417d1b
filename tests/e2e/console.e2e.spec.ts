import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv, token } from '../support/http';

const ROOT = resolve(__dirname, '../..');
const ISSUER = 'https://id.example.com/realms/main';

/** The CSP as a map of directive to its sources. */
function directives(csp: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

/**
 * The admin console through the gateway of a whole platform built by tools/build.mjs: the page and
 * its hashed assets (caching), the SPA fallback, config.json from CONSOLE_OIDC_*, and the CSP: no
 * inline or eval'd script anywhere, the issuer reachable from the console's pages only.
 */
describe('admin console through the gateway', () => {
  let platform: Standalone;
  let base: string;
  let assets: string[];

  beforeAll(async () => {
    // The console comes from the build (npm start and npm test run it first); a direct jest run builds it here.
    execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
    assets = [...readFileSync(join(ROOT, 'dist/console/index.html'), 'utf8').matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    platform = await startStandalone({ env: testEnv({ CONSOLE_OIDC_ISSUER: ISSUER, CONSOLE_OIDC_CLIENT_ID: 'flowplane-console', CONSOLE_OIDC_PERMS_CLAIM: 'realm_access.roles' }) });
    base = platform.url;
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('serves the built page at /console/ (no-cache, ETag, 304) with the platform headers, and its eager assets as immutable', async () => {
    const page = await fetch(`${base}/console/`);
    expect([page.status, page.headers.get('content-type'), page.headers.get('cache-control')]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
    expect(page.headers.get('x-request-id')).toMatch(/\S/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    // No inline script: the platform's CSP would refuse it.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect((await fetch(`${base}/console/`, { headers: { 'if-none-match': page.headers.get('etag')! } })).status).toBe(304);
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) {
      const res = await fetch(`${base}${a}`, { headers: { 'accept-encoding': 'gzip' } });
      expect([a, res.status, res.headers.get('cache-control')]).toEqual([a, 200, 'public, max-age=31536000, immutable']);
      // Sent gzipped (the request takes gzip): the initial route's budget is counted gzipped.
      if ((await res.arrayBuffer()).byteLength > 1024) expect([a, res.headers.get('content-encoding')]).toEqual([a, 'gzip']);
    }
  });

  it("serves React's production build, whatever NODE_ENV the build ran under (Jest's is test)", async () => {
    const scripts = await Promise.all(assets.filter((a) => a.endsWith('.js')).map(async (a) => (await fetch(`${base}${a}`)).text()));
    expect(scripts.join('\n')).toContain('react.transitional.element');
    // The development build greets the developer and checks keys at run time; the production one does neither.
    expect(scripts.join('\n')).not.toMatch(/Download the React DevTools|Each child in a list should have a unique/);
  });

  it('answers deep links with the page, a missing asset with 404, /console with 308, writes with 405', async () => {
    const deep = await fetch(`${base}/console/flows/hello/versions`);
    expect([deep.status, deep.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const missing = await call(`${base}/console/assets/gone-0000.js`);
    expect([missing.status, missing.body.code]).toEqual([404, 'NOT_FOUND']);
    const bare = await fetch(`${base}/console`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/console/']);
    const post = await call(`${base}/console/flows`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), post.body.code, post.body.error]).toEqual([405, 'GET, HEAD', 'METHOD_NOT_ALLOWED', 'Method Not Allowed']);
    expect(post.body.requestId).toBe(post.headers.get('x-request-id'));
  });

  it('serves config.json from CONSOLE_OIDC_* without a token', async () => {
    const res = await call(`${base}/console/config.json`);
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-cache']);
    expect(res.body).toEqual({ oidc: { issuer: ISSUER, clientId: 'flowplane-console', permissionsClaim: 'realm_access.roles', scope: 'openid profile' }, apiBase: '/api/v1' });
  });

  it("keeps the platform's CSP on the console (no inline or eval'd scripts), adding only the issuer to connect-src", async () => {
    const admin = await token('alice', ['admin:access']);
    const api = await fetch(`${base}/api/v1/flows`, { headers: { authorization: `Bearer ${admin}` } });
    expect(api.status).toBe(200);
    const strict = directives(api.headers.get('content-security-policy'));
    expect(strict['script-src']).toEqual(["'self'"]);
    expect(strict['connect-src']).toEqual(["'self'"]);
    for (const p of ['/console/', '/console/flows', '/console/config.json', assets[0]!]) {
      const csp = directives((await fetch(`${base}${p}`)).headers.get('content-security-policy'));
      expect([p, csp]).toEqual([p, { ...strict, 'connect-src': ["'self'", 'https://id.example.com'] }]);
    }
    for (const p of ['/widget/', '/api/v1/openapi.json', '/api/docs']) {
      const res = await fetch(`${base}${p}`);
      expect([p, directives(res.headers.get('content-security-policy'))]).toEqual([p, strict]);
    }
  });
});
