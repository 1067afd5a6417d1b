import { randomBytes } from 'node:crypto';
import { SecretsKeyError, SecretsKeyring } from '@flowplane/platform/config';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { SettingsRegistry } from '../domain/settings.registry';
import { SettingsRepository } from './settings.repository';

const key = () => randomBytes(32).toString('base64');
const registry = new SettingsRegistry([
  {
    module: 'shop',
    fields: [
      { key: 'api_key', type: 'string', label: 'API key', sensitive: true },
      { key: 'token', type: 'secret', label: 'Token' },
      { key: 'config', type: 'json', label: 'Config', sensitive: true },
      { key: 'margin', type: 'number', label: 'Margin' },
    ],
  },
]);

describe('SettingsRepository secrets at rest', () => {
  let store: Store;
  const repo = (keyring?: SecretsKeyring) => new SettingsRepository(store, registry, keyring);
  const raw = () => store.collection<Record<string, unknown> & { _id: string }>('settings').find({}, { sort: { _id: 1 } });
  const save = (r: SettingsRepository, values: Record<string, unknown>) =>
    store.withTransaction(async (session) => {
      for (const [k, v] of Object.entries(values)) await r.save('shop', k, v, session);
    });

  beforeEach(async () => {
    store = await createMemoryStore();
  });
  afterEach(() => store.close());

  it('seals sensitive and secret-typed values of any JSON type, keeps the others as JSON text', async () => {
    const r = repo(SecretsKeyring.parse(`k1:${key()}`));
    await save(r, { api_key: 'k-123', token: 't-456', config: { nested: ['secret-789'] }, margin: 0.35 });
    const docs = await raw();
    expect(JSON.stringify(docs)).not.toMatch(/k-123|t-456|secret-789/);
    expect(docs.find((d) => d.key === 'margin')).toMatchObject({ valueJson: '0.35' });
    expect(docs.filter((d) => d.valueSealed).map((d) => d.key).sort()).toEqual(['api_key', 'config', 'token']);
    expect(await r.valuesOf('shop')).toEqual({ api_key: 'k-123', token: 't-456', config: { nested: ['secret-789'] }, margin: 0.35 });
  });

  it('seals on start what an older version stored in clear, and re-seals under a new first key', async () => {
    await save(repo(), { api_key: 'k-plain', margin: 1 });
    const k0 = key();
    const first = repo(SecretsKeyring.parse(`k0:${k0}`));
    expect(await first.resealAll()).toBe(1);
    expect(JSON.stringify(await raw())).not.toContain('k-plain');
    const rotated = repo(SecretsKeyring.parse(`k1:${key()},k0:${k0}`));
    expect(await rotated.resealAll()).toBe(1);
    expect((await raw()).find((d) => d.key === 'api_key')?.valueSealed).toMatch(/^enc:v1:k1:/);
    expect(await rotated.valuesOf('shop')).toEqual({ api_key: 'k-plain', margin: 1 });
  });

  it('refuses the start naming SECRETS_KEY when a sealed value does not open', async () => {
    await save(repo(SecretsKeyring.parse(`k0:${key()}`)), { api_key: 'k-1' });
    const err = await repo(SecretsKeyring.parse(`k1:${key()}`)).resealAll().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretsKeyError);
    expect((err as Error).message).toMatch(/SECRETS_KEY: 1 stored secret cannot be decrypted; SECRETS_KEY lists key id "k1"; add the key "k0"/);
    expect((err as Error).message).toContain('setting shop/api_key');
  });
});
