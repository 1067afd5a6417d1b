import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The hard budget of the embeddable widget: one script tag must stay cheap on every site. */
export const WIDGET_GZIP_LIMIT = 30 * 1024;

/** Builds the widget with its own Vite config into a temporary directory and checks its gzipped size. */
describe('chat widget bundle', () => {
  const root = path.resolve(__dirname, '../../../..');
  const out = mkdtempSync(path.join(tmpdir(), 'widget-bundle-'));

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is one ES module of at most 30 KB gzipped, with the demo page beside it', () => {
    execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '-c', path.join(root, 'libs/client/widget/vite.config.mjs'), '--outDir', out, '--emptyOutDir'], { cwd: root, stdio: 'pipe' });
    const bundle = readFileSync(path.join(out, 'flowplane-chat.js'));
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    process.stdout.write(`widget bundle: ${bundle.length} bytes, ${gzipped} bytes gzipped (limit ${WIDGET_GZIP_LIMIT})\n`);
    expect(gzipped).toBeLessThanOrEqual(WIDGET_GZIP_LIMIT);
    // One module: Lit and eventsource-parser bundled in, no import of anything else at run time.
    expect(bundle.toString()).not.toMatch(/\bimport\s*[{*\w][^;]*from\s*["']/);
    expect(bundle.toString()).toMatch(/customElements\.define\([`"']flowplane-chat/);
    // Lit's production build, never its dev build (which warns in every visitor's console).
    expect(bundle.toString()).not.toContain('Lit is in dev mode');
    expect(readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('<flowplane-chat open>');
  });
});
