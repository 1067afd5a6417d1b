import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, TEST_SECRET, testEnv, token } from '../support/http';

/**
 * assistant-ingest as users run it: the real binary (dist/, built by `npm test`) on a folder of
 * Markdown, HTML and text files, against a started platform, with exit codes 0, 1 and 2.
 */

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/apps/cli/src/assistant-ingest.js');

/** Runs the CLI without blocking the event loop (the platform serves it from this process). */
function ingest(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, FLOWPLANE_TOKEN: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('assistant-ingest', () => {
  let dir: string;
  let platform: Standalone;

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    dir = mkdtempSync(path.join(tmpdir(), 'assistant-ingest-'));
    mkdirSync(path.join(dir, 'docs/faq'), { recursive: true });
    const long = Array.from({ length: 30 }, (_, i) => `Line ${i} of the returns guide says a little more about labels and parcels.`).join(' ');
    writeFileSync(path.join(dir, 'docs/returns.md'), `# Returns guide\n\n## Labels\n\n${long}\n\n## Refunds\n\nRefunds arrive within 14 days.\n`);
    writeFileSync(path.join(dir, 'docs/faq/shipping page.html'), '<html><head><title>Shipping FAQ</title><script>x()</script></head><body><h1>Shipping</h1><p>Parcels take five days.</p></body></html>');
    writeFileSync(path.join(dir, 'docs/faq/notes.txt'), 'Plain notes about opening hours.');
    writeFileSync(path.join(dir, 'docs/faq/empty.md'), '   \n');
    writeFileSync(path.join(dir, 'docs/image.png'), 'not text');
    platform = await startStandalone({ env: testEnv({ SEARCH_EMBEDDING_DIM: '32' }) });
  }, 60_000);
  afterAll(() => platform?.close());

  it('--dry-run chunks the folder recursively and sends nothing', async () => {
    const r = await ingest(['docs', '--dry-run'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^docs\/faq\/notes\.txt\t1 chunks\tnotes$/m);
    expect(r.stdout).toMatch(/^docs\/faq\/shipping-page\.html\t1 chunks\tShipping FAQ$/m);
    expect(r.stdout).toMatch(/^docs\/returns\.md\t\d+ chunks\tReturns guide$/m);
    expect(r.stdout).toMatch(/dry run: 3 document\(s\), \d+ chunk\(s\) for svc_docs, 1 skipped; nothing sent/);
    expect(r.stderr).toContain('skipped docs/faq/empty.md: no text');
  });

  it('ingests into the platform with a progress line and a summary; a second run replaces, not duplicates', async () => {
    const base = platform.url;
    const first = await ingest(['docs', '--base-url', base], dir, { AUTH_JWT_SECRET: TEST_SECRET });
    expect(first.stderr).not.toContain('failed');
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/\[#{30}\] (\d+)\/\1 chunks {2}[\d.]+ chunks\/s/);
    const summary = /ingested 3 of 3 document\(s\), (\d+) chunk\(s\) \(\1 embedded, 0 unchanged\) into svc_docs at [\d.]+ chunks\/s; 0 stale chunk\(s\) removed, 1 file\(s\) skipped/.exec(first.stdout);
    expect(summary).not.toBeNull();
    const admin = await token('alice', ['admin:access']);
    const listed = await call(`${base}/api/v1/admin/assistant/knowledge`, { bearer: admin });
    expect(listed.body.documents.map((d: { id: string }) => d.id)).toEqual(['docs/faq/notes.txt', 'docs/faq/shipping-page.html', 'docs/returns.md']);
    expect(listed.body.chunks).toBe(Number(summary![1]));

    writeFileSync(path.join(dir, 'docs/returns.md'), '# Returns guide\n\nShort now.\n');
    const second = await ingest(['docs/returns.md', '--base-url', base], dir, { AUTH_JWT_SECRET: TEST_SECRET });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/ingested 1 of 1 document\(s\), 1 chunk\(s\) \(1 embedded, 0 unchanged\) into svc_docs .*; [1-9]\d* stale chunk\(s\) removed/);
    const unchanged = await ingest(['docs', '--base-url', base], dir, { AUTH_JWT_SECRET: TEST_SECRET });
    expect(unchanged.stdout).toMatch(/ingested 3 of 3 document\(s\), (\d+) chunk\(s\) \(0 embedded, \1 unchanged\)/);
    const after = await call(`${base}/api/v1/admin/assistant/knowledge`, { bearer: admin });
    expect(after.body.documents.find((d: { id: string }) => d.id === 'docs/returns.md').chunks).toBe(1);
  });

  it('exits 1 naming the files when the platform refuses, 2 on usage errors', async () => {
    const refused = await ingest(['docs/faq/notes.txt', '--base-url', platform.url], dir, { AUTH_JWT_SECRET: 'not-the-platform-secret-0123456789' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/failed: docs\/faq\/notes\.txt: 401/);
    expect((await ingest([], dir)).code).toBe(2);
    expect((await ingest(['docs/image.png'], dir)).code).toBe(2);
    expect((await ingest(['missing-folder'], dir)).stderr).toContain('no such file or folder: missing-folder');
  });
});
