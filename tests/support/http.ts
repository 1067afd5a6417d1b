import { mintToken } from '@flowplane/platform/auth';

export const TEST_SECRET = 'e2e-test-secret-0123456789abcdef';

/** Mints a token for tests, signed with TEST_SECRET. */
export function token(sub: string, perms: string[] = [], extra: { superuser?: boolean; active?: boolean } = {}): Promise<string> {
  return mintToken(TEST_SECRET, { sub, perms, ...extra });
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

/** Temporary DATA_DIR under the OS temp dir. */
export function tempDir(prefix: string): string {
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const path = require('node:path') as typeof import('node:path');
  return mkdtempSync(path.join(tmpdir(), `flowplane-${prefix}-`));
}
