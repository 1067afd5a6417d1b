import { Inject, Injectable } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';

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
   */
  valueJson: string;
  updatedAt: string;
}

/** Stored values of module settings, one document per (module, key) in the `settings` collection. */
@Injectable()
export class SettingsRepository {
  private readonly docs: Collection<SettingDocument>;
  private indexed?: Promise<unknown>;

  constructor(@Inject(STORE) store: Store) {
    this.docs = store.collection<SettingDocument>('settings');
  }

  /** The stored values of a module, key to value. */
  async valuesOf(module: string, session?: StoreSession): Promise<Record<string, unknown>> {
    await this.ensureIndex();
    const docs = await this.docs.find({ module }, { session });
    return Object.fromEntries(docs.map((d) => [d.key, toEntity(d).value]));
  }

  /** Every stored value of every module. */
  async all(): Promise<StoredSetting[]> {
    await this.ensureIndex();
    return (await this.docs.find({})).map(toEntity);
  }

  /** Stores `value` for the key (replacing what was stored). */
  async save(module: string, key: string, value: unknown, session: StoreSession): Promise<void> {
    const doc: Omit<SettingDocument, '_id'> = { module, key, valueJson: JSON.stringify(value), updatedAt: new Date().toISOString() };
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
}

function idOf(module: string, key: string): string {
  return `${module}/${key}`;
}

function toEntity(d: SettingDocument): StoredSetting {
  return { module: d.module, key: d.key, value: JSON.parse(d.valueJson) as unknown, updatedAt: d.updatedAt };
}
