import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { IsOptional, Matches } from 'class-validator';
import { ConfigValidationError } from './load-config';
import { Sensitive } from './sensitive.decorator';

/**
 * Encryption of secrets at rest (profile and settings values a declaration marks sensitive).
 *
 * SECRETS_KEY lists one or more keys, comma separated, each `<key id>:<key>` or just `<key>` (its id
 * is then derived from the key), the key being 32 random bytes in base64 (`openssl rand -base64 32`,
 * or `flowctl secrets new-key`). The literal entry `dev` stands for the fixed development key.
 * The FIRST key encrypts; every listed key decrypts. Each sealed value names the id of its key, so
 * rotating is: put the new key first and keep the old one behind it; the next start re-encrypts
 * every stored secret with the new key; the old one can then be removed.
 *
 * Sealed form: `enc:v1:<kid>:<iv>:<ciphertext>:<tag>` (base64url; AES-256-GCM, 96-bit random IV,
 * 128-bit tag). The additional authenticated data binds the version, the key id and a caller
 * context (where the value lives), so a sealed value copied to another field does not open.
 */

const ENTRY = String.raw`(?:[A-Za-z0-9_-]{1,32}:)?[A-Za-z0-9+/_-]{43}=?|dev`;
const SPEC = new RegExp(String.raw`^\s*(?:${ENTRY})\s*(?:,\s*(?:${ENTRY})\s*)*$`);
const SEALED = /^enc:v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]*):([A-Za-z0-9_-]{22})$/;
const PREFIX = 'enc:v1:';
const FORMAT_HINT =
  'one or more keys, comma separated, each "<key id>:<32 bytes in base64>" (for example from "openssl rand -base64 32"); the first encrypts, all decrypt';

/** Key id of the fixed development key. */
export const DEV_SECRETS_KEY_ID = 'dev';

/** Fixed development key, used when SECRETS_KEY is unset outside production. Never for production. */
const DEV_SECRETS_KEY = createHash('sha256').update('flowplane-development-secrets-key-not-for-production').digest();

/** Encryption of stored secrets (see secrets-keyring.ts for the key list and the rotation). */
export class SecretsEnv {
  @Sensitive()
  @IsOptional()
  @Matches(SPEC, { message: `SECRETS_KEY must list ${FORMAT_HINT}` })
  SECRETS_KEY?: string;
}

/** Stored secrets cannot be opened with SECRETS_KEY (missing or wrong key): the service refuses to start. */
export class SecretsKeyError extends ConfigValidationError {
  constructor(problems: string[]) {
    super([{ variable: 'SECRETS_KEY', problems }]);
    this.name = 'SecretsKeyError';
  }
}

/** A sealed value that does not open: its key is not listed, or the listed key is not the one. */
export class SealedValueError extends Error {
  constructor(
    message: string,
    readonly kid: string | undefined,
  ) {
    super(message);
    this.name = 'SealedValueError';
  }
}

interface Key {
  kid: string;
  key: Buffer;
}

function decodeKey(text: string): Buffer {
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new SecretsKeyError([`a key is ${key.length} bytes long; it must be 32 bytes in base64`]);
  return key;
}

/** Id of a key given without one: a short fingerprint, stable for the same key. */
function derivedKid(key: Buffer): string {
  return 'k' + createHash('sha256').update(key).digest('hex').slice(0, 10);
}

const b64url = (b: Buffer) => b.toString('base64url');

/** The keys from SECRETS_KEY: the first encrypts, all decrypt. */
export class SecretsKeyring {
  private readonly byKid = new Map<string, Buffer>();
  readonly primaryKid: string;

  private constructor(
    keys: readonly Key[],
    /** True when SECRETS_KEY was unset and the fixed development key is in use. */
    readonly usesDevelopmentKey: boolean,
  ) {
    const dup = keys.find((k, i) => keys.findIndex((o) => o.kid === k.kid) !== i);
    if (dup) throw new SecretsKeyError([`key id "${dup.kid}" is listed twice`]);
    for (const k of keys) this.byKid.set(k.kid, k.key);
    this.primaryKid = keys[0].kid;
  }

