import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ConsoleAssets } from '@flowplane/gateway';
import type { BenchResult } from './bench-result';
import { CHROMIUM, CONSOLE_TOKEN, quantile, repoRoot } from './browser-pages';

/**
 * The admin console's first load. Size: what the initial route costs over the wire, gzipped —
 * index.html plus every script, module preload and style sheet it names (Vite lists the entry's
 * whole static import graph there; the areas loaded on demand are left out) — beside the 300 KB
 * goal. Time: navigation to the Flows landing page drawn (signed in, three flows listed) in Chromium,
 * beside a bare page loading an empty module, same server, same run, a new browser context per
 * sample (cold cache). The pages come from the gateway's own ConsoleAssets; the three API calls the
 * landing page makes are answered at once, so the figure is the console's own cost.
 */

const SAMPLES = Number(process.env.CONSOLE_BENCH_SAMPLES ?? 15);
const GOAL = 300 * 1024;


const median = (xs: number[]) => quantile(xs, 0.5);
const p90 = (xs: number[]) => quantile(xs, 0.9);

/** The files the initial route loads eagerly, as URL paths, from the built index.html. */
export function eagerAssets(html: string): string[] {
  const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
  const urls = tags.filter((t) => t.startsWith('<script') || /\brel="(stylesheet|modulepreload)"/.test(t)).map((t) => /\b(?:src|href)="([^"]+)"/.exec(t)?.[1]);
  return [...new Set(urls.filter((u): u is string => !!u && u.startsWith('/console/')))];
}

function serve(consoleDir: string): Promise<Server> {
  const assets = new ConsoleAssets(consoleDir, { oidc: null, apiBase: '/api/v1' }).middleware();
  const now = new Date().toISOString();
  const api: Record<string, unknown> = {
    '/api/v1/auth/me': { sub: 'bench', perms: ['admin:access'], active: true, superuser: false },
    '/api/v1/i18n/messages': { locale: 'en', namespace: 'console', messages: {} },
    '/api/v1/flows': ['alpha', 'beta', 'gamma'].map((id) => ({ id, name: `Flow ${id}`, createdAt: now, createdBy: 'bench' })),
  };
  const bare: Record<string, [string, string]> = {
    '/bare/': ['text/html; charset=utf-8', '<!doctype html><html lang="en"><title>bare</title><script type="module" src="./empty.js"></script><main>bare</main>'],
    '/bare/empty.js': ['text/javascript; charset=utf-8', 'globalThis.ready_ = performance.now();'],
  };
  const server = createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    if (p in api) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return void res.end(JSON.stringify(api[p]));
    }
    const file = bare[p];
    if (file) {
      res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' });
      return void res.end(file[1]);
    }
    assets(req, res, () => res.writeHead(404).end());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function run(): Promise<BenchResult[]> {
  const consoleDir = path.join(repoRoot(), 'dist', 'console');
  const html = readFileSync(path.join(consoleDir, 'index.html'));
  const files = eagerAssets(html.toString('utf8'));
  const sizes = files.map((u) => {
    const body = readFileSync(path.join(consoleDir, u.slice('/console/'.length)));
    return { u, raw: body.length, gz: gzipSync(body, { level: 9 }).length };
  });
  const gzipped = gzipSync(html, { level: 9 }).length + sizes.reduce((n, s) => n + s.gz, 0);
  const raw = html.length + sizes.reduce((n, s) => n + s.raw, 0);
  const largest = [...sizes].sort((a, b) => b.gz - a.gz)[0];
  const rows: BenchResult[] = [
    {
      name: 'Console initial route gzipped (bytes: index.html + eager JS/CSS) vs the 300 KB goal',
      ours: gzipped,
      baseline: GOAL,
      unit: 'bytes',
      ratio: GOAL / gzipped,
      notes: `${files.length} eager files, ${raw} bytes minified; largest ${largest ? `${path.basename(largest.u)} ${largest.gz} B gzipped` : 'none'}; ratio = headroom (goal / size)`,
    },
  ];
  if (!existsSync(CHROMIUM)) {
    console.log(`console bench: first load SKIPPED: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
    return rows;
  }
  const server = await serve(consoleDir);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  const consoleTimes: number[] = [];
  const bareTimes: number[] = [];
  try {
    const sample = async (url: string, ready: string, token?: string): Promise<number> => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        // Signed in already (the token the development sign-in keeps), so the landing page draws.
        if (token) await page.addInitScript(`sessionStorage.setItem('flowplane.console.token', ${JSON.stringify(token)})`);
        await page.goto(url, { waitUntil: 'commit' });
        const handle = await page.waitForFunction(ready, undefined, { polling: 2, timeout: 15_000 });
        return Number(await handle.jsonValue());
      } finally {
        await context.close();
      }
    };
    // Drawn: the Flows table has the three flows, stamped with performance.now() (ms since navigation).
    const consoleReady = `document.querySelectorAll('main table tbody tr').length >= 3 && performance.now()`;
    const bareReady = `globalThis.ready_ || false`;
    await sample(`${base}/console/`, consoleReady, CONSOLE_TOKEN);
    await sample(`${base}/bare/`, bareReady);
    for (let i = 0; i < SAMPLES; i++) {
      consoleTimes.push(await sample(`${base}/console/`, consoleReady, CONSOLE_TOKEN));
      bareTimes.push(await sample(`${base}/bare/`, bareReady));
    }
  } finally {
    await browser.close();
    server.close();
  }
  const ours = median(consoleTimes);
  const baseline = median(bareTimes);
  rows.push({
    name: `Console first load: navigation to the Flows page drawn (ms, median of ${SAMPLES}, cold) vs a page loading an empty module`,
    ours,
    baseline,
    unit: 'ms',
    ratio: baseline / ours,
    notes: `console costs ${(ours - baseline).toFixed(1)} ms more; console p90 ${p90(consoleTimes).toFixed(1)} ms, bare p90 ${p90(bareTimes).toFixed(1)} ms; me, catalog and flows answered at once by the bench's own server, so the figure is the page's cost alone`,
  });
  for (const r of rows) console.log(`${r.name}: ${r.ours.toFixed(1)} vs ${r.baseline.toFixed(1)} ${r.unit} (ratio ${r.ratio.toFixed(2)}) ${r.notes ?? ''}`);
  return rows;
}
