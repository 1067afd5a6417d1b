import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { storedTimes } from '../../shared/stored-time';
import type { Locale } from '../domain/locale.entity';

interface LocaleDocument extends StoreDocument {
  code: string;
  language?: string | null;
  name?: string | null;
  active: boolean;
  createdAt?: Date;
  updatedAt?: Date;
}

/** What a write stores; the repository keeps `createdAt` of an existing locale. */
export type LocaleWrite = Omit<Locale, 'createdAt' | 'updatedAt'>;

/** The locale registry on the Store port: collection `i18n_locales`, unique on `code`. */
@Injectable()
export class LocaleRepository implements OnModuleInit {
  static readonly COLLECTION = 'i18n_locales';
  private readonly locales: Collection<LocaleDocument>;
  private indexed?: Promise<unknown>;

  constructor(
    @Inject(STORE) store: Store,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {
    this.locales = store.collection<LocaleDocument>(LocaleRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.enabled) await this.ensureIndexes();
  }

  ensureIndexes(): Promise<unknown> {
    return (this.indexed ??= this.locales.createIndex({ keys: { code: 1 }, name: 'locale_code', unique: true }));
  }

  /** Every locale (or the active ones), ordered by code. */
  async list(filter: { active?: boolean } = {}): Promise<Locale[]> {
    const docs = await this.locales.find(filter.active === undefined ? {} : { active: filter.active }, { sort: { code: 1 } });
    return docs.map(toEntity);
  }

  async count(): Promise<number> {
    return this.locales.countDocuments({});
  }

  async find(code: string, session?: StoreSession): Promise<Locale | null> {
    const doc = await this.locales.findOne({ code }, { session });
    return doc && toEntity(doc);
  }

  /** Inserts a locale; throws `DuplicateKeyError` when the code is taken. */
  async insert(write: LocaleWrite, now: Date, session?: StoreSession): Promise<Locale> {
    const doc = await this.locales.insertOne({ ...fields(write), createdAt: now, updatedAt: now }, { session });
    return toEntity(doc);
  }

  /** Replaces the fields of an existing locale; null when there is none with that code. */
  async replace(existing: Locale, write: LocaleWrite, now: Date, session?: StoreSession): Promise<Locale | null> {
    const doc = { ...fields(write), ...storedTimes({ createdAt: existing.createdAt }), updatedAt: now };
    const { matchedCount } = await this.locales.replaceOne({ code: existing.code }, doc, { session });
    return matchedCount ? toEntity({ _id: existing.code, ...doc }) : null;
  }

  async delete(code: string, session?: StoreSession): Promise<boolean> {
    const { deletedCount } = await this.locales.deleteOne({ code }, { session });
    return deletedCount > 0;
  }
}

interface LocaleFields {
  code: string;
  active: boolean;
  language?: string;
  name?: string;
}

function fields(w: LocaleWrite): LocaleFields {
  return {
    code: w.code,
    active: w.active,
    ...(w.language ? { language: w.language } : {}),
    ...(w.name ? { name: w.name } : {}),
  };
}

function toEntity(doc: LocaleDocument): Locale {
  const l: Locale = { code: doc.code, active: doc.active !== false, ...storedTimes({ createdAt: doc.createdAt, updatedAt: doc.updatedAt }) };
  if (typeof doc.language === 'string' && doc.language) l.language = doc.language;
  if (typeof doc.name === 'string' && doc.name) l.name = doc.name;
  return l;
}
