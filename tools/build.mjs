#!/usr/bin/env node
// Compiles apps/, libs/, tools/, bench/ and tests/ TypeScript to dist/ with SWC (about a second on a
// cold tree, incremental after that). SWC is used instead of tsc because it keeps Nest's decorator
// metadata and rewrites the @flowplane/* path aliases to relative requires, so dist/ runs with
// plain `node`. Type checking is `npx tsc -p tsconfig.json` (also run by `npm run lint`).
import { transformFile } from '@swc/core';
import { createRequire } from 'node:module';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { swcOptions, root } = require('./swc-options.cjs');
const quiet = process.argv.includes('--quiet');
const dirs = ['apps', 'libs', 'tools', 'bench', 'tests'];
const out = path.join(root, 'dist');
// Browser code built by Vite below, not by SWC.
const widgetDir = path.join(root, 'libs', 'client', 'widget');

async function* walk(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name === 'build' || p === widgetDir || p === path.join(root, 'apps', 'console')) continue;
      yield* walk(p);
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !/\.(spec|test)\.ts$/.test(e.name)) {
      yield p;
    }
  }
}

const started = Date.now();
let compiled = 0;
const jobs = [];
for (const d of dirs) {
  for await (const file of walk(path.join(root, d))) {
    const rel = path.relative(root, file);
    const target = path.join(out, rel.replace(/\.ts$/, '.js'));
    jobs.push(
      (async () => {
        const [src, dst] = await Promise.all([stat(file), stat(target).catch(() => null)]);
        if (dst && dst.mtimeMs >= src.mtimeMs) return;
        const opts = { ...swcOptions({ paths: true }), filename: file, sourceFileName: path.relative(path.dirname(target), file), swcrc: false, configFile: false };
        const res = await transformFile(file, opts);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, res.code + `\n//# sourceMappingURL=${path.basename(target)}.map\n`);
        if (res.map) await writeFile(target + '.map', res.map);
        compiled++;
      })(),
    );
  }
}
await Promise.all(jobs);
if (!quiet) console.log(`build: ${compiled} of ${jobs.length} files compiled to dist/ in ${Date.now() - started} ms`);

/** Newest modification time under a directory (0 when it does not exist). */
async function newest(dir) {
  let max = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    max = Math.max(max, e.isDirectory() ? await newest(p) : (await stat(p)).mtimeMs);
  }
  return max;
}

// The chat widget (one ES module and its demo page in dist/widget/), rebuilt by Vite only when a
// source is newer than the bundle, so a start with nothing changed costs a few stat calls.
const widgetOut = path.join(out, 'widget');
const [widgetSrc, widgetBuilt] = await Promise.all([
  Promise.all([newest(path.join(widgetDir, 'src')), ...['index.html', 'vite.config.mjs'].map((f) => stat(path.join(widgetDir, f)).then((s) => s.mtimeMs))]).then((t) => Math.max(...t)),
  Promise.all(['flowplane-chat.js', 'index.html'].map((f) => stat(path.join(widgetOut, f)).then((s) => s.mtimeMs, () => 0))).then((t) => Math.min(...t)),
]);
if (widgetSrc > widgetBuilt) {
  const widgetStarted = Date.now();
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn('build: the chat widget was not built (vite is not installed); /widget/ answers 404');
  }
  if (vite) {
    await vite.build({ configFile: path.join(widgetDir, 'vite.config.mjs'), logLevel: 'warn' });
    if (!quiet) console.log(`build: chat widget bundled to dist/widget/ in ${Date.now() - widgetStarted} ms`);
  }
}
