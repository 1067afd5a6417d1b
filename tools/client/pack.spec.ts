import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The publishable @flowplane/client: built by `npm run client:pack`, listed by `npm pack --dry-run`. */
describe('@flowplane/client package', () => {
  const root = path.resolve(__dirname, '../..');
  const pkgDir = path.join(root, 'libs/client');
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const rootPkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

  it('declares an ESM package with types, files, no side effects and the workspace versions of its dependencies', () => {
    expect(pkg).toMatchObject({ name: '@flowplane/client', version: '0.1.0', license: 'Apache-2.0', type: 'module', sideEffects: false });
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
    for (const dep of ['openapi-fetch', 'eventsource-parser', 'intl-messageformat']) expect(pkg.dependencies[dep]).toBe(rootPkg.dependencies[dep]);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['eventsource-parser', 'intl-messageformat', 'openapi-fetch']);
  });

  it('builds to dist and packs the entry points of every export, without sources or specs', () => {
    execFileSync(process.execPath, [path.join(root, 'tools/client/pack.mjs')], { cwd: root, stdio: 'pipe' });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkgDir, encoding: 'utf8' })) as Array<{ name: string; files: Array<{ path: string }> }>;
    expect(packed.name).toBe('@flowplane/client');
    const files = packed.files.map((f) => f.path);
    const targets = Object.values(pkg.exports as Record<string, string | Record<string, string>>).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    for (const t of new Set(targets)) expect(files).toContain(t.replace(/^\.\//, ''));
    expect(files).toEqual(expect.arrayContaining(['README.md', 'dist/sse/index.js', 'dist/api/generated/assistant.d.ts']));
    expect(files.filter((f) => f.startsWith('src/') || /\.spec\./.test(f))).toEqual([]);
  }, 60_000);
});
