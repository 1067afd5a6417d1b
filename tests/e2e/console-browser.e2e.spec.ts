import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIntegration, hasFile } from '@flowplane/platform/testing';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { passThroughFlow, publishFlow } from '../support/flows';
import { testEnv, token } from '../support/http';

/**
 * The admin console in a real browser (Chromium, headless) against an in-process platform, under the
 * gateway's real CSP: the development sign-in by `#token=` link (the token leaves the address bar),
 * the Flows landing page listing a flow published through the API, no console error and no CSP
 * violation, and an axe-core pass. Pages are saved as artifacts/browser/console/<page>.png.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = resolve(__dirname, '../..');
const SHOTS = join(ROOT, 'artifacts/browser/console');
const FLOW_NAME = 'Console smoke flow';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The page globals the evaluated functions use (this file compiles without the DOM library). */
interface Dom {
  __cspViolations: string[];
  sessionStorage: { getItem(k: string): string | null };
  document: { documentElement: { lang: string } };
  addEventListener(type: string, fn: (e: { violatedDirective: string; blockedURI: string }) => void): void;
  axe: { run(c: unknown, o: unknown): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }> }> };
}

describeIntegration('admin console in Chromium', hasFile(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let gateway: string;
  let admin: string;
  const contexts: BrowserContext[] = [];

  /** A fresh context (own sessionStorage) recording console errors, page errors and CSP violations. */
  const open = async (): Promise<{ page: Page; errors: string[] }> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      // The page names its icon (none), so Chromium asks for no /favicon.ico: any error counts.
      if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.addInitScript(() => {
      const w = globalThis as unknown as Dom;
      w.__cspViolations = [];
      w.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    return { page, errors };
  };

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    // The console comes from the build (npm start and npm test run it first); a direct jest run builds it here.
    execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
    mkdirSync(SHOTS, { recursive: true });
    platform = await startStandalone({ env: testEnv() });
    gateway = platform.url;
    admin = await token('alice', ['admin:access']);
    await publishFlow(`${gateway}/api/v1`, admin, 'console-smoke', passThroughFlow, { name: FLOW_NAME });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  }, 60_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await platform?.close();
  });

  it('without a token, shows the development sign-in under the strict CSP', async () => {
    const { page, errors } = await open();
    await page.goto(`${gateway}/console/`);
    await page.getByRole('heading', { name: 'Sign in to Flowplane' }).waitFor();
    expect(await page.locator('#token').isVisible()).toBe(true);
    await shot(page, 'sign-in');
    expect(await page.evaluate(() => (globalThis as unknown as Dom).__cspViolations)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('signs in from a #token= link (the token leaves the address bar) and lands on Flows, listing a published flow', async () => {
    const { page, errors } = await open();
    await page.goto(`${gateway}/console/#token=${admin}`);
    await page.getByRole('link', { name: FLOW_NAME }).or(page.getByText(FLOW_NAME)).first().waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${gateway}/console/`);
    expect(page.url()).not.toContain(admin);
    expect(await page.evaluate(() => (globalThis as unknown as Dom).sessionStorage.getItem('flowplane.console.token'))).toBe(admin);
    expect(await page.getByRole('heading', { name: 'Flows' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as Dom).document.documentElement.lang)).toBe('en');
    await shot(page, 'flows');

    // Evaluated through the DevTools protocol rather than added as a script tag: the page keeps its CSP.
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const { axe } = globalThis as unknown as Dom;
      const r = await axe.run((globalThis as unknown as Dom).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return r.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target) }));
    });
    expect(violations).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as Dom).__cspViolations)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('opens a deep link directly (SPA fallback) once signed in', async () => {
    const { page, errors } = await open();
    await page.goto(`${gateway}/console/#token=${admin}`);
    await page.getByText(FLOW_NAME).first().waitFor({ timeout: 15_000 });
    await page.goto(`${gateway}/console/flows?q=smoke`);
    await page.getByText(FLOW_NAME).first().waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (globalThis as unknown as Dom).__cspViolations)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
