import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConsoleAssets } from '@flowplane/gateway';
import type { BenchResult } from './bench-result';
import { CHROMIUM, CONSOLE_TOKEN, quantile, repoRoot } from './browser-pages';

/**
 * The console's canvas with a 200-node flow: frame time while the user pans it (the pane dragged
 * with the mouse for about two seconds), from requestAnimationFrame timestamps in Chromium, p95
 * beside the same pan over a blank page in the same browser (the goal: no dropped 60 Hz frame). The pages come from the
 * gateway's own ConsoleAssets; the API the canvas reads (me, catalog, node registry, the version) is
 * answered at once, so the figure is the canvas's own cost.
 */

const NODES = Number(process.env.CONSOLE_CANVAS_NODES ?? 200);
const FRAME = 1000 / 60;


const pct = quantile;

/** A flow of `n` nodes on a grid: a start, a chain of template renders (some with two branches), an end. */
export function bigFlow(n: number) {
  const nodes = [{ id: 'n0', name: 'Start', kind: 'start' }];
  for (let i = 1; i < n - 1; i++) nodes.push({ id: `n${i}`, name: `Render ${i}`, kind: 'action', action_ref: 'svc/template-render', config: { template: `step ${i}` } } as never);
  nodes.push({ id: `n${n - 1}`, name: 'End', kind: 'end' });
  const edges = [];
  for (let i = 1; i < n; i++) edges.push({ id: `e${i}`, from: `n${i - 1}`, to: `n${i}` });
  for (let i = 2; i < n - 1; i += 10) edges.push({ id: `b${i}`, from: `n${i - 2}`, to: `n${i}`, condition: 'output.ok == true' });
  const positions = Object.fromEntries(nodes.map((node, i) => [node.id, { x: (i % 20) * 260, y: Math.floor(i / 20) * 160 }]));
  return { name: 'Bench', nodes, edges, meta: { positions } };
}

function serve(consoleDir: string): Promise<Server> {
  const assets = new ConsoleAssets(consoleDir, { oidc: null, apiBase: '/api/v1' }).middleware();
  const now = new Date().toISOString();
  const api: Record<string, unknown> = {
    '/api/v1/auth/me': { sub: 'bench', perms: ['admin:access'], active: true, superuser: false },
    '/api/v1/i18n/messages': { locale: 'en', namespace: 'console', messages: {} },
    '/api/v1/i18n/locales': [{ code: 'en', languageTag: 'en', name: 'English' }],
    '/api/v1/flows/nodes': [{ id: 'svc/template-render', name: 'Render template', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }], settingsSchema: { type: 'object', properties: { template: { type: 'string' } } }, remote: false }],
    '/api/v1/flows/bench/versions': [{ versionId: 'bench@v1', number: 1, hash: 'x', createdAt: now, createdBy: 'bench', warnings: [] }],
    '/api/v1/flows/bench/versions/bench@v1': { versionId: 'bench@v1', number: 1, hash: 'x', createdAt: now, createdBy: 'bench', warnings: [], document: bigFlow(NODES) },
  };
  const server = createServer((req, res) => {
    const p = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    if (p in api) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return void res.end(JSON.stringify(api[p]));
    }
    assets(req, res, () => res.writeHead(404).end());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function run(): Promise<BenchResult[]> {
  if (!existsSync(CHROMIUM)) {
    console.log(`console-canvas bench: SKIPPED: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
    return [];
  }
  const server = await serve(path.join(repoRoot(), 'dist', 'console'));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { chromium } = await import('playwright-core');
  // Headless Chromium ticks animation frames at 60 Hz whatever the flags, so a frame interval is
  // quantized: the baseline is the same pan over a blank page in the same browser, and a frame whose
  // work overran its tick shows as a second tick (33 ms or more).
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  let frames: number[] = [];
  let blank: number[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(`sessionStorage.setItem('flowplane.console.token', ${JSON.stringify(CONSOLE_TOKEN)})`);
    await page.goto(`${base}/console/flows/bench/canvas`);
    await page.waitForFunction(`document.querySelectorAll('.react-flow__node').length >= ${NODES}`, undefined, { timeout: 30_000 });
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    frames = await panFrames(page, pane);
    const empty = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await empty.setContent('<!doctype html><title>blank</title><div style="width:100vw;height:100vh"></div>');
    blank = await panFrames(empty, pane);
  } finally {
    await browser.close();
    server.close();
  }
  const p95 = pct(frames, 0.95);
  const base95 = pct(blank, 0.95);
  const dropped = frames.filter((f) => f > 1.5 * FRAME).length;
  const row: BenchResult = {
    name: `Console canvas, ${NODES}-node flow: frame interval while panning (ms, p95 of ${frames.length} frames) vs the same pan on a blank page`,
    ours: p95,
    baseline: base95,
    unit: 'ms',
    ratio: base95 / p95,
    notes: `median ${pct(frames, 0.5).toFixed(1)} ms, p99 ${pct(frames, 0.99).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms, ${dropped} frames over 1.5 ticks (blank page: median ${pct(blank, 0.5).toFixed(1)}, max ${Math.max(...blank).toFixed(1)} ms); goal: no dropped 60 Hz frame at p95`,
  };
  console.log(`${row.name}: ${row.ours.toFixed(1)} vs ${row.baseline.toFixed(1)} ms (ratio ${row.ratio.toFixed(2)}) ${row.notes}`);
  return [row];
}

type Box = { x: number; y: number; width: number; height: number };
type BenchPage = Awaited<ReturnType<Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>['newPage']>>;

/** Drags the pointer in circles over `box` (a warm-up, then the measured pan) and returns the frame intervals. */
async function panFrames(page: BenchPage, box: Box): Promise<number[]> {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const pan = async (moves: number) => {
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 0; i < moves; i++) {
      const a = (i / moves) * Math.PI * 4;
      await page.mouse.move(cx + Math.cos(a) * 250, cy + Math.sin(a) * 150);
    }
    await page.mouse.up();
  };
  await pan(30);
  await page.evaluate(() => {
    // Evaluated in the page; this file compiles without the DOM library.
    const g = globalThis as unknown as { frames_: number[]; recording_: boolean; requestAnimationFrame(cb: (t: number) => void): void };
    g.frames_ = [];
    g.recording_ = true;
    let last = performance.now();
    const tick = (t: number) => {
      g.frames_.push(t - last);
      last = t;
      if (g.recording_) g.requestAnimationFrame(tick);
    };
    g.requestAnimationFrame(tick);
  });
  await pan(240);
  return page.evaluate(() => {
    const g = globalThis as unknown as { frames_: number[]; recording_: boolean };
    g.recording_ = false;
    return g.frames_.slice(1);
  });
}
