import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIntegration } from '@flowplane/platform/testing';
import type { Standalone } from '../../apps/standalone/src/standalone';
import { call, json, token } from '../support/http';
import { axeViolations, CONSOLE_SHOTS, NO_CHROMIUM, startConsoleRig } from '../support/browser';

/**
 * The admin console's deployments, profiles and module settings in Chromium, served by the
 * gateway at /console/ under its CSP, against an in-process platform: a route deployment with two
 * variants created in the form and called from its "try" form, the route conflict naming the
 * deployment that holds it, the disable toggle; a profile with a secret that reads masked after a
 * reload, re-entry asked when the base URL changes, a duplicate; a localized setting edited per
 * locale and its override cleared. axe-core on every page. Screenshots: artifacts/browser/console/.
 */

const SHOTS = CONSOLE_SHOTS;
const MASK = '\u2022'.repeat(8);

describeIntegration('admin console deployments, profiles and settings in Chromium', NO_CHROMIUM, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let base: string;
  let api: string;
  let admin: string;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];

  const flow = (id: string, template: string) => ({
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'end', name: 'End', kind: 'end' },
      { id: 'say', name: 'Say', kind: 'action', action_ref: 'svc/template-render', config: { template } },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'say' },
      { id: 'e2', from: 'say', to: 'end' },
    ],
    id,
  });

  beforeAll(async () => {
    ({ platform, api, base, admin, browser } = await startConsoleRig(['admin:access', 'profiles:*']));
    // Two published flows to split a route between, as the README builds them.
    for (const [id, text] of [
      ['greeter-a', 'Hello, {{input.body.customer}}!'],
      ['greeter-b', 'Welcome, {{input.body.customer}}!'],
      ['greeter-c', 'Hi, {{input.body.customer}}!'],
    ]) {
      expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id, name: id }) })).status).toBe(201);
      const { id: _omit, ...doc } = flow(id, text);
      expect((await call(`${api}/flows/${id}/versions`, { method: 'POST', bearer: admin, ...json(doc) })).status).toBe(201);
      expect((await call(`${api}/flows/${id}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: `${id}@v1` }) })).status).toBe(200);
    }
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await platform?.close();
    expect(errors).toEqual([]);
  });

  const open = async (path: string, bearer = admin): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => errors.push(`${path}: ${e.message}`));
    page.on('console', (m) => {
      // Refused answers are made on purpose here (the 409 conflict, the 404 of a disabled route).
      if (m.type() === 'error' && !/status of 40[01349]/.test(m.text()) && !m.location().url.endsWith('/favicon.ico')) errors.push(`${path}: ${m.text()}`);
    });
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${base}${path}#token=${bearer}`);
    await page.locator('h1').first().waitFor();
    return page;
  };

  const axe = axeViolations;

  it('creates a route deployment with two variants in the form and calls its route from the try form', async () => {
    const page = await open('deployments');
    await page.getByRole('link', { name: 'Deployments' }).waitFor();
    await page.getByRole('button', { name: 'New deployment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Greetings');
    await page.getByLabel('Id (optional, made from the name)').fill('greetings');
    await page.getByLabel(/^Labels/).fill('x-route=POST /greet/{name}\ntag:shop');
    await page.getByLabel('Flow').first().fill('greeter-a');
    await page.getByLabel('Weight').first().fill('90');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.getByLabel('Flow').nth(1).fill('greeter-b');
    await page.getByLabel('Weight').nth(1).fill('10');
    await page.locator('.split', { hasText: 'stable 90%, canary 10%' }).first().waitFor();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/console\/deployments\/greetings$/);
    const stored = await call(`${api}/deployments/greetings`, { bearer: admin });
    expect(stored.body).toMatchObject({ kind: 'route', route: { method: 'POST', path: '/greet/{name}' }, tags: ['shop'], variants: [{ label: 'stable', flowId: 'greeter-a', weight: 90 }, { label: 'canary', flowId: 'greeter-b', weight: 10 }] });
    await page.getByRole('heading', { name: 'Contributes' }).waitFor();

    await page.getByLabel('Path parameter name').fill('Ada');
    await page.getByLabel('JSON body').fill('{"customer": "Ada"}');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.try-status', { hasText: '200' }).waitFor();
    expect(await page.locator('.try-status').innerText()).toMatch(/variant (stable|canary)/);
    expect(await page.locator('pre.try-body').innerText()).toMatch(/(Hello|Welcome), Ada!/);
    await page.screenshot({ path: join(SHOTS, 'deployments-detail.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  }, 60_000);

  it('shows the route conflict with the deployment that holds the route, linked', async () => {
    const page = await open('deployments');
    await page.getByRole('button', { name: 'New deployment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Greetings again');
    await page.getByLabel('Flow').first().fill('greeter-c');
    // A route deployment without a route: the server's 400 shows beside the labels field.
    await page.getByRole('button', { name: 'Create' }).click();
    const labels = page.getByLabel(/^Labels/);
    await page.locator('.field-error', { hasText: 'x-route:' }).waitFor();
    expect(await labels.getAttribute('aria-invalid')).toBe('true');
    await labels.fill('x-route=POST /greet/{who}');
    await page.getByRole('button', { name: 'Create' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'belongs to deployment Greetings' });
    await alert.waitFor();
    expect(await alert.getByRole('link', { name: 'Open greetings' }).getAttribute('href')).toBe('/console/deployments/greetings');
    await page.screenshot({ path: join(SHOTS, 'deployments-conflict.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });

  it('edits the variants\' weights, disables the deployment with the toggle (its route then answers 404) and lists it with tags and state', async () => {
    const page = await open('deployments/greetings');
    // Edit: an even split, saved with PATCH, the bar follows.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Weight').first().fill('1');
    await page.getByLabel('Weight').nth(1).fill('1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#variants-title ~ .split', { hasText: 'stable 50%, canary 50%' }).waitFor();
    expect((await call(`${api}/deployments/greetings`, { bearer: admin })).body.variants.map((v: { weight: number }) => v.weight)).toEqual([1, 1]);
    await page.getByRole('button', { name: 'Disabled' }).click();
    await page.getByText('This deployment is disabled').waitFor();
    expect((await call(`${api}/deployments/greetings`, { bearer: admin })).body.disabled).toBe(true);
    await page.getByLabel('Path parameter name').fill('Ada');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.try-status', { hasText: '404' }).waitFor();

    await page.getByRole('link', { name: 'Deployments' }).first().click();
    const row = page.getByRole('row').filter({ hasText: 'Greetings' });
    await row.getByText('disabled').waitFor();
    expect(await row.getByRole('listitem').allInnerTexts()).toEqual(['shop']);
    await page.screenshot({ path: join(SHOTS, 'deployments-list.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });

  it('creates a profile with a secret that reads masked after a reload, asks for it again when the base URL changes, and duplicates it', async () => {
    const page = await open('profiles');
    await page.screenshot({ path: join(SHOTS, 'profiles-list.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'New LLM chat profile' }).click();
    await page.getByLabel('Profile id').fill('team-openai');
    await page.getByLabel('Name', { exact: true }).fill('Team OpenAI');
    await page.getByLabel(/^Provider/).selectOption('openai');
    await page.getByLabel('API key', { exact: true }).fill('sk-team-secret');
    await page.getByLabel('Temperature').fill('0.3');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/console\/profiles\/llm\/llm-chat\/team-openai$/);

    await page.reload();
    const key = page.getByLabel('API key', { exact: true });
    await key.waitFor();
    expect(await key.inputValue()).toBe(MASK);
    expect(await page.content()).not.toContain('sk-team-secret');
    await page.screenshot({ path: join(SHOTS, 'profile-masked.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);

    // Saved untouched, the mask goes back as is and the stored secret stays.
    await page.getByLabel('Temperature').fill('0.5');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor().catch(async (e) => {
      throw new Error(`${e}\n${await page.locator('main').innerText()}`);
    });
    const get = await call(`${api}/admin/profiles/llm/llm-chat/team-openai`, { bearer: admin });
    expect(get.body).toMatchObject({ config: { apiKey: MASK, temperature: 0.5 }, secretsSet: ['apiKey'] });

    // A new base URL needs the secret typed again, before anything is sent.
    await page.getByLabel('Base URL').fill('https://llm.example.com/v1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Type this secret again').waitFor();
    expect((await call(`${api}/admin/profiles/llm/llm-chat/team-openai`, { bearer: admin })).body.config.baseURL).toBeUndefined();

    await page.goto(`${base}profiles/llm/llm-chat/team-openai`);
    await page.getByLabel('New id').fill('team-openai-2');
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.waitForURL(/\/team-openai-2$/);
    expect((await call(`${api}/admin/profiles/llm/llm-chat/team-openai-2`, { bearer: admin })).body).toMatchObject({ config: { apiKey: MASK }, secretsSet: ['apiKey'] });
  }, 60_000);

  it('edits a localized setting per locale and clears the override so the default applies', async () => {
    const page = await open('settings');
    await page.getByRole('link', { name: 'Site' }).click();
    await page.getByRole('group', { name: /Site name/ }).waitFor();
    const pl = page.locator('.locale-row', { hasText: 'pl' }).locator('input');
    await pl.fill('Akme');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor().catch(async (e) => {
      throw new Error(`${e}\n${await page.locator('main').innerText()}`);
    });
    let site = await call(`${api}/admin/settings/site`, { bearer: admin });
    let name = site.body.fields.find((f: { key: string }) => f.key === 'name');
    expect(name).toMatchObject({ value: { en: 'Flowplane', pl: 'Akme' }, localeSources: { en: 'default', pl: 'stored' } });
    await page.screenshot({ path: join(SHOTS, 'settings-site.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);

    await page.getByRole('button', { name: 'Use the default for pl of Site name' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor().catch(async (e) => {
      throw new Error(`${e}\n${await page.locator('main').innerText()}`);
    });
    site = await call(`${api}/admin/settings/site`, { bearer: admin });
    name = site.body.fields.find((f: { key: string }) => f.key === 'name');
    expect(name.localeSources?.pl).not.toBe('stored');
  });

  it('shows the profiles area only with a profiles permission, and says which one is missing', async () => {
    const plain = await token('bob', ['admin:access']);
    const page = await open('settings', plain);
    expect(await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Profiles & settings' }).getAttribute('href')).toBe('/console/settings');
    await page.getByRole('link', { name: 'Profiles', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'profiles:read, profiles:write, profiles:*' }).waitFor();
  });
});
