import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIntegration, hasFile } from '@flowplane/platform/testing';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/**
 * `<flowplane-chat>` in a real browser (Chromium, headless) against an in-process platform: the
 * demo page answers with the echo template, streams with default-stream, shows sources with rag,
 * files a handoff (and shows the duplicate answer), survives a dropped stream, refuses a message
 * over the limit, shows 429/503/offline states, renders model HTML as text, switches to Polish,
 * works from another site through one script tag, is usable by keyboard and passes axe-core.
 * Each state is saved as artifacts/browser/widget/<state>.png.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = resolve(__dirname, '../..');
const SHOTS = join(ROOT, 'artifacts/browser/widget');
const INJECTION = readFileSync(join(__dirname, '../fixtures/prompt-injection.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { text: string; label: string })
  .find((r) => r.label === 'injection')!.text;

const manual = {
  id: 'returns-manual',
  title: 'Returns manual',
  url: 'https://help.example.com/returns',
  format: 'markdown',
  text: ['# Returns', '', 'Refunds are paid back to the original card within 14 days of the return arriving at our warehouse.', '', '## Shipping', '', 'Parcels to Norway take five working days by road.'].join('\n'),
};

/** The page globals the evaluated functions use (this file compiles without the DOM library). */
interface Dom {
  document: { querySelector(s: string): { shadowRoot: { activeElement: { id: string; className: string } | null }; setAttribute(n: string, v: string): void } };
  localStorage: Record<string, string>;
  __xss?: number;
  axe: { run(c: unknown, o: unknown): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }>; passes: unknown[] }> };
}