  /** Parses a SECRETS_KEY value. */
  static parse(spec: string): SecretsKeyring {
    if (!SPEC.test(spec)) throw new SecretsKeyError([`must list ${FORMAT_HINT}`]);
    const keys = spec
      .split(',')
      .map((e) => e.trim())
      .map((entry): Key => {
        if (entry === DEV_SECRETS_KEY_ID) return { kid: DEV_SECRETS_KEY_ID, key: DEV_SECRETS_KEY };
        const at = entry.lastIndexOf(':');
        const key = decodeKey(at < 0 ? entry : entry.slice(at + 1));
        return { kid: at < 0 ? derivedKid(key) : entry.slice(0, at), key };
      });
    return new SecretsKeyring(keys, false);
  }

  /**
   * The keyring a service uses: SECRETS_KEY when set; otherwise the fixed development key, except
   * in production (NODE_ENV=production), where a missing SECRETS_KEY refuses the start.
   */
  static fromEnv(env: { SECRETS_KEY?: string; NODE_ENV?: string }): SecretsKeyring {
    if (env.SECRETS_KEY) return SecretsKeyring.parse(env.SECRETS_KEY);
    if (env.NODE_ENV === 'production') {
      throw new SecretsKeyError([
        `is required when NODE_ENV=production: stored secrets are encrypted with it (${FORMAT_HINT})`,
      ]);
    }
    return new SecretsKeyring([{ kid: DEV_SECRETS_KEY_ID, key: DEV_SECRETS_KEY }], true);
  }

  /** A new random key entry for SECRETS_KEY, `<kid>:<base64>`. */
  static newKeyEntry(kid?: string): string {
    const key = randomBytes(32);
    return `${kid ?? derivedKid(key)}:${key.toString('base64')}`;
  }

  /** True when `value` is in the sealed form (whichever key sealed it). */
  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  /** Key id a sealed value names, or undefined when it is not in the sealed form. */
  static kidOf(value: string): string | undefined {
    return SEALED.exec(value)?.[1];
  }

  /** True when the keyring holds the key with that id. */
  has(kid: string): boolean {
    return this.byKid.has(kid);
  }

  /** Encrypts `plaintext` with the primary key, bound to `context` (where the value is stored). */
  seal(plaintext: string, context: string): string {
    const kid = this.primaryKid;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.byKid.get(kid) as Buffer, iv);
    cipher.setAAD(aad(kid, context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${PREFIX}${kid}:${b64url(iv)}:${b64url(ct)}:${b64url(cipher.getAuthTag())}`;
  }

  /** Decrypts a sealed value; throws `SealedValueError` when its key is missing or wrong, or it was altered. */
  open(sealed: string, context: string): string {
    const m = SEALED.exec(sealed);
    if (!m) throw new SealedValueError('not a sealed value (expected enc:v1:<kid>:<iv>:<ciphertext>:<tag>)', undefined);
    const [, kid, iv, ct, tag] = m;
    const key = this.byKid.get(kid);
    if (!key) throw new SealedValueError(`sealed with key id "${kid}", which SECRETS_KEY does not list`, kid);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(aad(kid, context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(
        `does not decrypt with the SECRETS_KEY key "${kid}": that key is not the one it was sealed with (or the value was altered)`,
        kid,
      );
    }
  }

  /** True when a sealed value should be sealed again: its key is not the primary one. */
  needsReseal(sealed: string): boolean {
    return SecretsKeyring.kidOf(sealed) !== this.primaryKid;
  }

  /** Key ids in order, for messages (never the keys). */
  get kids(): string[] {
    return [...this.byKid.keys()];
  }
}

function aad(kid: string, context: string): Buffer {
  return Buffer.from(`v1\0${kid}\0${context}`, 'utf8');
}
