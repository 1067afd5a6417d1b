import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { type CliResult, runCli } from '../support/cli';
import { call, json, TEST_SECRET, testEnv, token } from '../support/http';

/**
 * i18n-extract as users run it: the real binary (dist/, built by `npm test`) over TSX, JS and HTML
 * sources against a started platform, then the keys read back from the public catalog and the
 * admin rows (text, note, modules). Exit codes 0, 1 and 2.
 */

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/apps/cli/src/i18n-extract.js');
const secret = { AUTH_JWT_SECRET: TEST_SECRET };

function extract(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(bin, args, env);
}

/** A folder of sources (path → text) in a fresh temporary directory. */
function sources(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'i18n-extract-e2e-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('i18n-extract', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
  }, 60_000);
  afterAll(() => platform?.close());

  const catalog = async (ns: string) => (await call(`${api}/i18n/messages?ns=${ns}&locale=en`)).body.messages as Record<string, string>;
  const rows = async (ns: string) =>
    Object.fromEntries(((await call(`${api}/admin/i18n/translations?ns=${ns}`, { bearer: admin })).body.items as Array<{ key: string; context?: string; modules: string[] }>).map((r) => [r.key, r]));

  const shop = () =>
    sources({
      'src/Cart.tsx': [
        "import { $t } from '@flowplane/client';",
        'export const Cart = (p: { n: number }) => (',
        "  <section aria-label={$t('shop.cart.title', 'Cart')}>",
        "    <p>{$t('shop.cart.items', '{count, plural, one {# item} other {# items}}', { count: p.n })}</p>",
        "    <button>{$t('shop.pay', 'Pay')}</button>",
        '  </section>',
        ');',
      ].join('\n'),
      'src/checkout.js': "export const done = () => $t('shop.done', 'Thank you');\nexport const pay = () => $t('shop.pay', 'Pay now');\n",
      'public/index.html': "<h1>{{ $t('shop.home', 'Welcome') }}</h1>\n<script>document.title = $t('shop.head', 'Shop');</script>\n",
      'node_modules/lib/index.js': "$t('vendor.key', 'Vendor');\n",
      'i18n-contexts.json': JSON.stringify({ 'shop.*': 'Web shop', 'shop.cart.*': 'The cart panel', 'shop.pay': 'Button that pays' }),
    });

  it('--dry-run prints the JSON it would send (notes by the most specific match) and sends nothing', async () => {
    const dir = shop();
    const r = await extract([path.join(dir, 'src'), path.join(dir, 'public'), '--module', 'shop', '--ns', 'dry', '--contexts', path.join(dir, 'i18n-contexts.json'), '--dry-run', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { ns: string; keys: Array<{ key: string; text: string; module: string; context?: string }> };
    expect(body.ns).toBe('dry');
    expect(body.keys).toEqual([
      { key: 'shop.cart.title', text: 'Cart', module: 'shop', context: 'The cart panel' },
      { key: 'shop.cart.items', text: '{count, plural, one {# item} other {# items}}', module: 'shop', context: 'The cart panel' },
      { key: 'shop.pay', text: 'Pay', module: 'shop', context: 'Button that pays' },
      { key: 'shop.done', text: 'Thank you', module: 'shop', context: 'Web shop' },
      { key: 'shop.home', text: 'Welcome', module: 'shop', context: 'Web shop' },
      { key: 'shop.head', text: 'Shop', module: 'shop', context: 'Web shop' },
    ]);
    expect(r.stderr).toContain('"shop.pay" has the default "Pay now" here but "Pay"');
    expect(r.stderr).toContain('nothing sent');
    expect(await catalog('dry')).toEqual({});
  });

  it('reports the keys; they read back from the catalog with their notes and module; a second surface reusing them sends no note', async () => {
    const dir = shop();
    const first = await extract([path.join(dir, 'src'), path.join(dir, 'public'), '--module', 'shop', '--ns', 'web', '--contexts', path.join(dir, 'i18n-contexts.json'), '--base-url', platform.url], secret);
    expect(first.stderr).not.toContain('error');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^reported 6 key\(s\) from 3 file\(s\) as module shop: created 6, existing 0, contextUpdated 6, modulesAdded 6$/m);
    expect(await catalog('web')).toEqual({
      'shop.cart.title': 'Cart',
      'shop.cart.items': '{count, plural, one {# item} other {# items}}',
      'shop.pay': 'Pay',
      'shop.done': 'Thank you',
      'shop.home': 'Welcome',
      'shop.head': 'Shop',
    });
    expect((await rows('web'))['shop.pay']).toMatchObject({ context: 'Button that pays', modules: ['shop'] });

    // Another surface reuses two keys and brings one of its own, with a map that would annotate all three.
    const adminUi = sources({
      'ui/App.tsx': "export const A = () => <nav>{$t('shop.pay', 'Pay!')}{$t('shop.home', 'Home')}{$t('admin.title', 'Admin')}</nav>;\n",
      'i18n-contexts.json': JSON.stringify({ '*': 'Admin console' }),
    });
    // Without --contexts the map is ./i18n-contexts.json of the working directory: none here, so no notes.
    const second = await extract([path.join(adminUi, 'ui'), '--module', 'admin-ui', '--ns', 'web', '--base-url', platform.url], secret);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('created 1, existing 2, contextUpdated 0');

    const withNotes = await extract([path.join(adminUi, 'ui'), '--module', 'admin-ui', '--ns', 'web', '--contexts', path.join(adminUi, 'i18n-contexts.json'), '--base-url', platform.url], secret);
    expect(withNotes.code).toBe(0);
    expect(withNotes.stdout).toContain('created 0, existing 3, contextUpdated 1');
    expect(withNotes.stderr).toContain('2 key(s) belong to another module and are reported without their note: shop.pay (shop), shop.home (shop)');
    const after = await rows('web');
    expect(after['shop.pay']).toMatchObject({ context: 'Button that pays', modules: ['shop', 'admin-ui'] });
    expect(after['shop.home']).toMatchObject({ context: 'Web shop', modules: ['shop', 'admin-ui'] });
    expect(after['admin.title']).toMatchObject({ context: 'Admin console', modules: ['admin-ui'] });
    expect((await catalog('web'))['shop.pay']).toBe('Pay');

    // The owner's map is authoritative for its keys: a changed note replaces the stored one.
    writeFileSync(path.join(dir, 'i18n-contexts.json'), JSON.stringify({ 'shop.*': 'Web shop', 'shop.cart.*': 'The cart panel', 'shop.pay': 'Pays the order' }));
    const again = await extract([path.join(dir, 'src'), path.join(dir, 'public'), '--module', 'shop', '--ns', 'web', '--contexts', path.join(dir, 'i18n-contexts.json'), '--base-url', platform.url], secret);
    expect(again.stdout).toContain('created 0, existing 6, contextUpdated 1');
    expect((await rows('web'))['shop.pay'].context).toBe('Pays the order');
  });

  it('exit codes: 2 for usage errors, 1 for an unreachable platform or the time cap', async () => {
    const dir = shop();
    const src = path.join(dir, 'src');
    expect((await extract([src])).stderr).toContain('--module <name> is required');
    expect((await extract([src])).code).toBe(2);
    expect((await extract(['--module', 'shop'])).code).toBe(2);
    expect((await extract([path.join(dir, 'nope'), '--module', 'shop'])).stderr).toContain('no such file or folder');
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ 'a*b': 'x' }));
    const badMap = await extract([src, '--module', 'shop', '--contexts', path.join(dir, 'bad.json')]);
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toContain('a glob has one "*", at its end');
    expect((await extract([src, '--module', 'shop', '--colour'])).code).toBe(2);
    expect((await extract([src, '--module', 'shop'], { CLI_TIMEOUT: 'soon' })).code).toBe(2);

    const down = await extract([src, '--module', 'shop', '--base-url', 'http://127.0.0.1:1'], secret);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/error: report-keys: .*http:\/\/127\.0\.0\.1:1/);
    const capped = await extract([src, '--module', 'shop', '--ns', 'capped', '--contexts', path.join(dir, 'i18n-contexts.json'), '--base-url', platform.url], { ...secret, CLI_TIMEOUT: '1ms' });
    expect(capped.code).toBe(1);
    expect(capped.stderr).toContain('stopped: CLI_TIMEOUT (1 ms) reached');
    expect(await catalog('capped')).toEqual({});
  });
});

