// The console's build: static assets under dist/console/ for the gateway to serve at /console/,
// and a dev server (`npm run console:dev`, http://localhost:5173/console/) that proxies the API
// and the hub to a platform running on :8080 (`npm start`).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const gateway = process.env.CONSOLE_DEV_GATEWAY ?? 'http://localhost:8080';

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  plugins: [react()],
  resolve: {
    alias: { '@flowplane/client': path.resolve(here, '../../libs/client/src/index.ts') },
    // React's production build whatever NODE_ENV says (Jest sets `test`).
    conditions: ['module', 'browser', 'production'],
  },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The canvas, forms and the runs view are loaded on demand (dynamic imports in src/routes.tsx).
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: gateway, changeOrigin: true },
      '/ws': { target: gateway, changeOrigin: true, ws: true },
      '/i18n': { target: gateway, changeOrigin: true },
      '/console/config.json': { target: gateway, changeOrigin: true },
    },
  },
});
