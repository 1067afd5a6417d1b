import { Logger, type Provider } from '@nestjs/common';
import { SealedValueError, SecretsKeyError, SecretsKeyring } from '@flowplane/platform/config';
import { SERVICE_CONTEXT, type ServiceContext } from '@flowplane/platform/service';
import type { Store } from '@flowplane/platform/store';

/**
 * Secrets at rest for the profiles service: profile fields and module settings that their
 * declarations mark sensitive are stored sealed (AES-256-GCM, see SecretsKeyring in
 * @flowplane/platform/config), in whichever store engine runs. Each repository seals on write, opens
 * on read and, when the service starts, seals again what is still in plain text (data written before
 * encryption existed) or under a key other than the first of SECRETS_KEY (rotation).
 */

/** Injection token of the service's SecretsKeyring. */
export const SECRETS_KEYRING = Symbol('SECRETS_KEYRING');

let warnedDevelopmentKey = false;

/** The keyring from SECRETS_KEY (the development key with a warning when unset outside production). */
export const secretsKeyringProvider: Provider = {
  provide: SECRETS_KEYRING,
  inject: [SERVICE_CONTEXT],
  useFactory: (ctx: ServiceContext): SecretsKeyring => {
    const keyring = SecretsKeyring.fromEnv({
      SECRETS_KEY: (ctx.config?.SECRETS_KEY as string | undefined) ?? ctx.env.SECRETS_KEY,
      NODE_ENV: ctx.env.NODE_ENV,
    });
    if (keyring.usesDevelopmentKey && !warnedDevelopmentKey) {
      warnedDevelopmentKey = true;
      new Logger('Secrets').warn(
        'SECRETS_KEY is not set; stored secrets are encrypted with the fixed development key. Not for production.',
      );
    }
    return keyring;
  },
};

/** Seals a JSON value (any type) bound to where it is stored. */
export function sealValue(keyring: SecretsKeyring, value: unknown, context: string): string {
  return keyring.seal(JSON.stringify(value), context);
}

/** Opens what `sealValue` sealed; a failure names `where` (never the value). */
export function openValue(keyring: SecretsKeyring | undefined, sealed: string, context: string, where: string): unknown {
  if (!keyring) throw new SealedValueError(`${where}: stored sealed but no SECRETS_KEY keyring is configured`, undefined);
  try {
    return JSON.parse(keyring.open(sealed, context)) as unknown;
  } catch (e) {
    if (e instanceof SealedValueError) throw new SealedValueError(`${where}: ${e.message}`, e.kid);
    throw e;
  }
}

/** Value is worth sealing (unset values stay as they are: there is nothing to hide). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The start refused because stored secrets do not open: lists what failed (at most a few) and what
 * SECRETS_KEY provides, so the operator knows which key to bring back.
 */
export function secretsKeyError(keyring: SecretsKeyring, failures: readonly SealedValueError[]): SecretsKeyError {
  const missing = [...new Set(failures.map((f) => f.kid).filter((k): k is string => k !== undefined && !keyring.has(k)))];
  const state = keyring.usesDevelopmentKey
    ? `SECRETS_KEY is not set, so only the development key "${keyring.primaryKid}" is in use`
    : `SECRETS_KEY lists key id${keyring.kids.length === 1 ? '' : 's'} ${keyring.kids.map((k) => `"${k}"`).join(', ')}`;
  const shown = failures.slice(0, 5).map((f) => f.message);
  const more = failures.length > shown.length ? [`... and ${failures.length - shown.length} more`] : [];
  return new SecretsKeyError([
    `${failures.length} stored secret${failures.length === 1 ? '' : 's'} cannot be decrypted; ${state}` +
      (missing.length ? `; add the key${missing.length === 1 ? '' : 's'} ${missing.map((k) => `"${k}"`).join(', ')} (after the current first key) to SECRETS_KEY` : '') +
      ` and start again: ${[...shown, ...more].join('; ')}`,
  ]);
}

/**
 * After a start re-sealed values, the embedded engine's journal still holds the records written
 * before (plain text, or sealed under the retired key): compacting rewrites the snapshot from the
 * current state and deletes that journal. MongoDB has no such step (nor the need for one in the
 * documents; its own oplog and free pages are the database's business).
 */
export async function forgetOldRecords(store: Store): Promise<void> {
  const compactable = store as Store & { compact?: () => Promise<void> };
  if (typeof compactable.compact === 'function') await compactable.compact();
}
