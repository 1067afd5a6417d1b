import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ProfileResolver } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, tempDir, TEST_SECRET, token } from '../support/http';

/**
 * Secrets at rest, as an operator sees them: what the files under DATA_DIR contain and which
 * permissions they have, what a restart with the same, no, a wrong or a rotated SECRETS_KEY does,
 * and how a start refuses a damaged journal. One DATA_DIR for the whole suite, one platform at a time.
 */

const API_KEY = 'sk-at-rest-0123456789-canary';
const SETTING_KEY = 'llm-setting-canary-9876543210';
const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');

describe('secrets at rest (embedded store under DATA_DIR)', () => {
  const dataDir = tempDir('secrets-at-rest');
  let platform: Standalone | undefined;
  let admin: string;

  const start = (secretsKey: string | undefined) => {
    const env: Record<string, string | undefined> = { ...process.env, PORT: '0', STORE: 'embedded', DATA_DIR: dataDir, AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', SECRETS_KEY: secretsKey };
    if (secretsKey === undefined) delete env.SECRETS_KEY;
    return startStandalone({ env });
  };
  const stop = async () => {
    await platform?.close();
    platform = undefined;
  };
  /** Every file under DATA_DIR, recursively. */
  const files = (dir = dataDir): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const dirs = (dir = dataDir): string[] =>
    [dir, ...readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => dirs(path.join(dir, e.name)))];
  const onDisk = () => files().map((f) => readFileSync(f, 'latin1')).join('\n');
  /** The profile as flow-runtime's nodes get it: through the internal resolve path, secrets in clear. */
  const resolved = async (p: Standalone) =>
    (await p.services.find((s) => s.name === 'flow-runtime')!.app.get(ProfileResolver).resolve('llm', 'llm-chat', 'at-rest')).config;
  const startError = (secretsKey: string | undefined) =>
    start(secretsKey).then(
      async (p) => {
        await p.close();
        return undefined;
      },
      (e: unknown) => e as Error,
    );

  beforeAll(async () => {
    admin = await token('admin', ['admin:access', 'profiles:read', 'profiles:write', 'settings:read', 'settings:write'], { superuser: true });
    platform = await start(`k1:${K1}`);
    const put = await call(`${platform.url}/api/v1/admin/profiles`, {
      method: 'POST',
      bearer: admin,
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'at-rest', name: 'At rest', config: { providerID: 'openai', apiKey: API_KEY, model: 'gpt-4o-mini' } }),
    });
    expect(put.status).toBeLessThan(300);
    expect(put.body.config.apiKey).not.toBe(API_KEY); // masking in responses is unchanged
    const setting = await call(`${platform.url}/api/v1/admin/settings/llm`, { method: 'PUT', bearer: admin, ...json({ values: { api_key: SETTING_KEY } }) });
    expect(setting.status).toBe(200);
    expect(await resolved(platform)).toMatchObject({ apiKey: API_KEY });
    await stop();
  }, 60_000);

  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the API key and the sensitive setting out of every file on disk', () => {
    const text = onDisk();
    expect(text).toContain('at-rest'); // the profile is there...
    expect(text).toContain('enc:v1:k1:'); // ...with its secret sealed
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(SETTING_KEY);
  });

  it('writes DATA_DIR and every directory under it 0700, every file 0600', () => {
    expect(files().length).toBeGreaterThan(5);
    for (const d of dirs()) expect([d, statSync(d).mode & 0o777]).toEqual([d, 0o700]);
    for (const f of files()) expect([f, statSync(f).mode & 0o777]).toEqual([f, 0o600]);
  });

  it('resolves the profile with its key after a restart with the same SECRETS_KEY', async () => {
    platform = await start(`k1:${K1}`);
    expect(await resolved(platform)).toMatchObject({ apiKey: API_KEY, model: 'gpt-4o-mini' });
    const shown = await call(`${platform.url}/api/v1/admin/profiles/llm/llm-chat/at-rest`, { bearer: admin });
    expect(shown.body.secretsSet).toEqual(['apiKey']);
    expect(shown.text).not.toContain(API_KEY);
    await stop();
  }, 60_000);

  it('refuses to start without SECRETS_KEY or with another key, naming SECRETS_KEY and the key id', async () => {
    const missing = await startError(undefined);
    expect(missing?.name).toBe('SecretsKeyError');
    expect(missing?.message).toContain('SECRETS_KEY: ');
    expect(missing?.message).toContain('SECRETS_KEY is not set');
    expect(missing?.message).toContain('add the key "k1"');
    expect(missing?.message).not.toContain(API_KEY);

    const wrong = await startError(`k1:${K2}`);
    expect(wrong?.message).toMatch(/SECRETS_KEY key "k1": that key is not the one it was sealed with/);
    const production = await startProductionError();
    expect(production?.message).toContain('SECRETS_KEY: is required when NODE_ENV=production');
  }, 60_000);

  async function startProductionError(): Promise<Error | undefined> {
    const env = { ...process.env, NODE_ENV: 'production', PORT: '0', STORE: 'embedded', DATA_DIR: dataDir, AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent' };
    delete (env as Record<string, string | undefined>).SECRETS_KEY;
    return startStandalone({ env }).then(
      async (p) => {
        await p.close();
        return undefined;
      },
      (e: unknown) => e as Error,
    );
  }

  it('rotates: a new first key re-seals on start, after which the old key can be dropped', async () => {
    platform = await start(`k2:${K2},k1:${K1}`);
    expect(await resolved(platform)).toMatchObject({ apiKey: API_KEY });
    await stop();
    const text = onDisk();
    expect(text).toContain('enc:v1:k2:');
    expect(text).not.toContain('enc:v1:k1:'); // the old journal records are compacted away too
    expect(text).not.toContain(API_KEY);

    platform = await start(`k2:${K2}`);
    expect(await resolved(platform)).toMatchObject({ apiKey: API_KEY });
    const setting = await call(`${platform.url}/api/v1/admin/settings/llm`, { bearer: admin });
    expect(setting.status).toBe(200);
    await stop();
  }, 60_000);

  it('refuses to start on a journal damaged in the middle, pointing at flowctl store verify and repair', async () => {
    const store = path.join(dataDir, 'deployments');
    platform = await start(`k2:${K2}`);
    await stop();
    const journal = path.join(store, readdirSync(store).filter((f) => /^journal-\d+\.jsonl$/.test(f)).sort().at(-1) as string);
    const good = readFileSync(journal, 'utf8');
    // Two records that read back, the first altered: corruption, not a torn tail.
    const record = (json: string) => `00000000 ${json}\n`;
    writeFileSync(journal, good + record('{"o":"d","c":"x","id":"a"}') + good.split('\n').filter(Boolean).at(-1) + '\n');
    const err = await startError(`k2:${K2}`);
    expect(err?.message).toContain(`journal ${journal} is corrupt at byte ${good.length}`);
    expect(err?.message).toContain(`flowctl store verify ${store}`);
    expect(err?.message).toContain(`flowctl store repair ${store} --truncate-at-first-bad`);
    writeFileSync(journal, good);
  }, 60_000);
});
