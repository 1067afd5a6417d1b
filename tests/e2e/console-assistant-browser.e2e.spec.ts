import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIntegration } from '@flowplane/platform/testing';
import type { Standalone } from '../../apps/standalone/src/standalone';
import { call, json, token, until } from '../support/http';
import { axeViolations, CONSOLE_SHOTS, NO_CHROMIUM, startConsoleRig } from '../support/browser';

/**
 * The admin console's assistant and operations areas in Chromium, served by the gateway at
 * /console/ under its CSP, against an in-process platform: a handoff filed on the public route is
 * marked contacted; a knowledge document ingested through the console is cited by the rag template
 * (switched to in the template picker) in the embedded <flowplane-chat>; the transcript shows the
 * turns as text and the source as a link; the usage charts show the model calls just made; every
 * operations view answers from its admin route. axe-core on every page; screenshots to
 * artifacts/browser/console/<area>-<state>.png.
 */

const SHOTS = CONSOLE_SHOTS;

describeIntegration('admin console assistant and operations areas in Chromium', NO_CHROMIUM, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let base: string;
  let api: string;
  let admin: string;
  let handoffId: string;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    ({ platform, api, base, admin, browser } = await startConsoleRig());
    // Two chats on the default template (one model call each on the local provider, recorded in the usage ledger).
    for (const message of ['Where is my parcel?', 'Do you ship abroad?']) {
      const sent = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ message }) });
      expect(sent.status).toBe(200);
      expect(sent.text).toContain('event: message');
    }
    // Every handoff request mailed (an event-source flow, so the outbox and the subscriptions have a row).
    expect((await call(`${api}/flows/templates/activate`, { method: 'POST', bearer: admin, ...json({ templateId: 'assistant/handoff-notification' }) })).status).toBeLessThan(300);
    // A handoff request on the public route, as the widget files it.
    const filed = await call(`${api}/assistant/handoff`, { method: 'POST', ...json({ sessionId: 'console-handoff-1', email: 'ada@example.com', reason: 'Refund for order 42', priority: 'high' }) });
    expect(filed.status).toBe(201);
    handoffId = filed.body.handoffId;
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await platform?.close();
  });

  const open = async (path: string, bearer = admin): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`${path}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 40[13]/.test(m.text()) && !m.location().url.endsWith('/favicon.ico')) errors.push(`${path}: ${m.text()}`);
    });
    await page.goto(`${base}${path}#token=${bearer}`);
    await page.locator('h1').first().waitFor();
    return page;
  };

  const axe = axeViolations;

  const shoot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    expect(await axe(page)).toEqual([]);
  };

  it('shows Assistant and Operations in the navigation only to callers with admin:access', async () => {
    const page = await open('assistant');
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await nav.getByRole('link', { name: 'Assistant' }).waitFor();
    await nav.getByRole('link', { name: 'Operations' }).waitFor();
    const stranger = await open('assistant', await token('bob', []));
    await stranger.getByText('missing permission: admin:access').waitFor();
    expect(await stranger.getByRole('link', { name: 'Assistant' }).count()).toBe(0);
    expect(await stranger.getByRole('link', { name: 'Operations' }).count()).toBe(0);
  });

  it('marks a pending handoff contacted with a note', async () => {
    const page = await open('assistant/handoffs');
    const card = page.locator('article.handoff', { hasText: 'ada@example.com' });
    await card.getByText('Refund for order 42').waitFor();
    await shoot(page, 'assistant-handoffs');
    await card.getByLabel('Notes').fill('Called back');
    await card.getByRole('button', { name: 'Mark contacted' }).click();
    await page.getByRole('status').filter({ hasText: 'Marked Contacted: ada@example.com.' }).waitFor();
    const stored = await until(
      () => call(`${api}/assistant/handoffs/${handoffId}`, { bearer: admin }),
      (r) => r.body.status === 'contacted',
    );
    expect(stored.body).toMatchObject({ status: 'contacted', notes: 'Called back', contactedBy: 'alice' });
    // The pending list no longer holds it; the contacted one does, with resolve and dismiss left.
    await page.getByLabel('Status').selectOption('contacted');
    const contacted = page.locator('article.handoff', { hasText: 'ada@example.com' });
    await contacted.getByRole('button', { name: 'Resolve' }).waitFor();
    expect(await contacted.getByRole('button', { name: 'Mark contacted' }).count()).toBe(0);
  });

  it('ingests a document, switches to the rag template in the picker, and the embedded chat cites the document', async () => {
    const page = await open('assistant/knowledge');
    // Checked before sending: nothing is sent without text.
    await page.getByLabel('Id').fill('refunds');
    await page.getByLabel('Title').fill('Refund policy');
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.getByText('The document has no text.').waitFor();
    await page.getByLabel('Address (optional)').fill('https://example.com/refunds');
    await page.getByLabel('Text', { exact: true }).fill('# Refunds\n\nRefunds are paid within 14 days of the return.');
    await page.getByRole('button', { name: 'Ingest' }).click();
    await page.getByRole('cell', { name: 'refunds', exact: true }).waitFor();
    await shoot(page, 'assistant-knowledge');

    const templates = await open('assistant/templates');
    await templates.getByRole('cell', { name: 'T4b' }).waitFor();
    await templates.getByText(/Published now: assistant@v1 \(Assistant \(default\)\)/).waitFor();
    await shoot(templates, 'assistant-templates');
    await templates.getByRole('button', { name: 'Switch to rag', exact: true }).click();
    await templates.getByText(/The assistant now runs rag \(assistant@v\d+\)/).waitFor();
    await templates.getByText(/Published now: assistant@v\d+ \(.*rag.*\)/i).waitFor();

    const chat = await open('assistant/try');
    const box = chat.locator('flowplane-chat textarea');
    await box.waitFor();
    await box.fill('When are refunds paid?');
    await box.press('Enter');
    const answer = chat.locator('flowplane-chat li.msg.assistant.completed');
    await answer.waitFor({ timeout: 15_000 });
    expect(await answer.innerText()).toContain('[1]');
    const cited = answer.locator('footer.sources a');
    expect(await cited.innerText()).toBe('Refund policy');
    expect(await cited.getAttribute('href')).toBe('https://example.com/refunds');
    await shoot(chat, 'assistant-try');
  }, 60_000);

  it('lists chats and shows a transcript: turns as text, the source as a link', async () => {
    const page = await open('assistant/chats');
    await page.getByRole('columnheader', { name: 'Session' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    await shoot(page, 'assistant-chats');
    // The newest chat is the one of the embedded widget.
    await page.locator('tbody tr').first().getByRole('link').click();
    await page.locator('li.turn-user', { hasText: 'When are refunds paid?' }).waitFor();
    const reply = page.locator('li.turn-assistant').first();
    expect(await reply.locator('.turn-text').innerText()).toContain('14 days');
    expect(await reply.getByRole('link', { name: '[1] Refund policy' }).getAttribute('href')).toBe('https://example.com/refunds');
    await shoot(page, 'assistant-transcript');
  });

  it('shows per-variant stats as a chart with a table', async () => {
    const page = await open('assistant/stats');
    const row = page.getByRole('row', { name: /^stable/ });
    await row.waitFor();
    expect(await row.getByRole('cell').first().innerText()).toBe('3');
    await page.locator('[data-testid="stats-counts-chart"] canvas').waitFor();
    await shoot(page, 'assistant-stats');
  });

  it('shows the model calls just made in the usage charts by profile, model, flow and user', async () => {
    const page = await open('operations/usage');
    const byFlow = page.getByTestId('usage-flowId-table');
    const assistant = byFlow.getByRole('row', { name: /^assistant/ });
    await assistant.waitFor();
    // Two chats on default, one on rag: one model call each.
    expect(Number(await assistant.getByRole('cell').first().innerText())).toBeGreaterThanOrEqual(3);
    for (const field of ['profileId', 'model', 'flowId', 'userId']) await page.locator(`[data-testid="usage-${field}-chart"] canvas`).waitFor();
    expect(await page.getByTestId('usage-model-table').innerText()).toContain('local-echo');
    await page.getByRole('region', { name: 'Calls in this range' }).getByRole('cell', { name: 'local/local-echo' }).first().waitFor();
    await shoot(page, 'operations-usage');
  });

  it('shows service health with the bus figures and probes the bus', async () => {
    const page = await open('operations');
    await page.getByText('All services ready').waitFor();
    for (const service of ['gateway', 'flow-runtime', 'assistant', 'search', 'hub']) await page.getByRole('rowheader', { name: service, exact: true }).waitFor();
    // Every consumer group with its lag and partitions, as the bus reports them.
    const groups = page.getByRole('region', { name: 'Consumer groups' });
    await groups.getByRole('rowheader', { name: 'flow-runtime-probe', exact: true }).waitFor();
    const row = groups.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'flow-runtime-probe', exact: true }) });
    // `npm start` runs one in-process bus for every service: each reports every group.
    await expect(row.getByRole('cell').nth(0).textContent()).resolves.toBe('every service (one in-process bus)');
    await expect(row.getByRole('cell').nth(2).textContent()).resolves.toMatch(/^\d+$/);
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toMatch(/^p0 /);
    await page.getByRole('button', { name: 'Probe the bus' }).click();
    await page.getByText(/Every service answered in \d+ ms\./).waitFor({ timeout: 10_000 });
    await shoot(page, 'operations-health');
  });

  it('shows scheduler entries, event-source subscriptions, the hub and the mail outbox', async () => {
    await call(`${api}/flows/schedules/console-nightly`, { method: 'PUT', bearer: admin, ...json({ cron: '0 2 * * *', topic: 'console.nightly' }) });
    const schedules = await open('operations/schedules');
    await schedules.getByRole('rowheader', { name: /console-nightly/ }).waitFor();
    await schedules.getByLabel('Enabled: console-nightly').click();
    await until(
      () => call(`${api}/flows/schedules/console-nightly`, { bearer: admin }),
      (r) => r.body.enabled === false,
    );
    await shoot(schedules, 'operations-schedules');

    const subs = await open('operations/subscriptions');
    const handoffTopic = subs.getByRole('row', { name: /^assistant\.handoff_requested/ });
    await handoffTopic.waitFor();
    expect(await handoffTopic.innerText()).toContain('active');
    await shoot(subs, 'operations-subscriptions');

    const hub = await open('operations/hub');
    await hub.getByText('Connections', { exact: true }).waitFor();
    await shoot(hub, 'operations-hub');

    await until(
      () => call(`${api}/admin/mail/outbox`, { bearer: admin }),
      (r) => r.body.items?.length > 0,
      10_000,
    );
    const mail = await open('operations/mail');
    const sent = mail.locator('article').first();
    await sent.waitFor();
    await sent.getByText('Body').click();
    await shoot(mail, 'operations-mail');
  });

  it('queries a search index in the playground', async () => {
    const page = await open('operations/search');
    await page.getByRole('rowheader', { name: 'docs' }).waitFor();
    await page.getByLabel('Index').selectOption('docs');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Type what to search for.').waitFor();
    await page.getByLabel('Text', { exact: true }).fill('refunds paid');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('rowheader', { name: /refunds#0/ }).waitFor();
    await shoot(page, 'operations-search');
  });

  it('deletes a knowledge document after asking', async () => {
    const ingested = await call(`${api}/admin/assistant/ingest`, { method: 'POST', bearer: admin, ...json({ documents: [{ id: 'old-faq', title: 'Old FAQ', text: 'Shipping takes a week.' }] }) });
    expect(ingested.status).toBeLessThan(300);
    const page = await open('assistant/knowledge');
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete old-faq' }).click();
    await page.getByRole('cell', { name: 'old-faq', exact: true }).waitFor({ state: 'detached' });
    const left = await call(`${api}/admin/assistant/knowledge`, { bearer: admin });
    expect(left.body.documents.map((d: { id: string }) => d.id)).toEqual(['refunds']);
  });

  it('speaks Polish from the seeded catalog', async () => {
    const page = await open('operations/usage?lang=pl');
    await page.getByRole('heading', { name: 'Użycie i koszt modeli' }).waitFor();
    await page.getByRole('link', { name: 'Stan i magistrala' }).waitFor();
    await page.getByRole('link', { name: 'Asystent' }).waitFor();
  });

  it('logged no page errors and no CSP violations', () => {
    expect(errors).toEqual([]);
  });
});
