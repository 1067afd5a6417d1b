import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasFile } from '@flowplane/platform/testing';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { testEnv, token } from './http';

/** Debian's Chromium (what CI installs); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The skip reason of a browser suite, or false when Chromium is there. */
export const NO_CHROMIUM: string | false = hasFile(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

/** Headless Chromium as the browser suites run it. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

let axeSource: string | undefined;

/**
 * The WCAG 2.1 A and AA violations axe-core finds on the page, one line each (rule and targets).
 * axe is evaluated through the DevTools protocol rather than added as a script tag, so the page
 * keeps its Content-Security-Policy.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate((axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')));
  return page.evaluate(async () => {
    const g = globalThis as unknown as {
      axe: { run(c: unknown, o: unknown): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
      document: unknown;
    };
    const r = await g.axe.run(g.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

const ROOT = resolve(__dirname, '../..');

/** Where the console's browser suites save their screenshots. */
export const CONSOLE_SHOTS = join(ROOT, 'artifacts/browser/console');

/** What every console browser suite starts from. */
export interface ConsoleRig {
  platform: Standalone;
  /** The gateway's `/api/v1`. */
  api: string;
  /** The console's root, `/console/`. */
  base: string;
  /** A token of `alice` with `perms`. */
  admin: string;
  browser: Browser;
}

/**
 * The built console (npm start and npm test build it first; a direct jest run builds it here), the
 * screenshot folder, a platform on `npm start` defaults, an admin token and headless Chromium.
 */
export async function startConsoleRig(perms: string[] = ['admin:access']): Promise<ConsoleRig> {
  execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(CONSOLE_SHOTS, { recursive: true });
  const platform = await startStandalone({ env: testEnv() });
  return { platform, api: `${platform.url}/api/v1`, base: `${platform.url}/console/`, admin: await token('alice', perms), browser: await launchChromium() };
}