describeIntegration('chat widget in Chromium', hasFile(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let site: Server;
  let siteOrigin: string;
  let gateway: string;
  let api: string;
  let admin: string;
  const contexts: BrowserContext[] = [];

  const reset = async (template: string) => {
    const r = await call(`${api}/admin/assistant/reset?template=${template}`, { method: 'POST', bearer: admin });
    expect(r.status).toBe(200);
  };

  /** A fresh browser context (own localStorage, so a new chat) on the demo page, the panel ready. */
  const demo = async (opts: { bypassCSP?: boolean; setup?: (page: Page) => Promise<void> } = {}): Promise<Page> => {
    const context = await browser.newContext({ bypassCSP: opts.bypassCSP ?? false, viewport: { width: 900, height: 720 } });
    contexts.push(context);
    const page = await context.newPage();
    await opts.setup?.(page);
    await page.goto(`${gateway}/widget/`);
    await page.locator('flowplane-chat textarea').waitFor();
    return page;
  };

  /** The document the rag template answers from (ingesting it again replaces it). */
  const ingestManual = async () => {
    const ingest = await call(`${api}/admin/assistant/ingest`, { method: 'POST', bearer: admin, ...json({ documents: [manual] }) });
    expect(ingest.status).toBe(200);
  };

  const shot = (page: Page, state: string) => page.screenshot({ path: join(SHOTS, `${state}.png`) });

  /** Sends a message through the keyboard (Enter) and waits for its answer to end. */
  const ask = async (page: Page, text: string) => {
    const replies = page.locator('flowplane-chat li.msg.assistant[aria-busy]');
    const before = await replies.count();
    await page.locator('flowplane-chat textarea').fill(text);
    await page.locator('flowplane-chat textarea').press('Enter');
    await until(
      async () => ({ n: await replies.count(), busy: await replies.last().getAttribute('aria-busy', { timeout: 1000 }).catch(() => null) }),
      (s) => s.n > before && s.busy === 'false',
      15_000,
      50,
    );
    return replies.last();
  };

  /** Where the focus is inside the widget's shadow root. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = (globalThis as unknown as Dom).document.querySelector('flowplane-chat').shadowRoot.activeElement;
      return el ? el.id || el.className : null;
    });
  const focusMoves = (page: Page, to: string) => until(() => focused(page), (f) => f === to, 3_000, 25);

  beforeAll(async () => {
    // The bundle comes from the build (npm start and npm test run it first); a direct jest run builds it here.
    execFileSync(process.execPath, ['tools/build.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
    mkdirSync(SHOTS, { recursive: true });
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '0', SEARCH_EMBEDDING_DIM: '64' }) });
    gateway = platform.url;
    api = `${gateway}/api/v1`;
    admin = await token('alice', ['admin:access']);
    // Another site embedding the widget with one script tag (WIDGET_ALLOWED_ORIGINS defaults to *).
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="pl-PL"><title>Sklep</title><main><h1>Shop</h1></main><script type="module" src="${gateway}/widget/flowplane-chat.js"></script><flowplane-chat title="Shop help"></flowplane-chat>`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  }, 60_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await platform?.close();
    site?.close();
  });

  it('answers with the echo template: Enter sends, Shift+Enter breaks the line, the session is kept', async () => {
    await reset('echo');
    const page = await demo();
    const box = page.locator('flowplane-chat textarea');
    await box.fill('Hello');
    await box.press('Shift+Enter');
    await box.pressSequentially('widget');
    expect(await box.inputValue()).toBe('Hello\nwidget');
    await box.press('Enter');
    const answer = page.locator('flowplane-chat li.msg.assistant.completed');
    await answer.waitFor();
    expect(await answer.innerText()).toContain('Hello');
    expect(await box.inputValue()).toBe('');
    const session = await page.evaluate(() => Object.entries((globalThis as unknown as Dom).localStorage).find(([k]) => k.startsWith('flowplane-chat:session:'))?.[1]);
    expect(session).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    // The live region announces the completed answer (not each token).
    expect(await page.locator('flowplane-chat [aria-live="polite"][aria-atomic="true"]').innerText()).toContain('widget');
    // Thumbs up reaches the feedback route (the stats count it) and is shown as pressed.
    await answer.locator('button[aria-label="Helpful"]').click();
    await until(() => answer.locator('button[aria-label="Helpful"]').getAttribute('aria-pressed'), (v) => v === 'true', 5_000, 50);
    const stats = await call(`${api}/admin/assistant/stats`, { bearer: admin });
    expect(stats.body.variants.reduce((n: number, v: { up: number }) => n + v.up, 0)).toBeGreaterThan(0);
    await shot(page, 'echo');
    // A reload shows the same chat (the transcript of the stored session).
    await page.reload();
    await page.locator('flowplane-chat li.msg.user').waitFor();
    // "Clear chat" rotates the session id.
    await page.locator('flowplane-chat header button', { hasText: 'Clear chat' }).click();
    const rotated = await page.evaluate(() => Object.entries((globalThis as unknown as Dom).localStorage).find(([k]) => k.startsWith('flowplane-chat:session:'))?.[1]);
    expect(rotated).not.toBe(session);
    expect(await page.locator('flowplane-chat li.msg.user').count()).toBe(0);
  });

  it('streams with default-stream: several token frames render into one answer', async () => {
    await reset('default-stream');
    const page = await demo();
    const frames = page.waitForResponse((r) => r.url().endsWith('/api/v1/assistant/messages') && r.request().method() === 'POST').then((r) => r.text());
    const answer = await ask(page, 'Where is my parcel?');
    const body = await frames;
    expect(body.match(/^event: token$/gm)!.length).toBeGreaterThan(2);
    const final = JSON.parse(/event: message\ndata: (.*)/.exec(body)![1]) as { content: string };
    expect(await answer.locator('p').first().innerText()).toBe(final.content);
    await shot(page, 'stream');
  });

  it('shows the sources of a rag answer as a footer of links', async () => {
    await ingestManual();
    await reset('rag');
    const page = await demo();
    const answer = await ask(page, 'How long do refunds take?');
    const link = answer.locator('footer.sources a');
    expect(await link.first().getAttribute('href')).toBe(manual.url);
    expect(await link.first().innerText()).toBe(manual.title);
    await shot(page, 'rag');
  });

  it('shows a refusal as a refusal', async () => {
    await reset('default');
    const page = await demo();
    const answer = await ask(page, INJECTION);
    expect(await answer.getAttribute('class')).toContain('rejected');
    expect(await answer.locator('.tag').innerText()).toBe('Refused');
    await shot(page, 'refusal');
  });

  it('files a handoff from the form, then shows the duplicate answer; keyboard focus moves with the views', async () => {
    await reset('default');
    const page = await demo();
    await page.locator('flowplane-chat button.human').click();
    await focusMoves(page, 'hf-email');
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('My parcel is late');
    await page.locator('flowplane-chat #hf-priority').selectOption('high');
    await page.locator('flowplane-chat form.handoff button[type="submit"]').click();
    const status = page.locator('flowplane-chat form.handoff [role="status"]');
    await until(() => status.innerText(), (t) => t.length > 0, 5_000, 50);
    expect(await status.innerText()).toBe('Thank you. Someone from our team will contact you soon.');
    await shot(page, 'handoff');
    const stored = await call(`${api}/assistant/handoffs?status=pending`, { bearer: admin });
    expect(stored.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'ada@example.com', reason: 'My parcel is late', priority: 'high' })]));
    await page.locator('flowplane-chat form.handoff button[type="submit"]').click();
    await until(() => status.innerText(), (t) => t.startsWith('We already'), 5_000, 50);
    await shot(page, 'handoff-duplicate');
    // Escape goes back to the chat with the focus in the message box; Escape again closes the panel
    // and gives the focus to the launcher, Enter on it opens the panel again.
    await page.keyboard.press('Escape');
    await focusMoves(page, 'fc-input');
    await page.keyboard.type('A draft');
    await page.keyboard.press('Escape');
    await focusMoves(page, 'launcher');
    await page.keyboard.press('Enter');
    await focusMoves(page, 'fc-input');
    expect(await page.locator('flowplane-chat textarea').inputValue()).toBe('A draft');
  });

  it('survives a dropped stream: resumes with Last-Event-ID and completes the answer', async () => {
    await reset('default-stream');
    const resumed: Array<string | undefined> = [];
    const page = await demo({
      setup: async (p) => {
        // The first answer is cut after its second frame, as a network drop would.
        await p.route('**/api/v1/assistant/messages', async (route) => {
          const res = await route.fetch();
          const text = await res.text();
          const cut = text.split('\n\n').slice(0, 2).join('\n\n') + '\n\n';
          await route.fulfill({ response: res, body: cut });
        });
        p.on('request', (r) => {
          if (r.url().includes('/events')) resumed.push(r.headers()['last-event-id']);
        });
      },
    });
    const answer = await ask(page, 'Where is my parcel?');
    expect(await answer.getAttribute('class')).toContain('completed');
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0])).toBeGreaterThan(1);
    const sid = await page.evaluate(() => Object.entries((globalThis as unknown as Dom).localStorage).find(([k]) => k.startsWith('flowplane-chat:session:'))?.[1]);
    const chat = await call(`${api}/assistant/chats/me/${sid}`);
    const stored = chat.body.messages.filter((m: { role: string }) => m.role === 'assistant').pop().content as string;
    expect(await answer.locator('p').first().innerText()).toBe(stored);
    await shot(page, 'disconnect');
  });

  it('shows sources as links (http and https only) and actions as buttons that send or hand over to the page', async () => {
    await reset('echo');
    const synthetic = [
      'id: 1\nevent: session\ndata: {"sessionId":"synthetic-session-1","runId":"run-1","flowId":"assistant","versionId":"v1","variant":"stable"}',
      'id: 2\nevent: message\ndata: ' +
        JSON.stringify({
          content: 'Pick one:',
          sources: [{ title: 'Safe', url: 'https://example.com/a' }, { title: 'Unsafe', url: 'javascript:alert(1)' }],
          actions: [{ label: 'Open docs', url: 'https://example.com/docs' }, { label: 'Track my parcel', message: 'Where is my parcel?' }],
          status: 'completed',
        }),
    ].join('\n\n') + '\n\n';
    const page = await demo({
      setup: async (p) => {
        await p.route('**/api/v1/assistant/messages', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: synthetic }), { times: 1 });
      },
    });
    await page.evaluate(() => {
      const g = globalThis as unknown as Dom & { actions_: unknown[]; addEventListener(t: string, f: (e: { detail: unknown; preventDefault(): void }) => void): void };
      g.actions_ = [];
      g.addEventListener('flowplane-chat-action', (e) => {
        g.actions_.push(e.detail);
        if ((e.detail as { url?: string }).url) e.preventDefault();
      });
    });
    const answer = await ask(page, 'Show me options');
    expect(await answer.locator('footer.sources a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual([['Safe', 'https://example.com/a']]);
    expect(await answer.locator('footer.sources li').allInnerTexts()).toEqual(['Safe', 'Unsafe']);
    await answer.locator('.actions button', { hasText: 'Open docs' }).click();
    await answer.locator('.actions button', { hasText: 'Track my parcel' }).click();
    const next = page.locator('flowplane-chat li.msg.assistant.completed').last();
    await until(() => next.innerText(), (t) => t.includes('Where is my parcel?'), 10_000, 50);
    expect(await page.evaluate(() => (globalThis as unknown as { actions_: unknown[] }).actions_)).toEqual([
      { label: 'Open docs', url: 'https://example.com/docs' },
      { label: 'Track my parcel', message: 'Where is my parcel?' },
    ]);
    await shot(page, 'actions');
  });

  it('refuses a message over the limit before sending, shows 429 with when to retry, and 503 as offline', async () => {
    await reset('echo');
    let posts = 0;
    let answer: 'ok' | '429' | '503' = 'ok';
    const page = await demo({
      setup: async (p) => {
        await p.route('**/api/v1/assistant/messages', async (route) => {
          posts++;
          if (answer === '429') return route.fulfill({ status: 429, headers: { 'retry-after': '7', 'content-type': 'application/json' }, body: '{"statusCode":429,"code":"RATE_LIMITED","message":"slow down"}' });
          if (answer === '503') return route.fulfill({ status: 503, headers: { 'content-type': 'application/json' }, body: '{"statusCode":503,"code":"UNAVAILABLE","message":"down"}' });
          return route.continue();
        });
      },
    });
    const box = page.locator('flowplane-chat textarea');
    await box.fill('x'.repeat(4001));
    await box.press('Enter');
    const notice = page.locator('flowplane-chat #fc-notice');
    expect(await notice.innerText()).toBe('Your message has 4,001 characters; the limit is 4,000. Please shorten it.');
    expect(posts).toBe(0);
    await shot(page, 'too-long');
    answer = '429';
    const limited = await ask(page, 'Hello');
    expect(await limited.locator('.err').innerText()).toBe('Too many messages. Try again in 7 seconds.');
    await shot(page, 'rate-limited');
    answer = '503';
    await limited.locator('button', { hasText: 'Try again' }).click();
    await until(() => limited.locator('.err').innerText(), (t) => t.includes('offline'), 5_000, 50);
    answer = 'ok';
    await limited.locator('button', { hasText: 'Try again' }).click();
    await until(() => limited.getAttribute('class'), (c) => !!c?.includes('completed'), 5_000, 50);
  });

  it('renders a clear offline state when the config cannot be read', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.route('**/api/v1/assistant/config*', (route) => route.fulfill({ status: 503, body: '{}' }));
    await page.goto(`${gateway}/widget/`);
    const offline = page.locator('flowplane-chat .offline[role="alert"]');
    await offline.waitFor();
    expect(await offline.innerText()).toContain('The assistant is offline right now.');
    await shot(page, 'offline');
    await page.unroute('**/api/v1/assistant/config*');
    await offline.locator('button').click();
    await page.locator('flowplane-chat textarea').waitFor();
  });

  it('renders HTML in answers as text and Markdown as elements', async () => {
    await reset('echo');
    const page = await demo();
    const answer = await ask(page, '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> **bold** [link](javascript:window.__xss=3)');
    expect(await page.evaluate(() => (globalThis as unknown as Dom).__xss)).toBeUndefined();
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await answer.innerText()).toContain('<img src=x onerror="window.__xss=1">');
    expect(await answer.locator('strong').innerText()).toBe('bold');
    expect(await answer.locator('a').count()).toBe(0);
    await shot(page, 'markdown');
  });

  it('switches to Polish with the lang attribute (the seeded catalog)', async () => {
    await reset('echo');
    const page = await demo();
    await page.evaluate(() => (globalThis as unknown as Dom).document.querySelector('flowplane-chat').setAttribute('lang', 'pl'));
    const send = page.locator('flowplane-chat form.compose button[type="submit"]');
    await until(() => send.innerText(), (t) => t === 'Wyślij', 5_000, 50);
    expect(await page.locator('flowplane-chat textarea').getAttribute('placeholder')).toBe('Napisz wiadomość…');
    const box = page.locator('flowplane-chat textarea');
    await box.fill('x'.repeat(4002));
    await box.press('Enter');
    expect(await page.locator('flowplane-chat #fc-notice').innerText()).toBe('Twoja wiadomość ma 4002 znaki; limit to 4000. Skróć ją, proszę.');
    await box.fill('Cześć');
    await box.press('Enter');
    await page.locator('flowplane-chat li.msg.assistant.completed').waitFor();
    await shot(page, 'pl');
  });

  it('works on another site from one script tag (CORS), following the page language', async () => {
    await reset('echo');
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/`);
    await page.locator('flowplane-chat .launcher').click();
    await page.locator('flowplane-chat textarea').waitFor();
    expect(await page.locator('flowplane-chat h2').innerText()).toBe('Shop help');
    // No lang attribute: the page's <html lang="pl-PL"> picks the Polish catalog.
    await until(() => page.locator('flowplane-chat form.compose button[type="submit"]').innerText(), (t) => t === 'Wyślij', 5_000, 50);
    const answer = await ask(page, 'Hello from the shop');
    expect(await answer.innerText()).toContain('Hello from the shop');
    await shot(page, 'embedded');
  });

  it('passes axe-core (WCAG 2.1 A and AA), in the document and inside the shadow DOM', async () => {
    await ingestManual();
    await reset('rag');
    const page = await demo({ bypassCSP: true });
    expect(await (await ask(page, 'How long do refunds take?')).locator('footer.sources a').count()).toBeGreaterThan(0);
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const audit = (context: unknown) =>
      page.evaluate(async (ctx) => {
        const { axe, document } = globalThis as unknown as Dom;
        const r = await axe.run(ctx ?? document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return { violations: r.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) })), passes: r.passes.length };
      }, context);
    const inShadow = { include: [{ fromShadowDom: ['flowplane-chat', '.panel'] }] };
    const chat = await audit(inShadow);
    expect(chat.violations).toEqual([]);
    expect(chat.passes).toBeGreaterThan(5);
    expect((await audit(null)).violations).toEqual([]);
    await page.locator('flowplane-chat button.human').click();
    expect((await audit(inShadow)).violations).toEqual([]);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect((await audit(null)).violations).toEqual([]);
    await shot(page, 'axe-closed');
  });
});
