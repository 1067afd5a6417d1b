import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { SealedValueError, SecretsKeyring } from '@flowplane/platform/config';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import { forgetOldRecords, isSet, openValue, SECRETS_KEYRING, sealValue, secretsKeyError } from '../../persistence/secrets-at-rest';
import { SettingsRegistry } from '../domain/settings.registry';

/** A stored setting value: what an admin saved for one key of one module. */
export interface StoredSetting {
  module: string;
  key: string;
  value: unknown;
  updatedAt: string;
}

interface SettingDocument extends StoreDocument {
  module: string;
  key: string;
  /**
   * The value as JSON text, not as a sub-document: json-typed settings may hold keys MongoDB refuses
   * (`$x`, `a.b`), and text round-trips identically on every engine. Nothing queries by value.
   * Absent when the value is sealed.
   */
  valueJson?: string;
  /** The value of a sensitive field, sealed (`enc:v1:...`) instead of `valueJson`. */
  valueSealed?: string;
  updatedAt: string;
}

/**
 * Stored values of module settings, one document per (module, key) in the `settings` collection.
 * Values of fields declared sensitive (or of type `secret`) are sealed with the keyring.
 */
@Injectable()
export class SettingsRepository implements OnModuleInit {
  private readonly docs: Collection<SettingDocument>;
  private indexed?: Promise<unknown>;
  private readonly log = new Logger('SettingsRepository');

  constructor(
    @Inject(STORE) private readonly store: Store,
    @Inject(SettingsRegistry) private readonly registry?: SettingsRegistry,
    @Inject(SECRETS_KEYRING) private readonly keyring?: SecretsKeyring,
  ) {
    this.docs = store.collection<SettingDocument>('settings');
  }

  async onModuleInit(): Promise<void> {
    const resealed = await this.resealAll();
    if (resealed > 0) {
      await forgetOldRecords(this.store);
      this.log.log(`sealed ${resealed} sensitive setting value(s) with SECRETS_KEY key "${this.keyring?.primaryKid}"`);
    }
  }

  /**
   * Seals sensitive values still in clear or under an older key, and refuses the start
   * (SecretsKeyError naming SECRETS_KEY) when a sealed value does not open. Resolves the rewrites.
   */
  async resealAll(): Promise<number> {
    const keyring = this.keyring;
    if (!keyring) return 0;
    const failures: SealedValueError[] = [];
    let resealed = 0;
    for (const doc of await this.docs.find({})) {
      let setting: StoredSetting;
      try {
        setting = this.toEntity(doc);
      } catch (e) {
        if (!(e instanceof SealedValueError)) throw e;
        failures.push(e);
        continue;
      }
      const stale = doc.valueSealed !== undefined && keyring.needsReseal(doc.valueSealed);
      const clear = doc.valueJson !== undefined && this.sensitive(doc.module, doc.key) && isSet(setting.value);
      if (!stale && !clear) continue;
      const { matchedCount } = await this.docs.replaceOne(
        { _id: doc._id, updatedAt: doc.updatedAt },
        { ...this.valueFields(doc.module, doc.key, setting.value), module: doc.module, key: doc.key, updatedAt: doc.updatedAt },
      );
      resealed += matchedCount;
    }
    if (failures.length) throw secretsKeyError(keyring, failures);
    return resealed;
  }

  /** The stored values of a module, key to value. */
  async valuesOf(module: string, session?: StoreSession): Promise<Record<string, unknown>> {
    await this.ensureIndex();
    const docs = await this.docs.find({ module }, { session });
    return Object.fromEntries(docs.map((d) => [d.key, this.toEntity(d).value]));
  }

  /** Every stored value of every module. */
  async all(): Promise<StoredSetting[]> {
    await this.ensureIndex();
    return (await this.docs.find({})).map((d) => this.toEntity(d));
  }

  /** Stores `value` for the key (replacing what was stored). */
  async save(module: string, key: string, value: unknown, session: StoreSession): Promise<void> {
    const doc: Omit<SettingDocument, '_id'> = { module, key, ...this.valueFields(module, key, value), updatedAt: new Date().toISOString() };
    await this.docs.replaceOne({ _id: idOf(module, key) }, doc, { upsert: true, session });
  }

  /** Removes the stored value, so the env var or the default applies again. */
  async remove(module: string, key: string, session: StoreSession): Promise<void> {
    await this.docs.deleteOne({ _id: idOf(module, key) }, { session });
  }

  private ensureIndex(): Promise<unknown> {
    // A failed attempt (store briefly unavailable) is retried by the next call.
    return (this.indexed ??= this.docs.createIndex({ keys: { module: 1 }, name: 'module' }).catch((e: unknown) => {
      this.indexed = undefined;
      throw e;
    }));
  }

  private sensitive(module: string, key: string): boolean {
    const field = this.registry?.field(module, key);
    return field?.sensitive === true || field?.type === 'secret';
  }

  private valueFields(module: string, key: string, value: unknown): Pick<SettingDocument, 'valueJson' | 'valueSealed'> {
    if (this.keyring && this.sensitive(module, key) && isSet(value)) {
      return { valueSealed: sealValue(this.keyring, value, sealContext(module, key)) };
    }
    return { valueJson: JSON.stringify(value) };
  }

  private toEntity(d: SettingDocument): StoredSetting {
    const value =
      d.valueSealed !== undefined && d.valueSealed !== null
        ? openValue(this.keyring, d.valueSealed, sealContext(d.module, d.key), `setting ${d.module}/${d.key}`)
        : (JSON.parse(d.valueJson as string) as unknown);
    return { module: d.module, key: d.key, value, updatedAt: d.updatedAt };
  }
}

function idOf(module: string, key: string): string {
  return `${module}/${key}`;
}

/** What a sealed value is bound to: its module and key, so it cannot be moved to another setting. */
function sealContext(module: string, key: string): string {
  return ['setting', module, key].join('\0');
}
