import { stringify } from 'yaml';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';
import { type Framing, frameRequest, nestedJson, rawExchange, requestPieces } from './gateway-raw-http';

const APP_ORIGIN = 'https://app.example.com';

/** A whole platform behind the gateway: request bodies reach the real services, and every answer carries the security headers. */
describe('gateway in front of the platform', () => {
  let platform: Standalone;
  let api: string;
  let port: number;
  let admin: string;
  let bearer: Record<string, string>;

  beforeAll(async () => {
    // Without a rate limiter the gateway forwards at once, in the tick the headers arrive: where a
    // body that came with its headers used to be lost.
    platform = await startStandalone({ env: testEnv({ GATEWAY_CORS_ORIGINS: APP_ORIGIN, GATEWAY_RATE_LIMIT: '0' }) });
    api = `${platform.url}/api/v1`;
    port = platform.gateway.port;
    admin = await token('alice', ['admin:access']);
    bearer = { Authorization: `Bearer ${admin}` };
    await publishFlow(api, admin, 'echo', passThroughFlow, { name: 'Echo' });
    const created = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ id: 'shop', name: 'Shop', kind: 'route', labels: { 'x-route': 'post /shop/orders' }, variants: [{ label: 'stable', flowId: 'echo', weight: 100 }] }) });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(() => platform?.close());

  const framings: Framing[] = ['chunked', 'content-length', 'http/1.0'];

  it.each(framings)('a %s PATCH of a deployment really changes it', async (framing) => {
    for (const disabled of [true, false]) {
      const body = Buffer.from(JSON.stringify({ disabled }));
      for (const split of [false, true]) {
        const pieces = split ? requestPieces('PATCH', '/api/v1/deployments/shop', body, framing, { ...bearer, 'Content-Type': 'application/json' }, 5) : [frameRequest('PATCH', '/api/v1/deployments/shop', body, framing, { ...bearer, 'Content-Type': 'application/json' }, 5)];
        await call(`${api}/deployments/shop`, { method: 'PATCH', bearer: admin, ...json({ disabled: !disabled }) });
        const res = await rawExchange(port, pieces, { gapMs: 5 });
        expect(res.status).toBe(200);
        expect(res.body.disabled).toBe(disabled);
        expect((await call(`${api}/deployments/shop`, { bearer: admin })).body.disabled).toBe(disabled);
      }
    }
  });

  it('a PATCH streamed by fetch (chunked, body after the headers) really changes the deployment', async () => {
    for (const disabled of [true, false]) {
      const text = JSON.stringify({ disabled });
      const body = new ReadableStream({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 5));
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
      const res = await fetch(`${api}/deployments/shop`, { method: 'PATCH', headers: { ...bearer, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { disabled: boolean }).disabled).toBe(disabled);
      expect((await call(`${api}/deployments/shop`, { bearer: admin })).body.disabled).toBe(disabled);
    }
  });

  it.each(framings)('a %s run input arrives whole, small and large', async (framing) => {
    for (const text of ['Ada', 'x'.repeat(300_000)]) {
      const body = Buffer.from(JSON.stringify({ input: { name: text, list: [1, { two: 2 }] } }));
      for (const split of [false, true]) {
        const head = { ...bearer, 'Content-Type': 'application/json' };
        const pieces = split ? requestPieces('POST', '/api/v1/flows/echo/runs', body, framing, head, 65_536) : [frameRequest('POST', '/api/v1/flows/echo/runs', body, framing, head, 8191)];
        const res = await rawExchange(port, pieces, { gapMs: 5 });
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('completed');
        expect(res.body.output).toMatchObject({ name: text, list: [1, { two: 2 }] });
      }
    }
  });

  it('a chunked YAML flow version (not JSON, so passed through as it streams) is saved as sent', async () => {
    await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'yaml-chunked', name: 'YAML chunked' }) });
    const doc = { ...passThroughFlow, name: 'Sent in pieces', nodes: passThroughFlow.nodes.map((n) => ({ ...n, name: `${n.name} ${'.'.repeat(2000)}` })) };
    const res = await rawExchange(port, [frameRequest('POST', '/api/v1/flows/yaml-chunked/versions', Buffer.from(stringify(doc)), 'chunked', { ...bearer, 'Content-Type': 'application/yaml' }, 333)]);
    expect(res.status).toBe(201);
    const saved = await call(`${api}/flows/yaml-chunked/versions/${res.body.versionId}`, { bearer: admin });
    expect(saved.body.document.name).toBe('Sent in pieces');
    expect(saved.body.document.nodes[0].name).toBe(doc.nodes[0].name);
  });

  it('refuses deeply nested JSON with 400 JSON_TOO_DEEP and stays up', async () => {
    for (const path of ['/api/v1/deployments/shop', '/api/v1/flows/echo/runs', '/api/v1/flows']) {
      const method = path.endsWith('shop') ? 'PATCH' : 'POST';
      const res = await rawExchange(port, [frameRequest(method, path, Buffer.from(`{"input":${nestedJson(2500)}}`), 'chunked', { ...bearer, 'Content-Type': 'application/json' }, 1000)]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'JSON_TOO_DEEP' });
    }
    expect((await call(`${api}/deployments/shop`, { bearer: admin })).status).toBe(200);
  });

  describe('security headers', () => {
    const expectApiHeaders = (headers: Headers) => {
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('referrer-policy')).toBe('no-referrer');
      expect(headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    };

    it('are on proxied answers, the gateway\'s own, its refusals and the services\' own', async () => {
      expectApiHeaders((await call(`${api}/flows`, { bearer: admin })).headers);
      expectApiHeaders((await call(`${api}/flows`)).headers); // 401 from the service
      expectApiHeaders((await call(`${api}/health`)).headers); // the gateway's own route
      expectApiHeaders((await call(`${api}/deployments/shop`, { method: 'PATCH', bearer: admin, headers: { 'content-type': 'application/json' }, body: `{"a":${nestedJson(100)}}` })).headers);
      for (const service of platform.services) expectApiHeaders((await call(`${service.url}/healthz`)).headers);
    });

    it('keep the API usable from an allowed origin (CORS as configured, resources cross-origin)', async () => {
      const res = await call(`${api}/flows`, { bearer: admin, headers: { origin: APP_ORIGIN } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      const other = await call(`${api}/flows`, { bearer: admin, headers: { origin: 'https://evil.example.com' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('give Swagger UI a CSP without inline scripts that its page still satisfies', async () => {
      const page = await call(`${platform.url}/api/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const csp = page.headers.get('content-security-policy')!;
      const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `));
      expect(directive('script-src')).toBe("script-src 'self'");
      expect(directive('script-src-attr')).toBe("script-src-attr 'none'");
      expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
      expect(directive('default-src')).toBe("default-src 'self'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');

      // Every script is an external file from the same origin; no inline script, no inline handler.
      const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.length).toBeGreaterThanOrEqual(3);
      for (const [, attrs, inline] of scripts) {
        expect(attrs).toMatch(/\ssrc="[^"]+"/);
        expect(inline.trim()).toBe('');
      }
      expect(page.text).not.toMatch(/\son[a-z]+\s*=/i);
      for (const [, attrs] of scripts) {
        const src = /src="([^"]+)"/.exec(attrs)![1];
        expect(src).not.toMatch(/^(https?:)?\/\//);
        const asset = await call(new URL(src, `${platform.url}/api/docs/`).toString());
        expect(asset.status).toBe(200);
        expect(asset.headers.get('content-type')).toMatch(/javascript/);
        expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      }
      const init = await call(`${platform.url}/api/docs/swagger-ui-init.js`);
      expect(init.text).toContain('/api/v1/openapi.json');
    });
  });
});
