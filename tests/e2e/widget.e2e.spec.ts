import { execFileSync } from 'node:child_process';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, parseSse, testEnv, token } from '../support/http';

const SHOP = 'https://shop.example.com';
const EVIL = 'https://evil.example.com';

/**
 * The chat widget over HTTP through the gateway: its module and demo page (caching, CSP, CORS),
 * the CORS of the public assistant and i18n routes it calls for WIDGET_ALLOWED_ORIGINS, admin
 * routes untouched by it, and its seeded catalog.
 */
describe('chat widget through the gateway', () => {
  let platform: Standalone;
  let base: string;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    // The bundle comes from the build (npm start and npm test run it first); a direct jest run builds it here.
    execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { stdio: 'inherit' });
    platform = await startStandalone({ env: testEnv({ WIDGET_ALLOWED_ORIGINS: SHOP, ASSISTANT_RATE_LIMIT: '0' }) });
    base = platform.url;
    api = `${base}/api/v1`;
    admin = await token('alice', ['admin:access']);
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('serves the module with an ETag, a short max-age, the platform security headers and CORS for allowed origins', async () => {
    const res = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { origin: SHOP } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/\S/);
    const body = await res.text();
    expect(body).toContain('flowplane-chat');
    const etag = res.headers.get('etag')!;
    expect((await fetch(`${base}/widget/flowplane-chat.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const other = await fetch(`${base}/widget/flowplane-chat.js`, { headers: { origin: EVIL } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the demo page with the chat open, its script loaded from a file (no inline script) under the platform CSP', async () => {
    const res = await fetch(`${base}/widget/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("script-src-attr 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const html = await res.text();
    expect(html).toContain('<flowplane-chat open>');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((s) => [s[1].trim(), s[2].trim()])).toEqual([['type="module" src="./flowplane-chat.js"', '']]);
    expect(html).not.toMatch(/\son\w+=/i);
    const bare = await fetch(`${base}/widget`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/widget/']);
    const missing = await call(`${base}/widget/nothing.js`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', requestId: expect.any(String) });
  });

  it('answers CORS for the widget origin on the public assistant routes: preflight, session header exposed', async () => {
    const pre = await fetch(`${api}/assistant/messages`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-assistant-session-id,last-event-id' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(SHOP);
    const allowed = pre.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['content-type', 'x-assistant-session-id', 'last-event-id']) expect(allowed).toContain(h);
    const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { origin: SHOP, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hello from the shop' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('x-assistant-session-id');
    const frames = parseSse(await res.text());
    const session = res.headers.get('x-assistant-session-id')!;
    const runId = frames[0].data.runId as string;
    const resumed = await fetch(`${api}/assistant/messages/${runId}/events`, { headers: { origin: SHOP, 'x-assistant-session-id': session, 'last-event-id': '1' } });
    expect(resumed.headers.get('access-control-allow-origin')).toBe(SHOP);
    await resumed.text();
    for (const path of [`/assistant/config?sessionId=${session}`, `/assistant/chats/me/${session}`, '/i18n/locales']) {
      const r = await fetch(`${api}${path}`, { headers: { origin: SHOP } });
      expect([path, r.status, r.headers.get('access-control-allow-origin')]).toEqual([path, 200, SHOP]);
    }
    const evil = await fetch(`${api}/assistant/config`, { headers: { origin: EVIL } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps admin routes without CORS for the widget origin (GATEWAY_CORS_ORIGINS is empty)', async () => {
    for (const path of ['/admin/assistant/templates', '/assistant/handoffs', '/assistant/chats', '/flows', '/admin/i18n/messages']) {
      const pre = await fetch(`${api}${path}`, { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect([path, pre.headers.get('access-control-allow-origin')]).toEqual([path, null]);
      const r = await fetch(`${api}${path}`, { headers: { origin: SHOP, authorization: `Bearer ${admin}` } });
      expect([path, r.headers.get('access-control-allow-origin')]).toEqual([path, null]);
    }
  });

  it('seeds the widget catalog in English and Polish, readable cross-origin', async () => {
    const pl = await fetch(`${api}/i18n/messages?ns=widget&locale=pl`, { headers: { origin: SHOP } });
    expect(pl.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(((await pl.json()) as { messages: Record<string, string> }).messages).toMatchObject({ send: 'Wyślij', 'handoff.open': 'Porozmawiaj z człowiekiem' });
    const en = await call(`${api}/i18n/messages?ns=widget&locale=en`);
    expect(en.body.messages).toMatchObject({ send: 'Send', 'handoff.duplicate': 'We already have your request. Someone will contact you soon.' });
    // Write-once: a curated text survives (the seed only inserts keys that do not exist).
    const put = await call(`${api}/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json({ ns: 'widget', key: 'send', locale: 'en', value: 'Send it' }) });
    expect(put.status).toBe(200);
    expect((await call(`${api}/i18n/messages?ns=widget&locale=en`)).body.messages.send).toBe('Send it');
  });
});
