import { Inject, Injectable } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import type { GlossaryEntry } from '../auto-translate.ports';

interface GlossaryDocument extends StoreDocument {
  entries: GlossaryEntry[];
  updatedAt: Date;
}

const DOC_ID = 'glossary';

/** The glossary: one document of collection `i18n_glossary` holding the whole list (it is replaced as a whole). */
@Injectable()
export class GlossaryRepository {
  static readonly COLLECTION = 'i18n_glossary';
  private readonly docs: Collection<GlossaryDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.docs = store.collection<GlossaryDocument>(GlossaryRepository.COLLECTION);
  }

  async read(): Promise<GlossaryEntry[]> {
    const doc = await this.docs.findOne({ _id: DOC_ID });
    return (doc?.entries ?? []).map(clean);
  }

  async replace(entries: readonly GlossaryEntry[], now: Date): Promise<GlossaryEntry[]> {
    const list = entries.map(clean);
    await this.docs.updateOne({ _id: DOC_ID }, { $set: { entries: list, updatedAt: now } }, { upsert: true });
    return list;
  }
}

/** An entry with only its own fields (stores may hand back null for an absent one). */
function clean(e: GlossaryEntry): GlossaryEntry {
  return {
    term: e.term,
    ...(typeof e.locale === 'string' ? { locale: e.locale } : {}),
    ...(typeof e.translation === 'string' ? { translation: e.translation } : {}),
    ...(e.doNotTranslate === true ? { doNotTranslate: true } : {}),
  };
}
