import { mintServiceToken, mintToken } from '@flowplane/platform/auth';

export const TEST_SECRET = 'e2e-test-secret-0123456789abcdef';

/** Mints a token for tests, signed with TEST_SECRET. */
export function token(sub: string, perms: string[] = [], extra: { superuser?: boolean; active?: boolean } = {}): Promise<string> {
  return mintToken(TEST_SECRET, { sub, perms, ...extra });
}

/** Mints a service token for tests: `sub: svc:<from>`, audience `svc:<to>`, exactly `perms` (see INTERNAL_PERMS). */
export function serviceToken(from: string, to: string, perms: string[] = []): Promise<string> {
  return mintServiceToken(TEST_SECRET, { from, to, perms });
}

/** fetch returning status, headers and parsed JSON body. */
export async function call(url: string, init: RequestInit & { bearer?: string } = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set('authorization', `Bearer ${init.bearer}`);
  const res = await fetch(url, { ...init, headers });
  const text = await res.text();
  let body: any = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Authorization header of a Prometheus scrape on a service port (`/metrics` needs `metrics:read`). */
export async function metricsAuth(secret = TEST_SECRET): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await mintToken(secret, { sub: 'prometheus', perms: ['metrics:read'] })}` };
}

/** Temporary DATA_DIR under the OS temp dir. */
export function tempDir(prefix: string): string {
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const path = require('node:path') as typeof import('node:path');
  return mkdtempSync(path.join(tmpdir(), `flowplane-${prefix}-`));
}

/**
 * Polls `fn` until `ok` accepts its value or `ms` pass; resolves the last value either way, so
 * the caller's assertion on it shows what was there at the deadline.
 */
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 5000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await fn();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    v = await fn();
  }
  return v;
}

/** A JSON request body with its content type, for `call`. */
export const json = (body: unknown): { headers: Record<string, string>; body: string } => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Environment of an in-process test platform: random ports, memory stores, the test secret, no logs. */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // The translation flows stay off unless a suite turns them on: they would fill the locales of
  // every key a test writes, seconds later, under assertions about untranslated catalogs. The
  // per-locale search indexes of pages likewise, under assertions about the list of indexes.
  return { ...process.env, PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', I18N_AUTO_TRANSLATE_DISABLED: 'true', CONTENT_PAGE_SEARCH: 'false', ...extra };
}

/** One Server-Sent Event of a run stream. */
export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** The events of an SSE body (`id`, `event`, JSON `data` per block). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('event:'))
    .map((block) => {
      const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
      return { id: Number(field('id')), event: field('event'), data: JSON.parse(field('data')) };
    });
}
