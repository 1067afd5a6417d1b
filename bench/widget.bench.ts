import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BenchResult } from './bench-result';
import { CHROMIUM, quantile, repoRoot } from './browser-pages';

/**
 * The chat widget: its bundle gzipped beside the 30 KB limit, and the time from navigation to an
 * interactive chat (the module loaded, the panel rendered with its message box, the config read) on
 * the demo page in Chromium, beside a bare page that loads an empty module script, same server, same
 * run. A small local server answers the widget's two start-up calls at once, so the figure is the
 * widget's own cost, not the platform's. Both pages load cold (a new browser context per sample).
 */

const SAMPLES = Number(process.env.WIDGET_BENCH_SAMPLES ?? 15);
const LIMIT = 30 * 1024;


const median = (xs: number[]) => quantile(xs, 0.5);

function serve(widgetDir: string): Promise<Server> {
  const files: Record<string, [string, string]> = {
    '/widget/': ['text/html; charset=utf-8', readFileSync(path.join(widgetDir, 'index.html'), 'utf8')],
    '/widget/flowplane-chat.js': ['text/javascript; charset=utf-8', readFileSync(path.join(widgetDir, 'flowplane-chat.js'), 'utf8')],
    '/bare/': ['text/html; charset=utf-8', '<!doctype html><html lang="en"><title>bare</title><script type="module" src="./empty.js"></script><main>bare</main>'],
    '/bare/empty.js': ['text/javascript; charset=utf-8', 'globalThis.ready_ = performance.now();'],
    '/api/v1/assistant/config': ['application/json', JSON.stringify({ flowId: 'assistant', flowName: 'Assistant', handoffEnabled: true, anonymousAllowed: true, chatTtlDays: 30, maxMessageChars: 4000, capabilities: { handoff: true, escalation: false, streaming: true } })],
    '/api/v1/i18n/messages': ['application/json', JSON.stringify({ locale: 'en', namespace: 'widget', messages: {} })],
  };
  const server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0]];
    res.writeHead(file ? 200 : 404, { 'content-type': file?.[0] ?? 'text/plain', 'cache-control': 'no-store' });
    res.end(file?.[1] ?? '');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function run(): Promise<BenchResult[]> {
  const widgetDir = path.join(repoRoot(), 'dist', 'widget');
  const bundle = readFileSync(path.join(widgetDir, 'flowplane-chat.js'));
  const gzipped = gzipSync(bundle, { level: 9 }).length;
  const rows: BenchResult[] = [
    {
      name: 'Chat widget bundle gzipped (bytes) vs the 30 KB limit',
      ours: gzipped,
      baseline: LIMIT,
      unit: 'bytes',
      ratio: LIMIT / gzipped,
      notes: `${bundle.length} bytes minified; ratio = headroom (limit / size)`,
    },
  ];
  if (!existsSync(CHROMIUM)) {
    console.log(`widget bench: time to interactive SKIPPED: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
    return rows;
  }
  const server = await serve(widgetDir);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  const widget: number[] = [];
  const bare: number[] = [];
  try {
    const sample = async (url: string, ready: string): Promise<number> => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'commit' });
        const handle = await page.waitForFunction(ready, undefined, { polling: 2, timeout: 10_000 });
        return Number(await handle.jsonValue());
      } finally {
        await context.close();
      }
    };
    // Interactive: the message box is in the shadow DOM and the config has been read (the element's
    // `config`), stamped with performance.now(), i.e. milliseconds since navigation started.
    const widgetReady = `(() => { const el = document.querySelector('flowplane-chat'); return !!(el && el.config && el.shadowRoot && el.shadowRoot.querySelector('textarea')) && performance.now(); })()`;
    const bareReady = `globalThis.ready_ || false`;
    await sample(`${base}/widget/`, widgetReady);
    await sample(`${base}/bare/`, bareReady);
    for (let i = 0; i < SAMPLES; i++) {
      widget.push(await sample(`${base}/widget/`, widgetReady));
      bare.push(await sample(`${base}/bare/`, bareReady));
    }
  } finally {
    await browser.close();
    server.close();
  }
  const ours = median(widget);
  const baseline = median(bare);
  rows.push({
    name: `Chat widget demo page: navigation to interactive (ms, median of ${SAMPLES}, cold) vs a page loading an empty module`,
    ours,
    baseline,
    unit: 'ms',
    ratio: baseline / ours,
    notes: `widget costs ${(ours - baseline).toFixed(1)} ms more; widget p90 ${quantile(widget, 0.9).toFixed(1)} ms, bare p90 ${quantile(bare, 0.9).toFixed(1)} ms; config and catalog answered at once by the bench's own server, so the figure is the page's cost alone`,
  });
  for (const r of rows) console.log(`${r.name}: ${r.ours.toFixed(1)} vs ${r.baseline.toFixed(1)} ${r.unit} (ratio ${r.ratio.toFixed(2)}) ${r.notes ?? ''}`);
  return rows;
}
