import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { type CliResult, expectTimeCapAndUsageExits, runCli } from '../support/cli';
import { call, json, TEST_SECRET, testEnv, token } from '../support/http';

/**
 * content-translate as users run it: the real binary (dist/, built by `npm test`) against a started
 * platform on the local provider (pseudo-localization), calling the run route in batches with a
 * progress line per call (stderr is not a TTY here) and the report; exit codes 0, 1 and 2.
 */

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/apps/cli/src/content-translate.js');

function translate(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(bin, args, env);
}

describe('content-translate', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const secret = { AUTH_JWT_SECRET: TEST_SECRET };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    for (const slug of ['one', 'two']) {
      const res = await call(`${api}/admin/content/pages/${slug}`, { method: 'PUT', bearer: admin, ...json({ title: { en: `Page ${slug}` }, body: { en: `<p>Text of ${slug}</p>` }, translationReady: true }) });
      expect(res.status).toBe(201);
    }
    expect((await call(`${api}/admin/content/pages/draft`, { method: 'PUT', bearer: admin, ...json({ title: { en: 'Draft' }, body: { en: '<p>Soon</p>' } }) })).status).toBe(201);
    const footer = { data: { label: { _i18n: { en: 'Contact us' } } }, translationReady: true };
    expect((await call(`${api}/admin/content/fragments/footer`, { method: 'PUT', bearer: admin, ...json(footer) })).status).toBe(201);
  }, 60_000);
  afterAll(() => platform?.close());

  const page = async (slug: string, lang: string) => (await call(`${api}/pages/${slug}?lang=${lang}`)).body as { title: string; body: string };

  it('--dry-run counts what needs translation and writes nothing', async () => {
    const r = await translate(['--pages=one', '--locales=de', '--dry-run', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dry run: 2 translation\(s\) needed; nothing written$/m);
    expect((await page('one', 'de')).title).toBe('Page one');
  });

  it('--pages and --locales translate only those pages into those locales', async () => {
    const r = await translate(['--pages=one', '--locales=de', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^translated 2 unit translation\(s\) in 1 record\(s\)/m);
    expect((await page('one', 'de')).title).toMatch(/^\[de\] /);
    expect((await page('two', 'de')).title).toBe('Page two');
  });

  it('--fragments translates only those fragments', async () => {
    const r = await translate(['--fragments=footer', '--locales=de', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect((await call(`${api}/fragments/footer?lang=de`)).body.data.label).toMatch(/^\[de\] /);
    expect((await page('two', 'de')).title).toBe('Page two');
  });

  it('loops call after call with a progress line each until nothing is left, lists what it skipped, and --force redoes', async () => {
    const r = await translate(['--batch=2', '--base-url', platform.url], secret);
    expect(r.stderr).not.toMatch(/failed:|error/);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('['));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[lines.length - 1]).toMatch(/^\[#{30}\] (\d+)\/\1 translations/);
    expect(r.stdout).toMatch(/^skipped: page draft: not ready$/m);
    expect((await page('two', 'pl')).body).toMatch(/^\[pl\] <p>.+<\/p>$/);
    const again = await translate(['--base-url', platform.url], secret);
    expect(again.stdout).toMatch(/^translated 0 unit translation\(s\)/m);
    const forced = await translate(['--pages=one', '--locales=de', '--force', '--base-url', platform.url], secret);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^translated 2 unit translation\(s\)/m);
  }, 30_000);

  it('exits 1 when the platform refuses or CLI_TIMEOUT is reached, 2 on usage errors', async () => {
    const refused = await translate(['--base-url', platform.url], { AUTH_JWT_SECRET: 'not-the-platform-secret-0123456789' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: the run answered 401/);
    expect((await translate(['--pages='])).code).toBe(2);
    expect((await translate(['--batch=0'])).code).toBe(2);
    await expectTimeCapAndUsageExits(translate, platform.url, secret);
  }, 30_000);
});
