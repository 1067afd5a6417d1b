import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@flowplane/platform/config';
import { acceptsGzip, ConsoleAssets, consoleConfig, type ConsoleConfigBody, defaultConsoleDir } from './console-assets';
import { GatewayEnv } from './gateway.env';

const STRICT = "default-src 'self';connect-src 'self';script-src 'self'";
const BIG = `export const rows = [${Array.from({ length: 400 }, (_, i) => `'row ${i}'`).join(', ')}];`;
const PAGE = '<!doctype html><div id="root"></div><script type="module" src="/console/assets/index-abc123.js"></script>';

/** The console's static answers on a plain HTTP server over a temporary build directory. */
describe('ConsoleAssets', () => {
  let dir: string;
  const servers: Server[] = [];
  const noOidc: ConsoleConfigBody = { oidc: null, apiBase: '/api/v1' };

  /** A server whose responses carry a strict CSP first, as the platform's security headers do. */
  const serve = async (config = noOidc, consoleDir = dir): Promise<string> => {
    const mw = new ConsoleAssets(consoleDir, config).middleware();
    const server = createServer((req, res) => {
      res.setHeader('content-security-policy', STRICT);
      mw(req, res, () => res.writeHead(418).end('next'));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), PAGE);
    writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1);');
    writeFileSync(path.join(dir, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(path.join(dir, 'assets', 'big-abc123.js'), BIG);
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    writeFileSync(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`), 'secret');
  });

  afterAll(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(path.dirname(dir), `${path.basename(dir)}-secret.txt`), { force: true });
  });

  it('serves the page at /console/ with no-cache and a strong ETag, 304 on a match, and HEAD without a body', async () => {
    const base = await serve();
    const res = await fetch(`${base}/console/`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
    expect(await res.text()).toBe(PAGE);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect((await fetch(`${base}/console/`, { headers: { 'if-none-match': `W/${etag}, "other"` } })).status).toBe(304);
    const head = await fetch(`${base}/console/`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(PAGE.length), '']);
  });

  it('serves hashed assets for a year as immutable, with their content types', async () => {
    const base = await serve();
    const js = await fetch(`${base}/console/assets/index-abc123.js`);
    expect([js.status, js.headers.get('content-type'), js.headers.get('cache-control')]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
    expect(await js.text()).toBe('console.log(1);');
    const css = await fetch(`${base}/console/assets/index-abc123.css`);
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    const etag = css.headers.get('etag')!;
    expect((await fetch(`${base}/console/assets/index-abc123.css`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('gzips text assets for clients that take gzip (own ETag, Vary, 304 on either ETag), and not for others', async () => {
    const base = await serve();
    const url = `${base}/console/assets/big-abc123.js`;
    const gz = await fetch(url, { headers: { 'accept-encoding': 'gzip, br' } });
    expect([gz.status, gz.headers.get('content-encoding'), gz.headers.get('vary'), gz.headers.get('cache-control')]).toEqual([200, 'gzip', 'Accept-Encoding', 'public, max-age=31536000, immutable']);
    expect(Number(gz.headers.get('content-length'))).toBeLessThan(BIG.length / 3);
    expect(await gz.text()).toBe(BIG);
    const gzEtag = gz.headers.get('etag')!;
    expect(gzEtag).toMatch(/^"[\w-]{27}-gz"$/);
    for (const enc of ['identity', 'gzip;q=0, deflate', '']) {
      const plain = await fetch(url, { headers: { 'accept-encoding': enc } });
      expect([enc, plain.headers.get('content-encoding'), plain.headers.get('content-length'), plain.headers.get('vary')]).toEqual([enc, null, String(BIG.length), 'Accept-Encoding']);
      expect(plain.headers.get('etag')).toBe(gzEtag.replace('-gz', ''));
      expect(await plain.text()).toBe(BIG);
    }
    for (const held of [gzEtag, gzEtag.replace('-gz', '')]) {
      const again = await fetch(url, { headers: { 'accept-encoding': 'gzip', 'if-none-match': held } });
      expect([again.status, again.headers.get('etag')]).toEqual([304, held]);
    }
    const head = await fetch(url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect([head.status, head.headers.get('content-encoding'), head.headers.get('content-length')]).toEqual([200, 'gzip', gz.headers.get('content-length')]);
    // Small files are not worth it.
    expect((await fetch(`${base}/console/assets/index-abc123.css`, { headers: { 'accept-encoding': 'gzip' } })).headers.get('content-encoding')).toBeNull();
  });

  it('reads Accept-Encoding for gzip by name or *, q above 0', () => {
    expect(['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8', '*', 'GZIP'].map(acceptsGzip)).toEqual([true, true, true, true, true]);
    expect(['', 'identity', 'br', 'gzip;q=0', 'x-gzip2'].map(acceptsGzip)).toEqual([false, false, false, false, false]);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('answers index.html for any other path under /console/ (SPA fallback), a top-level file as it is', async () => {
    const base = await serve();
    for (const p of ['/console/flows', '/console/flows/hello%20world/versions?tab=diff', '/console/runs/r1/', '/console/flows/my.flow.yaml', '/console/index.html']) {
      const res = await fetch(`${base}${p}`);
      expect([p, res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([p, 200, 'text/html; charset=utf-8', 'no-cache']);
      expect(await res.text()).toBe(PAGE);
    }
    const icon = await fetch(`${base}/console/favicon.svg`);
    expect([icon.status, icon.headers.get('content-type'), await icon.text()]).toEqual([200, 'image/svg+xml', '<svg/>']);
  });

  it('answers 404 (JSON, never the page) for a missing asset, and never leaves the build directory', async () => {
    const base = await serve();
    for (const p of ['/console/assets/missing-123.js', '/console/assets/', '/console/assets', `/console/assets/..%2F..%2F${path.basename(dir)}-secret.txt`]) {
      const res = await fetch(`${base}${p}`);
      expect([p, res.status, res.headers.get('content-type')]).toEqual([p, 404, 'application/json; charset=utf-8']);
      expect(await res.json()).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND', requestId: expect.any(String) });
    }
    const up = await fetch(`${base}/console/..%2F${path.basename(dir)}-secret.txt`);
    expect(await up.text()).toBe(PAGE);
  });

  it('redirects /console to /console/ (308, query kept) and leaves other paths alone', async () => {
    const base = await serve();
    const bare = await fetch(`${base}/console?lang=pl`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/console/?lang=pl']);
    expect((await fetch(`${base}/consoles`)).status).toBe(418);
    expect((await fetch(`${base}/widget/`)).status).toBe(418);
  });

  it('answers 405 with the standard error body to other methods', async () => {
    const base = await serve();
    for (const [method, p] of [
      ['POST', '/console/'],
      ['PUT', '/console/assets/index-abc123.js'],
      ['DELETE', '/console/config.json'],
      ['OPTIONS', '/console/flows'],
    ]) {
      const res = await fetch(`${base}${p}`, { method });
      expect([method, p, res.status, res.headers.get('allow')]).toEqual([method, p, 405, 'GET, HEAD']);
      expect(await res.json()).toMatchObject({ statusCode: 405, error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${p}` });
    }
  });

  it('answers 404 CONSOLE_NOT_BUILT for pages when the build is missing, while config.json still answers', async () => {
    const base = await serve(noOidc, path.join(dir, 'absent'));
    for (const p of ['/console/', '/console/flows']) {
      const res = await fetch(`${base}${p}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ statusCode: 404, code: 'CONSOLE_NOT_BUILT' });
    }
    expect((await fetch(`${base}/console/config.json`)).status).toBe(200);
  });

  it('serves a rebuilt page with a new ETag without a restart', async () => {
    const base = await serve();
    const first = (await fetch(`${base}/console/`)).headers.get('etag');
    writeFileSync(path.join(dir, 'index.html'), `${PAGE}<!-- v2 -->`);
    utimesSync(path.join(dir, 'index.html'), new Date(), new Date(Date.now() + 5000));
    const res = await fetch(`${base}/console/`);
    expect(await res.text()).toBe(`${PAGE}<!-- v2 -->`);
    expect(res.headers.get('etag')).not.toBe(first);
    writeFileSync(path.join(dir, 'index.html'), PAGE);
  });

  it('serves config.json (no-cache): oidc null without an issuer', async () => {
    const base = await serve();
    const res = await fetch(`${base}/console/config.json`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([200, 'application/json; charset=utf-8', 'no-cache']);
    expect(await res.json()).toEqual({ oidc: null, apiBase: '/api/v1' });
    expect(res.headers.get('content-security-policy')).toBe(STRICT);
  });

  it('with OIDC, serves its settings and lets only the console connect to the issuer', async () => {
    const config = consoleConfig(loadConfig([GatewayEnv], { CONSOLE_OIDC_ISSUER: 'https://id.example.com/realms/main', CONSOLE_OIDC_CLIENT_ID: 'console' }));
    const base = await serve(config);
    const res = await fetch(`${base}/console/config.json`);
    expect(await res.json()).toEqual({ oidc: { issuer: 'https://id.example.com/realms/main', clientId: 'console', permissionsClaim: 'perms', scope: 'openid profile' }, apiBase: '/api/v1' });
    const page = await fetch(`${base}/console/flows`);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'self';connect-src 'self' https://id.example.com;script-src 'self'");
    expect((await fetch(`${base}/widget/`)).headers.get('content-security-policy')).toBe(STRICT);
  });

  it('finds dist/console at the repository root', () => {
    expect(defaultConsoleDir()).toBe(path.resolve(__dirname, '../../../dist/console'));
  });
});

describe('CONSOLE_OIDC_* settings', () => {
  const load = (env: Record<string, string>) => loadConfig([GatewayEnv], env);

  it('default to no OIDC, the perms claim and the openid profile scope', () => {
    const c = load({});
    expect(consoleConfig(c)).toEqual({ oidc: null, apiBase: '/api/v1' });
    expect([c.CONSOLE_OIDC_PERMS_CLAIM, c.CONSOLE_OIDC_SCOPE]).toEqual(['perms', 'openid profile']);
  });

  it('take an https issuer, or http on localhost, and a claim and scope of choice', () => {
    const c = load({ CONSOLE_OIDC_ISSUER: 'http://localhost:8180/realms/dev', CONSOLE_OIDC_CLIENT_ID: 'flowplane-console', CONSOLE_OIDC_PERMS_CLAIM: 'realm_access.roles', CONSOLE_OIDC_SCOPE: 'openid profile email' });
    expect(consoleConfig(c).oidc).toEqual({ issuer: 'http://localhost:8180/realms/dev', clientId: 'flowplane-console', permissionsClaim: 'realm_access.roles', scope: 'openid profile email' });
  });

  it('refuse an http issuer elsewhere, a non-URL, and one of issuer and client id without the other', () => {
    for (const issuer of ['http://id.example.com', 'id.example.com', 'https://', 'javascript:alert(1)', 'https://id.example.com/?x=1'])
      expect(() => load({ CONSOLE_OIDC_ISSUER: issuer, CONSOLE_OIDC_CLIENT_ID: 'c' })).toThrow(/CONSOLE_OIDC_ISSUER must be an https URL/);
    expect(() => load({ CONSOLE_OIDC_ISSUER: 'https://id.example.com' })).toThrow(/CONSOLE_OIDC_CLIENT_ID must be a client id/);
    expect(() => load({ CONSOLE_OIDC_CLIENT_ID: 'c' })).toThrow(/CONSOLE_OIDC_ISSUER must be an https URL/);
    expect(() => load({ CONSOLE_OIDC_SCOPE: 'openid  profile' })).toThrow(/CONSOLE_OIDC_SCOPE must be/);
    expect(() => load({ CONSOLE_OIDC_PERMS_CLAIM: 'a b' })).toThrow(/CONSOLE_OIDC_PERMS_CLAIM must be/);
  });
});
