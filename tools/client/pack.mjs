#!/usr/bin/env node
// Builds the publishable @flowplane/client into libs/client/dist: ES modules and .d.ts by tsc
// (libs/client/tsconfig.build.json), then relative specifiers get their `.js` (or `/index.js`),
// which Node's ESM loader needs and the monorepo's sources (loaded through SWC and Jest) must not
// carry. Ends with an import of the built entry in plain Node as a smoke test.
//
//   npm run client:pack               build libs/client/dist
//   npm run client:pack -- --tarball  also write the npm tarball to artifacts/client/
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkgDir = path.join(root, 'libs/client');
const dist = path.join(pkgDir, 'dist');
const require = createRequire(import.meta.url);
const started = Date.now();

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(pkgDir, 'tsconfig.build.json')], { stdio: 'inherit' });

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (/\.(js|d\.ts)$/.test(e.name)) yield p;
  }
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g;
let rewritten = 0;
for (const file of files(dist)) {
  const dir = path.dirname(file);
  const text = readFileSync(file, 'utf8');
  const out = text.replace(SPECIFIER, (all, head, quote, spec) => {
    if (/\.(js|json)$/.test(spec)) return all;
    const target = path.resolve(dir, spec);
    const resolved = existsSync(`${target}.js`) ? `${spec}.js` : existsSync(path.join(target, 'index.js')) && statSync(target).isDirectory() ? `${spec}/index.js` : undefined;
    if (!resolved) throw new Error(`${path.relative(root, file)}: cannot resolve ${spec}`);
    rewritten++;
    return `${head}${quote}${resolved}${quote}`;
  });
  if (out !== text) writeFileSync(file, out);
}

// Smoke test: the entry loads as an ES module in plain Node and has the public API.
const entry = await import(pathToFileURL(path.join(dist, 'index.js')).href);
for (const name of ['createFlowplaneClient', 'unwrap', 'streamChat', 'streamRun', 'FlowplaneApiError', 'NetworkError', 'StreamError']) {
  if (typeof entry[name] !== 'function') throw new Error(`dist/index.js does not export ${name}`);
}
console.log(`client:pack: libs/client/dist built (${rewritten} specifiers rewritten) in ${Date.now() - started} ms`);

if (process.argv.includes('--tarball')) {
  const dest = path.join(root, 'artifacts/client');
  mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], { cwd: pkgDir, encoding: 'utf8' });
  console.log(`client:pack: ${path.join(dest, JSON.parse(out)[0].filename)}`);
}
