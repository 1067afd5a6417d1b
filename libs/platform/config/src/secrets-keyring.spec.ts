import { randomBytes } from 'node:crypto';
import { loadConfig } from './load-config';
import { DEV_SECRETS_KEY_ID, SealedValueError, SecretsEnv, SecretsKeyError, SecretsKeyring } from './secrets-keyring';

const key = () => randomBytes(32).toString('base64');

describe('SecretsKeyring', () => {
  it('seals with AES-256-GCM under the first key: the plaintext is absent and opens again', () => {
    const ring = SecretsKeyring.parse(`k1:${key()}`);
    const sealed = ring.seal('sk-live-123', 'profiles/llm/llm-chat/default/apiKey');
    expect(sealed).toMatch(/^enc:v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('sk-live');
    expect(ring.seal('sk-live-123', 'x')).not.toBe(ring.seal('sk-live-123', 'x')); // random IV
    expect(ring.open(sealed, 'profiles/llm/llm-chat/default/apiKey')).toBe('sk-live-123');
    expect(SecretsKeyring.isSealed(sealed)).toBe(true);
    expect(SecretsKeyring.kidOf(sealed)).toBe('k1');
  });

  it('binds a sealed value to its context and refuses altered values', () => {
    const ring = SecretsKeyring.parse(`k1:${key()}`);
    const sealed = ring.seal('secret', 'a/apiKey');
    expect(() => ring.open(sealed, 'b/apiKey')).toThrow(SealedValueError);
    const parts = sealed.split(':');
    parts[4] = Buffer.from('SECRET', 'utf8').toString('base64url'); // another ciphertext of the same length
    expect(() => ring.open(parts.join(':'), 'a/apiKey')).toThrow(/does not decrypt/);
  });

  it('rotates: the first key seals, every listed key opens, and older values ask to be sealed again', () => {
    const oldKey = key();
    const before = SecretsKeyring.parse(`k0:${oldKey}`);
    const sealedOld = before.seal('v', 'ctx');
    const after = SecretsKeyring.parse(`k1:${key()}, k0:${oldKey}`);
    expect(after.primaryKid).toBe('k1');
    expect(after.open(sealedOld, 'ctx')).toBe('v');
    expect(after.needsReseal(sealedOld)).toBe(true);
    const resealed = after.seal(after.open(sealedOld, 'ctx'), 'ctx');
    expect(after.needsReseal(resealed)).toBe(false);
    expect(SecretsKeyring.parse(`k1:${key()}`).has('k0')).toBe(false);
    expect(() => SecretsKeyring.parse(`k1:${key()}`).open(sealedOld, 'ctx')).toThrow(/key id "k0", which SECRETS_KEY does not list/);
  });

  it('names a key that is listed under the right id but is not the right key', () => {
    const sealed = SecretsKeyring.parse(`k0:${key()}`).seal('v', 'ctx');
    expect(() => SecretsKeyring.parse(`k0:${key()}`).open(sealed, 'ctx')).toThrow(/SECRETS_KEY key "k0": that key is not the one/);
  });

  it('derives a stable key id for a key given without one, and accepts base64url', () => {
    const raw = randomBytes(32);
    const a = SecretsKeyring.parse(raw.toString('base64'));
    const b = SecretsKeyring.parse(raw.toString('base64url'));
    expect(a.primaryKid).toMatch(/^k[0-9a-f]{10}$/);
    expect(b.primaryKid).toBe(a.primaryKid);
    expect(b.open(a.seal('v', 'c'), 'c')).toBe('v');
  });

  it('uses the fixed development key only outside production, and `dev` lists it explicitly', () => {
    const dev = SecretsKeyring.fromEnv({});
    expect(dev).toMatchObject({ usesDevelopmentKey: true, primaryKid: DEV_SECRETS_KEY_ID });
    const sealed = dev.seal('v', 'c');
    expect(SecretsKeyring.fromEnv({ NODE_ENV: 'development' }).open(sealed, 'c')).toBe('v');
    expect(() => SecretsKeyring.fromEnv({ NODE_ENV: 'production' })).toThrow(SecretsKeyError);
    expect(() => SecretsKeyring.fromEnv({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEY: is required when NODE_ENV=production/);
    const migrating = SecretsKeyring.fromEnv({ SECRETS_KEY: `k1:${key()},dev`, NODE_ENV: 'production' });
    expect(migrating).toMatchObject({ usesDevelopmentKey: false, primaryKid: 'k1' });
    expect(migrating.open(sealed, 'c')).toBe('v');
  });

  it('refuses malformed key lists without echoing them', () => {
    const short = randomBytes(16).toString('base64');
    for (const bad of [short, `k1:${key()},k1:${key()}`, `k1:${key()},,`, 'not a key at all']) {
      expect(() => SecretsKeyring.parse(bad)).toThrow(SecretsKeyError);
    }
    expect(() => loadConfig([SecretsEnv], { SECRETS_KEY: `k1:${short}` })).toThrow(/SECRETS_KEY must list one or more keys/);
    try {
      loadConfig([SecretsEnv], { SECRETS_KEY: `k1:${short}` });
    } catch (e) {
      expect((e as Error).message).not.toContain(short);
    }
    expect(loadConfig([SecretsEnv], { SECRETS_KEY: `k1:${key()}, k0:${key()}` }).SECRETS_KEY).toBeDefined();
  });

  it('makes new key entries that parse', () => {
    const entry = SecretsKeyring.newKeyEntry('k2');
    expect(SecretsKeyring.parse(entry).primaryKid).toBe('k2');
    expect(SecretsKeyring.parse(SecretsKeyring.newKeyEntry()).primaryKid).toMatch(/^k[0-9a-f]{10}$/);
  });
});
