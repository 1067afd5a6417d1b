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
const dirs = ['apps', 'libs', 'tools', 'bench', 'tests', 'examples'];
const out = path.join(root, 'dist');
// Browser code built by Vite below, not by SWC.
const widgetDir = path.join(root, 'libs', 'client', 'widget');
const consoleDir = path.join(root, 'apps', 'console');

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
      if (e.name === 'node_modules' || e.name === 'build' || p === widgetDir || p === consoleDir) continue;
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

/** Newest modification time under a directory, or of a file (0 when it does not exist). */
async function newest(p) {
  const info = await stat(p).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let max = 0;
  for (const e of await readdir(p, { withFileTypes: true }).catch(() => [])) {
    if (e.name === 'node_modules') continue;
    max = Math.max(max, await newest(path.join(p, e.name)));
  }
  return max;
}

/**
 * Browser code bundled by Vite, rebuilt only when a source is newer than the oldest output, so a
 * start with nothing changed costs a few stat calls. Without Vite (a production-only install) or
 * when the build fails, it warns and the platform starts anyway: the gateway answers `notBuilt`.
 */
async function viteStep({ name, configFile, sources, outputs, notBuilt }) {
  const [src, built] = await Promise.all([
    Promise.all(sources.map(newest)).then((t) => Math.max(...t)),
    Promise.all(outputs.map((f) => stat(f).then((s) => s.mtimeMs, () => 0))).then((t) => Math.min(...t)),
  ]);
  if (src <= built) return;
  const stepStarted = Date.now();
  // Vite compiles `process.env.NODE_ENV` into the bundle from the caller's environment: under Jest
  // (`test`) React would ship its development build, twice the size and slower.
  process.env.NODE_ENV = 'production';
  let vite;
  try {
    vite = await import('vite');
  } catch {
    return console.warn(`build: the ${name} was not built (vite is not installed); ${notBuilt}`);
  }
  try {
    await vite.build({ configFile, logLevel: 'warn' });
  } catch (err) {
    return console.warn(`build: the ${name} failed to build (the last build, if any, stays in place; without one ${notBuilt})\n${String(err?.message ?? err).trim()}`);
  }
  if (!quiet) console.log(`build: ${name} bundled to ${path.relative(root, path.dirname(outputs[0]))}/ in ${Date.now() - stepStarted} ms`);
}

// The chat widget: one ES module and its demo page in dist/widget/.
await viteStep({
  name: 'chat widget',
  configFile: path.join(widgetDir, 'vite.config.mjs'),
  sources: ['src', 'index.html', 'vite.config.mjs'].map((f) => path.join(widgetDir, f)),
  outputs: ['flowplane-chat.js', 'index.html'].map((f) => path.join(out, 'widget', f)),
  notBuilt: '/widget/ answers 404 WIDGET_NOT_BUILT',
});
// The admin console: index.html and hashed assets in dist/console/. It bundles the client kit too.
await viteStep({
  name: 'admin console',
  configFile: path.join(consoleDir, 'vite.config.mts'),
  sources: [consoleDir, path.join(root, 'libs', 'client', 'src')],
  outputs: [path.join(out, 'console', 'index.html')],
  notBuilt: '/console/ answers 404 CONSOLE_NOT_BUILT',
});