describe('i18n-extract against a production platform (I18N_AUTOREGISTER=false)', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    platform = await startStandalone({ env: testEnv({ I18N_AUTOREGISTER: 'false' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
  }, 60_000);
  afterAll(() => platform?.close());

  const web = () =>
    sources({
      'src/App.tsx': "export const App = () => <main>{$t('prod.title', 'Orders')}{$t('prod.pay', 'Pay')}</main>;\n",
      'i18n-contexts.json': JSON.stringify({ 'prod.pay': 'Button that pays the order' }),
    });
  const rows = async () =>
    Object.fromEntries(((await call(`${api}/admin/i18n/translations?ns=prod`, { bearer: admin })).body.items as Array<{ key: string; translations: Record<string, string>; context?: string; modules: string[] }>).map((r) => [r.key, r]));

  it('seeds the keys with an admin token while the public route answers 404', async () => {
    const pub = await call(`${api}/i18n/report-keys`, { method: 'POST', ...json({ keys: [{ key: 'prod.x', text: 'X', module: 'web' }] }) });
    expect(pub.status).toBe(404);
    expect(pub.body.code).toBe('I18N_AUTOREGISTER_DISABLED');

    const dir = web();
    const args = [path.join(dir, 'src'), '--module', 'web', '--ns', 'prod', '--contexts', path.join(dir, 'i18n-contexts.json'), '--base-url', platform.url];
    const first = await extract(args, { FLOWPLANE_TOKEN: admin });
    expect(first.stderr).not.toContain('error');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('reported 2 key(s) from 1 file(s) as module web: created 2, existing 0, contextUpdated 1, modulesAdded 2');
    expect((await call(`${api}/i18n/messages?ns=prod&locale=en`)).body.messages).toEqual({ 'prod.title': 'Orders', 'prod.pay': 'Pay' });
    expect((await rows())['prod.pay']).toMatchObject({ context: 'Button that pays the order', modules: ['web'] });

    // Write-once: a changed default does not touch the stored text; a second module joins the key.
    writeFileSync(path.join(dir, 'src/App.tsx'), "export const App = () => <main>{$t('prod.title', 'All orders')}</main>;\n");
    const again = await extract([path.join(dir, 'src'), '--module', 'console', '--ns', 'prod', '--base-url', platform.url], { AUTH_JWT_SECRET: TEST_SECRET });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('created 0, existing 1, contextUpdated 0, modulesAdded 1');
    expect((await rows())['prod.title']).toMatchObject({ translations: { en: 'Orders' }, modules: ['web', 'console'] });
  });

  it('refuses without admin rights: 401 and 403 from the admin route, the disabled public route without a credential', async () => {
    const dir = web();
    const args = [path.join(dir, 'src'), '--module', 'web', '--ns', 'refused', '--base-url', platform.url];
    const user = await extract(args, { FLOWPLANE_TOKEN: await token('bob', []) });
    expect(user.code).toBe(1);
    expect(user.stderr).toMatch(/error: report-keys: POST \/admin\/i18n\/report-keys answered 403/);
    const none = await extract(args, { AUTH_JWT_SECRET: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/error: report-keys: POST \/i18n\/report-keys answered 404 I18N_AUTOREGISTER_DISABLED: .*admin\/i18n\/report-keys/);
    expect((await call(`${api}/i18n/messages?ns=refused&locale=en`)).body.messages).toEqual({});

    const body = { ns: 'refused', keys: [{ key: 'k', text: 'K', module: 'web' }] };
    expect((await call(`${api}/admin/i18n/report-keys`, { method: 'POST', ...json(body) })).status).toBe(401);
    const unknown = await call(`${api}/admin/i18n/report-keys`, { method: 'POST', bearer: admin, ...json({ ...body, extra: 1 }) });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('extra');
  });
});
