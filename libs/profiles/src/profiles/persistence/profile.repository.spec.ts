import { randomBytes } from 'node:crypto';
import { LLM_CHAT_KIND } from '@flowplane/contracts';
import { SecretsKeyError, SecretsKeyring } from '@flowplane/platform/config';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { KindRegistry } from '../kinds/kind.registry';
import { ProfileRepository, type ProfileWrite } from './profile.repository';

const key = () => randomBytes(32).toString('base64');
const chat = (profileId: string, config: Record<string, unknown>): ProfileWrite => ({
  module: 'llm',
  kind: 'llm-chat',
  profileId,
  name: profileId,
  config,
});

describe('ProfileRepository secrets at rest', () => {
  let store: Store;
  const kinds = new KindRegistry([LLM_CHAT_KIND]);
  const raw = () => store.collection<Record<string, unknown> & { _id: string }>(ProfileRepository.COLLECTION).find({}, { sort: { profileId: 1 } });
  const repo = (keyring?: SecretsKeyring) => new ProfileRepository(store, kinds, keyring);

  beforeEach(async () => {
    store = await createMemoryStore();
  });
  afterEach(() => store.close());

  it('stores sensitive fields sealed and the rest as is, and reads them back in clear', async () => {
    const r = repo(SecretsKeyring.parse(`k1:${key()}`));
    const written = await r.insert(chat('default', { providerID: 'openai', apiKey: 'sk-live-123', model: 'gpt', baseURL: '' }), new Date());
    const [doc] = await raw();
    expect(JSON.stringify(doc)).not.toContain('sk-live-123');
    expect(doc.config).toEqual({ providerID: 'openai', model: 'gpt', baseURL: '' });
    expect(doc.sealed).toEqual({ apiKey: expect.stringMatching(/^enc:v1:k1:/) });
    expect(written.config).toEqual({ providerID: 'openai', apiKey: 'sk-live-123', model: 'gpt', baseURL: '' });
    expect((await r.find({ module: 'llm', kind: 'llm-chat', profileId: 'default' }))?.config.apiKey).toBe('sk-live-123');
    expect((await r.list())[0].config.apiKey).toBe('sk-live-123');
  });

  it('seals every value of a kind that is not declared (nothing is known to be harmless)', async () => {
    const r = repo(SecretsKeyring.parse(`k1:${key()}`));
    await r.insert({ module: 'gone', kind: 'gone-kind', profileId: 'p', name: 'p', config: { token: 't-1', n: 3 } }, new Date());
    const [doc] = await raw();
    expect(doc.config).toEqual({});
    expect(Object.keys(doc.sealed as object).sort()).toEqual(['n', 'token']);
    expect((await r.list())[0].config).toEqual({ token: 't-1', n: 3 });
  });

  it('seals on start what an older version stored in clear', async () => {
    await repo().insert(chat('legacy', { providerID: 'openai', apiKey: 'sk-plain' }), new Date());
    expect((await raw())[0].config).toMatchObject({ apiKey: 'sk-plain' });
    const r = repo(SecretsKeyring.parse(`k1:${key()}`));
    expect((await r.find({ module: 'llm', kind: 'llm-chat', profileId: 'legacy' }))?.config.apiKey).toBe('sk-plain'); // still readable
    expect(await r.resealAll()).toBe(1);
    const [doc] = await raw();
    expect(JSON.stringify(doc)).not.toContain('sk-plain');
    expect((await r.find({ module: 'llm', kind: 'llm-chat', profileId: 'legacy' }))?.config.apiKey).toBe('sk-plain');
    expect(await r.resealAll()).toBe(0);
  });

  it('rotates: a new first key re-seals every secret on start, after which the old key can go', async () => {
    const oldKey = key();
    const newKey = key();
    const before = repo(SecretsKeyring.parse(`k0:${oldKey}`));
    await before.insert(chat('a', { providerID: 'openai', apiKey: 'sk-a' }), new Date());
    await before.insert(chat('b', { providerID: 'openai', apiKey: 'sk-b', model: 'm' }), new Date());

    const both = repo(SecretsKeyring.parse(`k1:${newKey},k0:${oldKey}`));
    expect(await both.resealAll()).toBe(2);
    for (const doc of await raw()) expect((doc.sealed as Record<string, string>).apiKey).toMatch(/^enc:v1:k1:/);

    const after = repo(SecretsKeyring.parse(`k1:${newKey}`));
    expect(await after.resealAll()).toBe(0);
    expect((await after.list()).map((p) => p.config.apiKey)).toEqual(['sk-a', 'sk-b']);
  });

  it('refuses the start naming SECRETS_KEY when secrets are sealed under a key it does not hold', async () => {
    await repo(SecretsKeyring.parse(`k0:${key()}`)).insert(chat('a', { providerID: 'openai', apiKey: 'sk-a' }), new Date());
    const missing = repo(SecretsKeyring.fromEnv({}));
    const err = await missing.resealAll().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretsKeyError);
    expect((err as Error).message).toMatch(/SECRETS_KEY: 1 stored secret cannot be decrypted; SECRETS_KEY is not set/);
    expect((err as Error).message).toContain('add the key "k0"');
    expect((err as Error).message).toContain('profile llm/llm-chat/a, field apiKey');
    const wrong = await repo(SecretsKeyring.parse(`k0:${key()}`)).resealAll().catch((e: unknown) => e);
    expect((wrong as Error).message).toMatch(/SECRETS_KEY lists key id "k0".*that key is not the one/);
  });

  it('refuses a sealed value moved to another profile', async () => {
    const keyring = SecretsKeyring.parse(`k1:${key()}`);
    const r = repo(keyring);
    await r.insert(chat('victim', { providerID: 'openai', apiKey: 'sk-victim' }), new Date());
    await r.insert(chat('mine', { providerID: 'openai', apiKey: 'sk-mine' }), new Date());
    const docs = store.collection<Record<string, unknown> & { _id: string }>(ProfileRepository.COLLECTION);
    const [mine, victim] = await raw();
    await docs.updateOne({ _id: mine._id as string }, { $set: { sealed: victim.sealed } });
    await expect(r.find({ module: 'llm', kind: 'llm-chat', profileId: 'mine' })).rejects.toThrow(/does not decrypt/);
  });
});
