import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeIntegration } from '@flowplane/platform/testing';
import type { Standalone } from '../../apps/standalone/src/standalone';
import { fingerprint } from '../../libs/i18n/src/coverage/fingerprint';
import { TranslationRepository } from '../../libs/i18n/src/translations/persistence/translation.repository';
import { call, json } from '../support/http';
import { axeViolations, CONSOLE_SHOTS, NO_CHROMIUM, startConsoleRig } from '../support/browser';

/**
 * The console's Languages and Content areas in Chromium, served by the gateway at /console/ under
 * its CSP, against an in-process platform with the offline `local` translator: a locale activated in
 * the registry, a key added and machine-translated with translate-missing, one locale edited and its
 * provenance turned human, held translations approved and rejected, glossary, import (dry run then
 * apply) and export, coverage; a page edited, marked ready, translated, approved and read in German.
 * axe-core on every page; screenshots: artifacts/browser/console/languages-*.png and content-*.png.
 */

const SHOTS = CONSOLE_SHOTS;

describeIntegration('admin console languages and content in Chromium', NO_CHROMIUM, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let base: string;
  let api: string;
  let admin: string;
  let repository: TranslationRepository;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  const blockedScripts: string[] = [];

  beforeAll(async () => {
    ({ platform, api, base, admin, browser } = await startConsoleRig());
    repository = platform.services.find((s) => s.name === 'i18n')!.app.get(TranslationRepository);
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await platform?.close();
  });

  afterEach(() => {
    expect(errors.splice(0)).toEqual([]);
  });

  const open = async (path: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`${path}: ${e.message}`));
    page.on('console', (m) => {
      // A new page's editor first asks for the page (404 on purpose); Chromium asks for /favicon.ico by
      // itself; the preview's sandbox refuses the page body's script (the point of it, asserted below).
      if (m.type() !== 'error') return;
      if (/^Blocked script execution in 'about:srcdoc'/.test(m.text())) blockedScripts.push(path);
      else if (!/status of 404/.test(m.text()) && !m.location().url.endsWith('/favicon.ico')) errors.push(`${path}: ${m.text()}`);
    });
    await page.goto(`${base}${path}#token=${admin}`);
    await page.locator('h1').first().waitFor();
    return page;
  };

  const axe = axeViolations;

  const row = async (ns: string, key: string) => {
    const r = await call(`${api}/admin/i18n/translations?ns=${ns}&prefix=${key}`, { bearer: admin });
    return r.body.items.find((i: { key: string }) => i.key === key);
  };

  it('shows Languages and Content in the navigation and activates German in the locale registry', async () => {
    const page = await open('languages/locales');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Content' }).waitFor();
    await page.getByRole('button', { name: 'Add a locale' }).click();
    await page.getByLabel('Code (in URLs)').fill('de');
    await page.getByLabel('Name').fill('Deutsch');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('row', { name: /de.*Deutsch.*active/ }).waitFor();
    const de = await call(`${api}/admin/i18n/locales/de`, { bearer: admin });
    expect(de.body).toMatchObject({ code: 'de', languageTag: 'de', active: true });
    await page.screenshot({ path: join(SHOTS, 'languages-locales.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });

  it('adds a key, machine-translates it with translate-missing, and an edited locale turns human', async () => {
    const page = await open('languages?ns=e2e');
    await page.getByRole('button', { name: 'Add a key' }).first().click();
    await page.getByLabel('Key', { exact: true }).fill('greeting');
    await page.getByLabel('Text in the source language (en)').fill('Hello {name}');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('th code', { hasText: 'greeting' }).waitFor();
    await page.getByRole('button', { name: 'Translate missing' }).click();
    await page.locator('.fill-report', { hasText: 'Done.' }).waitFor();
    expect(await page.locator('#fill-progress').getAttribute('value')).toBe(await page.locator('#fill-progress').getAttribute('max'));
    await page.locator('.prov[data-locale="de"]', { hasText: 'machine · local/' }).waitFor();
    let r = await row('e2e', 'greeting');
    expect(r.translations.de).toMatch(/^\[de\] .*\{name\}/);
    expect(r.provenance.de).toMatchObject({ source: 'machine' });
    expect(r.provenance.pl).toMatchObject({ source: 'machine' });
    await page.screenshot({ path: join(SHOTS, 'languages-keys-translated.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);

    await page.getByRole('button', { name: 'Edit' }).first().click();
    await page.getByLabel('Text of greeting in de').fill('Hallo {name}');
    await page.getByLabel('Translator note').fill('Greeting in the header');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.prov[data-locale="de"]', { hasText: 'human · alice' }).waitFor();
    r = await row('e2e', 'greeting');
    expect(r.translations.de).toBe('Hallo {name}');
    expect(r.provenance.de).toMatchObject({ source: 'human', by: 'alice' });
    // Only the changed locale turned human: Polish stays machine text (now stale, since the note changed).
    expect(r.provenance.pl).toMatchObject({ source: 'machine' });
    expect(r.context).toBe('Greeting in the header');
    await page.locator('.prov[data-locale="pl"]', { hasText: 'stale' }).waitFor();
    // Missing in one locale is the API's own filter: the key with no French text shows, with French as its only column.
    await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'fr', name: 'Français' }) });
    await page.reload();
    await page.getByLabel('State').selectOption('missing');
    await page.getByLabel('Locale', { exact: true }).selectOption('fr');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.prov[data-locale="fr"]', { hasText: 'missing' }).waitFor();
    expect(await page.locator('table.grid thead th').allInnerTexts()).toEqual(['Key', 'fr', 'Actions']);
    await call(`${api}/admin/i18n/locales/fr`, { method: 'PUT', bearer: admin, ...json({ active: false }) });
    await page.getByLabel('Locale', { exact: true }).selectOption('');
    await page.getByLabel('State').selectOption('human');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('th code', { hasText: 'greeting' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'languages-keys-edited.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });

  it('approves a held translation after editing it, rejects another, beside source and what readers see', async () => {
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ ns: 'e2e', key: 'pay', translations: { en: 'Pay' }, context: 'salary, not a button' }) })).status).toBeLessThan(300);
    const at = new Date().toISOString();
    for (const locale of ['de', 'pl'])
      await repository.setPending(
        { ns: 'e2e', key: 'pay' },
        locale,
        { text: `${locale}: Bezahlen`, status: 'held', by: 'local/pseudo', source_hash: fingerprint('Pay'), context_hash: fingerprint('salary, not a button'), review: { ok: false, reason: 'wrong sense' }, at },
        new Date(),
      );
    const page = await open('languages/review');
    const de = page.locator('section.review', { hasText: '→ de' });
    await de.getByText('de: Bezahlen').waitFor();
    await de.getByText('reason: wrong sense').waitFor();
    await page.screenshot({ path: join(SHOTS, 'languages-review.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    await de.getByRole('button', { name: 'Edit, then approve' }).click();
    await de.getByLabel('Edited text in de').fill('Gehalt zahlen');
    await de.getByRole('button', { name: 'Approve the edited text' }).click();
    await de.waitFor({ state: 'detached' });
    await page.locator('section.review', { hasText: '→ pl' }).getByRole('button', { name: 'Reject' }).click();
    await page.locator('section.review', { hasText: '→ pl' }).getByText('Rejected').waitFor();
    const r = await row('e2e', 'pay');
    expect(r.translations.de).toBe('Gehalt zahlen');
    expect(r.provenance.de).toMatchObject({ source: 'human' });
    expect(r.translations.pl).toBeUndefined();
    expect(r.pending.pl).toMatchObject({ status: 'rejected' });
  });

  it('keeps a glossary, exports a file and imports one with a dry run first', async () => {
    let page = await open('languages/glossary');
    await page.getByRole('button', { name: 'Add a term' }).click();
    await page.getByLabel('Term 1', { exact: true }).fill('Flowplane');
    await page.getByLabel('Keep term 1 verbatim').check();
    await page.getByRole('button', { name: 'Save the glossary' }).click();
    await page.getByText('Glossary saved.').waitFor();
    expect((await call(`${api}/admin/i18n/glossary`, { bearer: admin })).body.entries).toEqual([{ term: 'Flowplane', doNotTranslate: true }]);
    await page.screenshot({ path: join(SHOTS, 'languages-glossary.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);

    page = await open('languages/files');
    await page.getByLabel('Namespace').first().fill('e2e');
    await page.locator('#ex-locale').selectOption('de');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('e2e.de.json');
    const exported = JSON.parse(require('node:fs').readFileSync(await download.path(), 'utf8'));
    expect(exported).toMatchObject({ greeting: 'Hallo {name}' });
    await page.locator('#im-file').setInputFiles({ name: 'e2e.de.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ greeting: 'Servus {name}' })) });
    await page.locator('#im-ns').fill('e2e');
    await page.locator('#im-locale').selectOption('de');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.locator('.import-report', { hasText: 'Dry run, nothing written' }).waitFor();
    expect((await row('e2e', 'greeting')).translations.de).toBe('Hallo {name}');
    await page.screenshot({ path: join(SHOTS, 'languages-files.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.import-report p', { hasText: /^Written: 0 created, 1 updated/ }).waitFor();
    expect((await row('e2e', 'greeting')).translations.de).toBe('Servus {name}');

    page = await open('languages/coverage');
    await page.locator('caption', { hasText: 'namespace e2e' }).waitFor();
    expect(await page.locator('meter').count()).toBeGreaterThan(2);
    await page.screenshot({ path: join(SHOTS, 'languages-coverage.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });

  it('edits a page, marks it ready, translates it, approves the German and serves it in German', async () => {
    let page = await open('content');
    await page.locator('.last-sweep').waitFor();
    await page.screenshot({ path: join(SHOTS, 'content-list.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'New page or fragment' }).click();
    await page.getByLabel('Slug or key').fill('welcome');
    await page.getByRole('button', { name: 'Open the editor' }).click();
    await page.waitForURL(/\/console\/content\/pages\/welcome/);
    await page.getByLabel('Title', { exact: true }).fill('Welcome');
    await page.getByLabel('Body (HTML)').fill('<p>Hello <b>readers</b></p><script>window.parent.hacked = 1</script>');
    await page.getByLabel('Ready for translation').check();
    await page.getByLabel('Hold translations for review').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.locator('td[data-unit="title"][data-locale="de"]', { hasText: 'missing' }).waitFor();
    await page.getByRole('button', { name: 'Translate now' }).click();
    await page.locator('.run-report', { hasText: '4 held for review' }).waitFor();
    await page.locator('td[data-unit="body"][data-locale="de"]', { hasText: 'pending review' }).waitFor();
    await page.getByRole('tab', { name: 'de' }).click();
    // Arrow keys move between the locale tabs.
    await page.getByRole('tab', { name: 'de' }).press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'pl' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'de' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('');
    await page.screenshot({ path: join(SHOTS, 'content-page-editor.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    // Nothing unreviewed reaches readers.
    expect((await call(`${api}/pages/welcome?lang=de`)).body.title).toBe('Welcome');

    page = await open('content/pages/welcome/preview?locale=de');
    await page.locator('.preview-title', { hasText: '[de] ' }).waitFor();
    const frame = page.frameLocator('iframe.preview-frame');
    await frame.locator('b').waitFor();
    expect(await page.locator('iframe.preview-frame').getAttribute('sandbox')).toBe('');
    expect(await page.evaluate(() => (globalThis as unknown as { hacked?: number }).hacked)).toBeUndefined();
    expect(blockedScripts).toEqual(['content/pages/welcome/preview?locale=de']);
    await page.screenshot({ path: join(SHOTS, 'content-preview.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);

    page = await open('content/review');
    const cards = page.locator('section.review', { hasText: 'Page welcome' });
    await cards.first().waitFor();
    expect(await cards.count()).toBe(4);
    await page.screenshot({ path: join(SHOTS, 'content-review.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
    for (const unit of ['title', 'body']) {
      const card = page.locator('section.review').filter({ has: page.locator('h2', { hasText: `${unit} → de` }) });
      await card.getByRole('button', { name: 'Approve', exact: true }).click();
      await card.waitFor({ state: 'detached' });
    }
    const served = await call(`${api}/pages/welcome?lang=de`);
    expect(served.status).toBe(200);
    expect(served.body.locale).toBe('de');
    expect(served.body.title).toMatch(/^\[de\] /);
    expect(served.body.body).toMatch(/^\[de\] <p>.*<b>.*<\/b><\/p>/);
    // Polish: the title edited then approved (human text), the body rejected (readers keep the source).
    expect((await call(`${api}/pages/welcome?lang=pl`)).body.title).toBe('Welcome');
    const plTitle = page.locator('section.review').filter({ has: page.locator('h2', { hasText: 'title → pl' }) });
    await plTitle.getByRole('button', { name: 'Edit, then approve' }).click();
    await plTitle.getByLabel('Edited title in pl').fill('Witamy');
    await plTitle.getByRole('button', { name: 'Approve the edited text' }).click();
    await plTitle.waitFor({ state: 'detached' });
    const plBody = page.locator('section.review').filter({ has: page.locator('h2', { hasText: 'body → pl' }) });
    await plBody.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('No translation waits for review.').waitFor();
    const pl = await call(`${api}/pages/welcome?lang=pl`);
    expect(pl.body).toMatchObject({ title: 'Witamy', body: expect.stringMatching(/^<p>Hello <b>readers<\/b><\/p>/) });
  });

  it('speaks Polish from the seeded catalog on both areas', async () => {
    for (const [path, title] of [
      ['languages?lang=pl', 'Języki'],
      ['content?lang=pl', 'Treści'],
    ]) {
      const page = await open(path);
      await page.locator('h1', { hasText: title }).waitFor();
      await page.getByRole('navigation', { name: 'Sekcje języków' }).or(page.getByRole('navigation', { name: 'Sekcje treści' })).waitFor();
      expect(await axe(page)).toEqual([]);
    }
  });

  it('shows a fragment’s marked leaves with their state per locale and translates them', async () => {
    const put = await call(`${api}/admin/content/fragments/footer`, {
      method: 'PUT',
      bearer: admin,
      ...json({ data: { links: [{ href: '/privacy', label: { _i18n: { en: 'Privacy', pl: 'Prywatność' } } }], copyright: '© [[ site.name ]]' }, translationReady: true }),
    });
    expect(put.status).toBeLessThan(300);
    const page = await open('content/fragments/footer');
    await page.getByRole('row', { name: /\/links\/0\/label/ }).getByRole('cell', { name: 'missing' }).waitFor();
    await page.getByRole('button', { name: 'Translate now' }).click();
    await page.locator('.run-report', { hasText: '1 translated' }).waitFor();
    await page.getByRole('row', { name: /\/links\/0\/label/ }).getByRole('cell', { name: 'missing' }).waitFor({ state: 'detached' });
    expect((await call(`${api}/fragments/footer?lang=de`)).body.data.links[0].label).toMatch(/^\[de\] /);
    await page.screenshot({ path: join(SHOTS, 'content-fragment-editor.png'), fullPage: true });
    expect(await axe(page)).toEqual([]);
  });
});
