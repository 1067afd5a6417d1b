import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { parseDuration } from '../../apps/cli/src/i18n-translate';
import { fingerprint } from '../../libs/i18n/src/coverage/fingerprint';
import { type CliResult, expectTimeCapAndUsageExits, runCli } from '../support/cli';
import { call, json, TEST_SECRET, testEnv, token } from '../support/http';

/**
 * i18n-translate as users run it: the real binary (dist/, built by `npm test`) against a started
 * platform on the local provider (pseudo-localization), looping translate-missing in small batches
 * with a progress line per call (stderr is not a TTY here) and a summary; exit codes 0, 1 and 2.
 */

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'dist/apps/cli/src/i18n-translate.js');

function translate(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(bin, args, env);
}

describe('CLI_TIMEOUT durations', () => {
  it('reads 90s, 5m, 1h, milliseconds and 0', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1500')).toBe(1500);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('5 minutes')).toBeUndefined();
  });
});

describe('i18n-translate', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const secret = { AUTH_JWT_SECRET: TEST_SECRET };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    // The flows stay off: the command does the work here. Three keys per call: several calls.
    platform = await startStandalone({ env: testEnv({ I18N_AUTO_TRANSLATE_DISABLED: 'true', I18N_TRANSLATE_KEYS_PER_REQUEST: '3' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    for (let i = 0; i < 7; i++) {
      const res = await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: `cli.k${i}`, translations: { en: `Item {count} number ${i}` } }) });
      expect(res.status).toBeLessThan(300);
    }
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'other.k', translations: { en: 'Elsewhere' } }) })).status).toBeLessThan(300);
  }, 60_000);
  afterAll(() => platform?.close());

  const rows = async (prefix: string) => (await call(`${api}/admin/i18n/translations?prefix=${prefix}`, { bearer: admin })).body.items as Array<{ key: string; translations: Record<string, string>; provenance?: Record<string, { source: string }> }>;

  it('--dry-run counts what needs translation and writes nothing', async () => {
    const r = await translate(['--prefix=cli.', '--dry-run', '--base-url', platform.url], secret);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dry run: 7 key\(s\) need translation \(3 in the first batch\); nothing written$/m);
    expect((await rows('cli.')).every((row) => !row.translations.de)).toBe(true);
  });

  it('--keys translates only those keys', async () => {
    const r = await translate(['--keys=cli.k0, cli.k1', '--locales=de', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^translated 2 key\(s\): 2 locale\(s\) filled/m);
    const byKey = Object.fromEntries((await rows('cli.')).map((row) => [row.key, row]));
    expect(byKey['cli.k0'].translations.de).toContain('{count}');
    expect(byKey['cli.k2'].translations.de).toBeUndefined();
  });

  it('loops batch after batch with a progress line per call until nothing is left, then prints the summary', async () => {
    const r = await translate(['--prefix=cli.', '--base-url', platform.url], secret);
    expect(r.stderr).not.toMatch(/failed|error/);
    expect(r.code).toBe(0);
    // 5 keys left for de and 7 for pl, three per call: progress lines, the last one complete.
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('['));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[lines.length - 1]).toMatch(/^\[#{30}\] (\d+)\/\1 keys/);
    expect(r.stdout).toMatch(/^translated 7 key\(s\): 12 locale\(s\) filled \(\d+ from translation memory\), 0 held for review, 0 failed, 0 protected skipped; \d+ model call\(s\), \d+ tokens, \$0\.0000$/m);
    for (const row of await rows('cli.')) {
      expect(row.translations.de).toBeTruthy();
      expect(row.translations.pl).toBeTruthy();
      expect(row.provenance?.de?.source).toBe('machine');
    }
    expect((await rows('other.'))[0].translations.de).toBeUndefined();
    // Idempotent: a second run finds nothing to do.
    const again = await translate(['--prefix=cli.', '--base-url', platform.url], secret);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^translated 0 key\(s\): 0 locale\(s\) filled/m);
  }, 30_000);

  it('re-translates machine text whose source changed, without --overwrite', async () => {
    const before = (await rows('cli.k5'))[0];
    expect(before.provenance?.de?.source).toBe('machine');
    const edited = await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'cli.k5', translations: { en: 'Changed {count} wording' } }) });
    expect(edited.status).toBe(200);
    const r = await translate(['--prefix=cli.', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^translated 1 key\(s\): 2 locale\(s\) filled/m);
    const after = (await rows('cli.k5'))[0] as { translations: Record<string, string>; provenance: Record<string, { source: string; source_hash?: string }> };
    expect(after.translations.de).not.toBe(before.translations.de);
    expect(after.translations.de).toContain('{count}');
    expect(after.provenance.de).toMatchObject({ source: 'machine', source_hash: fingerprint('Changed {count} wording') });
    expect(after.provenance.pl.source_hash).toBe(fingerprint('Changed {count} wording'));
    // The other keys were current and stay as they were.
    const again = await translate(['--prefix=cli.', '--base-url', platform.url], secret);
    expect(again.stdout).toMatch(/^translated 0 key\(s\)/m);
  }, 30_000);

  it('keeps human text without --overwrite --include-protected', async () => {
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'cli.k3', translations: { de: 'Von Hand' } }) })).status).toBeLessThan(300);
    const r = await translate(['--keys=cli.k3', '--overwrite', '--base-url', platform.url], secret);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/[1-9]\d* protected skipped/);
    expect((await rows('cli.k3'))[0].translations.de).toBe('Von Hand');
  });

  it('exits 1 when the platform refuses or CLI_TIMEOUT is reached, 2 on usage errors', async () => {
    const refused = await translate(['--base-url', platform.url], { AUTH_JWT_SECRET: 'not-the-platform-secret-0123456789' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: translate-missing answered 401/);
    expect((await translate(['--include-protected'])).code).toBe(2);
    expect((await translate(['--keys='])).code).toBe(2);
    await expectTimeCapAndUsageExits(translate, platform.url, secret);
  }, 30_000);
});

