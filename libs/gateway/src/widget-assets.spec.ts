import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@flowplane/platform/config';
import { GatewayEnv } from './gateway.env';
import { defaultWidgetDir, isWidgetApiPath, WidgetAssets, widgetCorsOrigin } from './widget-assets';

/** The widget's static answers and CORS, on a plain HTTP server over a temporary build directory. */
describe('WidgetAssets', () => {
  let dir: string;
  const servers: Server[] = [];

  const serve = async (origins: string[], widgetDir = dir): Promise<string> => {
    const mw = new WidgetAssets(widgetDir, origins).middleware();
    const server = createServer((req, res) => mw(req, res, () => res.writeHead(418).end('next')));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'widget-'));
    writeFileSync(path.join(dir, 'flowplane-chat.js'), 'export const v = 1;');
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./flowplane-chat.js"></script>');
  });

  afterAll(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the module with an ETag and a short max-age, and answers 304 to a matching If-None-Match', async () => {
    const base = await serve(['*']);
    const res = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { origin: 'https://any.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toBe('export const v = 1;');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const head = await fetch(`${base}/widget/flowplane-chat.js`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '19', '']);
  });

  it('sends a large module gzipped to a client that takes gzip, varying on Origin and Accept-Encoding', async () => {
    const big = mkdtempSync(path.join(tmpdir(), 'widget-big-'));
    const source = `export const text = ${JSON.stringify('chat '.repeat(2000))};`;
    writeFileSync(path.join(big, 'flowplane-chat.js'), source);
    try {
      const base = await serve(['https://shop.example.com'], big);
      const { request } = await import('node:http');
      const res = await new Promise<{ status?: number; headers: Record<string, unknown>; bytes: number }>((resolve, reject) => {
        const req = request(`${base}/widget/flowplane-chat.js`, { headers: { 'accept-encoding': 'gzip', origin: 'https://shop.example.com' } }, (r) => {
          let bytes = 0;
          r.on('data', (d: Buffer) => (bytes += d.length));
          r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, bytes }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers['vary']).toBe('Origin, Accept-Encoding');
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
      expect(res.bytes).toBeLessThan(source.length / 10);
      // Node's fetch decompresses: the module arrives as written.
      expect(await (await fetch(`${base}/widget/flowplane-chat.js`)).text()).toBe(source);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  it('serves a rebuilt file with a new ETag without a restart', async () => {
    const base = await serve(['*']);
    const first = (await fetch(`${base}/widget/flowplane-chat.js`)).headers.get('etag');
    writeFileSync(path.join(dir, 'flowplane-chat.js'), 'export const v = 2;');
    utimesSync(path.join(dir, 'flowplane-chat.js'), new Date(), new Date(Date.now() + 5000));
    const res = await fetch(`${base}/widget/flowplane-chat.js`);
    expect(await res.text()).toBe('export const v = 2;');
    expect(res.headers.get('etag')).not.toBe(first);
  });

  it('serves the demo page at /widget/ (no-cache), redirects /widget, 404s other files and 405s writes', async () => {
    const base = await serve(['*']);
    const page = await fetch(`${base}/widget/`);
    expect([page.status, page.headers.get('content-type'), page.headers.get('cache-control')]).toEqual([200, 'text/html; charset=utf-8', 'public, no-cache']);
    const bare = await fetch(`${base}/widget`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/widget/']);
    const nope = await fetch(`${base}/widget/secret.txt`);
    expect(nope.status).toBe(404);
    expect(await nope.json()).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND' });
    const post = await fetch(`${base}/widget/`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect((await fetch(`${base}/widgets`)).status).toBe(418);
  });

  it('with a list of origins, allows only those (and varies on Origin)', async () => {
    const base = await serve(['https://shop.example.com']);
    const ok = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { origin: 'https://shop.example.com' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(ok.headers.get('vary')).toBe('Origin');
    const other = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { origin: 'https://evil.example.com' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers 404 WIDGET_NOT_BUILT when the build is missing', async () => {
    const base = await serve(['*'], path.join(dir, 'absent'));
    const res = await fetch(`${base}/widget/flowplane-chat.js`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('WIDGET_NOT_BUILT');
  });

  it('names the public assistant and i18n routes only as widget routes', () => {
    for (const p of ['/api/v1/assistant/messages', '/api/v1/assistant/messages/r1/events', '/api/v1/assistant/config', '/api/v1/assistant/feedback', '/api/v1/assistant/handoff', '/api/v1/assistant/chats/me/s1', '/api/v1/i18n/messages', '/api/v1/i18n/locales'])
      expect([p, isWidgetApiPath(p)]).toEqual([p, true]);
    for (const p of ['/api/v1/assistant/handoffs', '/api/v1/assistant/handoffs/h1', '/api/v1/assistant/chats', '/api/v1/assistant/chats/c1', '/api/v1/admin/assistant/templates', '/api/v1/assistant/reset', '/api/v1/admin/i18n/messages', '/api/v1/i18n/report-keys', '/api/v1/flows'])
      expect([p, isWidgetApiPath(p)]).toEqual([p, false]);
  });

  it('combines the widget and gateway allow lists for the widget routes', () => {
    expect(widgetCorsOrigin(['*'], [])).toBe('*');
    expect(widgetCorsOrigin(['https://a.example'], ['*'])).toBe('*');
    expect(widgetCorsOrigin(['https://a.example'], ['https://b.example', 'https://a.example'])).toEqual(['https://a.example', 'https://b.example']);
    expect(widgetCorsOrigin([], [])).toBe(false);
  });

  it('finds dist/widget at the repository root', () => {
    expect(defaultWidgetDir()).toBe(path.resolve(__dirname, '../../../dist/widget'));
  });
});

describe('WIDGET_ALLOWED_ORIGINS', () => {
  const load = (value?: string) => loadConfig([GatewayEnv], value === undefined ? {} : { WIDGET_ALLOWED_ORIGINS: value });

  it('defaults to any origin, takes a comma list, and `none` for no other site', () => {
    expect(load().WIDGET_ALLOWED_ORIGINS).toEqual(['*']);
    expect(load('https://shop.example.com, http://localhost:3000').WIDGET_ALLOWED_ORIGINS).toEqual(['https://shop.example.com', 'http://localhost:3000']);
    expect(load('none').WIDGET_ALLOWED_ORIGINS).toEqual([]);
  });

  it('refuses entries that are not origins', () => {
    for (const bad of ['shop.example.com', 'https://shop.example.com/path', 'javascript:alert(1)'])
      expect(() => load(bad)).toThrow(/WIDGET_ALLOWED_ORIGINS entries must be \* or origins/);
  });
});
