import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseFrameAncestors, platformHelmet, securityHeaderList, securityHeaders } from './security-headers';

describe('securityHeaders', () => {
  let server: Server;
  let url: string;
  let ancestors: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => securityHeaders(ancestors)(req, res, () => res.end('ok')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('sets nosniff, no-referrer, cross-origin CORP and a CSP without inline scripts or framing', async () => {
    ancestors = [];
    const res = await fetch(url);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('lets the allow list frame pages and then drops X-Frame-Options', async () => {
    ancestors = ['https://shop.example.com', "'self'"];
    const res = await fetch(url);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors https://shop.example.com 'self'");
    expect(res.headers.get('x-frame-options')).toBeNull();
  });

  it('lists the same headers for paths outside Express', () => {
    const list = new Map(securityHeaderList());
    expect(list.get('x-content-type-options')).toBe('nosniff');
    expect(list.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(list.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it.each([[[]], [['https://shop.example.com', "'self'"]]])('writes the same raw headers as helmet itself, X-Powered-By removed (ancestors %j)', async (list: string[]) => {
    const mw = { helmet: platformHelmet(list), ours: securityHeaders(list) };
    const probe = createServer((req, res) => {
      res.setHeader('X-Powered-By', 'Express');
      res.setHeader('Date', 'Wed, 25 Nov 2026 00:00:00 GMT');
      mw[req.url === '/helmet' ? 'helmet' : 'ours'](req, res, () => res.end('ok'));
    });
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    const raw = (path: string) =>
      new Promise<string[]>((resolve, reject) => get(base + path, (res) => (res.resume(), resolve(res.rawHeaders))).on('error', reject));
    try {
      const [theirs, ours] = [await raw('/helmet'), await raw('/ours')];
      expect(ours).toEqual(theirs);
      expect(ours.map((h) => h.toLowerCase())).not.toContain('x-powered-by');
    } finally {
      await new Promise((r) => probe.close(r));
    }
  });
});

describe('parseFrameAncestors', () => {
  it('accepts origins and self, refuses anything else', () => {
    expect(parseFrameAncestors(undefined)).toEqual([]);
    expect(parseFrameAncestors(" https://a.example.com , 'self', http://localhost:3000")).toEqual(['https://a.example.com', "'self'", 'http://localhost:3000']);
    expect(() => parseFrameAncestors("https://a.example.com; script-src 'unsafe-inline'")).toThrow(/GATEWAY_FRAME_ANCESTORS/);
    expect(() => parseFrameAncestors('javascript:alert(1)')).toThrow();
  });
});