/**
 * An OpenAI-compatible chat endpoint standing in for a real model in these tests: it answers each
 * translation call with "(<locale>) <text>" for the locales `answered` picks from those asked for.
 */
async function modelStub(answered: (text: string, targets: string[]) => string[]): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const payload = JSON.parse(body.messages[body.messages.length - 1].content);
      const targets: string[] = (payload.targets ?? []).map((t: { locale: string }) => t.locale);
      const content = JSON.stringify(Object.fromEntries(answered(payload.text, targets).map((l) => [l, `(${l}) ${payload.text}`])));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('i18n-translate against a model that fails a locale once', () => {
  let platform: Standalone;
  let stub: Server;
  let stubUrl: string;
  let api: string;
  let admin: string;
  let flakyCalls = 0;
  const secret = { AUTH_JWT_SECRET: TEST_SECRET };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    // Answers every locale asked for, except `de` of the text "Flaky" while its first calls last
    // (the first call and its repair round): that cell fails in one batch and lands in the next.
    stub = await modelStub((text, targets) => {
      const flaky = text === 'Flaky' && flakyCalls++ < 2;
      return targets.filter((l) => !(flaky && l === 'de'));
    });
    stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
    platform = await startStandalone({ env: testEnv({ I18N_AUTO_TRANSLATE_DISABLED: 'true', I18N_TRANSLATE_KEYS_PER_REQUEST: '1', LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', AI_CONCURRENCY: '1' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access', 'profiles:*']);
    const profile = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'stub', name: 'Stub', config: { providerID: 'openai-compatible', baseURL: stubUrl, model: 'stub-model' } }),
    });
    expect(profile.status).toBe(201);
    expect((await call(`${api}/admin/settings/ai`, { method: 'PUT', bearer: admin, ...json({ values: { profile: 'stub' } }) })).status).toBe(200);
    // i18n reads the ai settings at most once a second (AiSettings), so the switch is seen after that.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    for (const [key, text] of [['f.a', 'Flaky'], ['f.b', 'Steady']]) {
      expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key, translations: { en: text } }) })).status).toBeLessThan(300);
    }
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await new Promise<void>((resolve) => stub?.close(() => resolve()));
  });

  it('exits 0 when a cell one call reported failed was filled by a later call', async () => {
    const r = await translate(['--prefix=f.', '--base-url', platform.url], secret);
    const rows = (await call(`${api}/admin/i18n/translations?prefix=f.`, { bearer: admin })).body.items as Array<{ key: string; translations: Record<string, string> }>;
    expect(rows.find((row) => row.key === 'f.a')?.translations.de).toBe('(de) Flaky');
    expect(flakyCalls).toBeGreaterThanOrEqual(2);
    expect(r.stderr).not.toMatch(/^failed:/m);
    expect(r.code).toBe(0);
  }, 60_000);
});

