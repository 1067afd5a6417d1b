// The widget's build: one minified ES module (Lit and eventsource-parser bundled in) plus the demo
// page, into dist/widget/. tools/build.mjs runs it through Vite's JS API when a source is newer
// than the output; `npx vite build -c libs/client/widget/vite.config.mjs` runs it by hand.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
export const outDir = path.resolve(here, '../../../dist/widget');

export default defineConfig({
  root: here,
  logLevel: 'warn',
  publicDir: false,
  // Lit's production build whatever NODE_ENV says (Jest sets `test`, which would pick its dev build).
  resolve: { conditions: ['module', 'browser', 'production'] },
  build: {
    outDir,
    // Overwrite in place: a running gateway keeps serving the old files until the new ones land.
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    reportCompressedSize: false,
    // Library mode keeps whitespace in ES output by default; the bundle budget wants it all minified.
    rolldownOptions: { output: { minify: true } },
    lib: { entry: path.join(here, 'src/flowplane-chat.ts'), formats: ['es'], fileName: () => 'flowplane-chat.js' },
  },
  plugins: [
    {
      name: 'flowplane-demo-page',
      generateBundle() {
        this.emitFile({ type: 'asset', fileName: 'index.html', source: readFileSync(path.join(here, 'index.html'), 'utf8') });
      },
    },
  ],
});
