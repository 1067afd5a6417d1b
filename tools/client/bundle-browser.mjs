#!/usr/bin/env node
// Bundles @flowplane/client (libs/client/src/index.ts) into one browser ES module with rolldown,
// dependencies included, and writes it to stdout: what a web app's bundler makes of the package.
// The browser tests load it into Chromium (tests/e2e/client-kit-api.e2e.spec.ts).
import { rolldown } from 'rolldown';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundle = await rolldown({ input: path.join(root, 'libs/client/src/index.ts'), platform: 'browser', logLevel: 'silent' });
const { output } = await bundle.generate({ format: 'es' });
await bundle.close();
process.stdout.write(output[0].code);
