import { Inject, Injectable } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';

/** What the assistant knows of one ingested document: enough to list it and to delete its chunks. */
export interface KnowledgeRecord {
  docId: string;
  /** Backend index name (`svc_docs`). */
  index: string;
  title: string;
  url?: string;
  format: string;
  /** Chunks `<docId>#0` … `<docId>#<chunks-1>` are in the index. */
  chunks: number;
  chars: number;
  /** Digest of each chunk as stored, by position: unchanged chunks are not embedded again. */
  hashes?: string[];
  updatedAt: Date;
}

interface KnowledgeDocument extends StoreDocument, KnowledgeRecord {}

/** Ingested documents on the Store port: collection `assistant_knowledge`, one record per index and document id. */
@Injectable()
export class KnowledgeRepository {
  static readonly COLLECTION = 'assistant_knowledge';
  private readonly docs: Collection<KnowledgeDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.docs = store.collection<KnowledgeDocument>(KnowledgeRepository.COLLECTION);
  }

  /**
   * `<index>/<docId>`: an index name never holds a `/`, so the first one separates them. Records
   * written before used U+0000, which a store on PostgreSQL (FerretDB) cannot hold in a string;
   * those are still found, and replaced by the new id on their next save.
   */
  private key(index: string, docId: string): string {
    return `${index}/${docId}`;
  }

  async find(index: string, docId: string): Promise<KnowledgeRecord | null> {
    const d = (await this.docs.findOne({ _id: this.key(index, docId) })) ?? (await this.findLegacy(index, docId));
    return d && strip(d);
  }

  async save(record: KnowledgeRecord): Promise<void> {
    const { url, ...rest } = record;
    await this.docs.replaceOne({ _id: this.key(record.index, record.docId) }, { ...rest, ...(url ? { url } : {}) }, { upsert: true });
    await this.removeLegacy(record.index, record.docId);
  }

  async remove(index: string, docId: string): Promise<void> {
    await this.docs.deleteOne({ _id: this.key(index, docId) });
    await this.removeLegacy(index, docId);
  }

  /** The record under its old id, where the store can hold one (never on PostgreSQL). */
  private async findLegacy(index: string, docId: string): Promise<KnowledgeDocument | null> {
    return this.docs.findOne({ index, docId, _id: { $ne: this.key(index, docId) } });
  }

  private async removeLegacy(index: string, docId: string): Promise<void> {
    await this.docs.deleteMany({ index, docId, _id: { $ne: this.key(index, docId) } });
  }

  async list(index?: string): Promise<KnowledgeRecord[]> {
    const docs = await this.docs.find(index ? { index } : {}, { sort: { index: 1, docId: 1 } });
    return docs.map(strip);
  }
}

function strip(d: KnowledgeDocument): KnowledgeRecord {
  const { _id, ...rest } = d;
  void _id;
  return rest;
}