describe('i18n-translate --overwrite after switching from the local provider to a model', () => {
  let platform: Standalone;
  let stub: Server;
  let api: string;
  let admin: string;
  const secret = { AUTH_JWT_SECRET: TEST_SECRET };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm test" (it builds first) or "npm run build"`);
    // A model that answers every locale asked for with "(<locale>) <text>".
    stub = await modelStub((_text, targets) => targets);
    // Two keys per call: the overwrite takes several calls and has to end by itself.
    platform = await startStandalone({ env: testEnv({ I18N_AUTO_TRANSLATE_DISABLED: 'true', I18N_TRANSLATE_KEYS_PER_REQUEST: '2', LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access', 'profiles:*']);
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    for (const [key, text] of [['sw.a', 'Open'], ['sw.b', 'Close'], ['sw.c', 'Save']]) {
      expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key, translations: { en: text } }) })).status).toBeLessThan(300);
    }
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await new Promise<void>((resolve) => stub?.close(() => resolve()));
  });

  const de = async () => Object.fromEntries(((await call(`${api}/admin/i18n/translations?prefix=sw.`, { bearer: admin })).body.items as Array<{ key: string; translations: Record<string, string> }>).map((r) => [r.key, r.translations.de]));

  it('replaces the pseudo-localized machine text with the model\'s, keeps human text, and ends', async () => {
    const local = await translate(['--prefix=sw.', '--base-url', platform.url], secret);
    expect(local.code).toBe(0);
    const pseudo = await de();
    expect(pseudo['sw.a']).toBeTruthy();
    expect(pseudo['sw.a']).not.toBe('(de) Open');
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'sw.c', translations: { de: 'Speichern' } }) })).status).toBe(200);

    const profile = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'stub', name: 'Stub', config: { providerID: 'openai-compatible', baseURL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`, model: 'stub-model' } }),
    });
    expect(profile.status).toBe(201);
    expect((await call(`${api}/admin/settings/ai`, { method: 'PUT', bearer: admin, ...json({ values: { profile: 'stub' } }) })).status).toBe(200);
    // i18n reads the ai settings at most once a second (AiSettings), so the switch is seen after that.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    // Without --overwrite the current machine text stays.
    const plain = await translate(['--prefix=sw.', '--base-url', platform.url], secret);
    expect(plain.stdout).toMatch(/^translated 0 key\(s\)/m);

    const r = await translate(['--prefix=sw.', '--overwrite', '--base-url', platform.url], secret);
    expect(r.stderr).not.toMatch(/failed|error|stopped/);
    expect(r.code).toBe(0);
    // de and pl of sw.a and sw.b, pl of sw.c; the human de of sw.c is left alone.
    expect(r.stdout).toMatch(/^translated 3 key\(s\): 5 locale\(s\) filled .* [1-9]\d* protected skipped/m);
    expect(await de()).toEqual({ 'sw.a': '(de) Open', 'sw.b': '(de) Close', 'sw.c': 'Speichern' });
  }, 60_000);
});
