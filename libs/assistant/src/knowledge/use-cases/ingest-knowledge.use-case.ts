import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { chunkDocument, embeddingText, type KnowledgeChunk, type KnowledgeDocument, KNOWLEDGE_FORMATS } from '../domain/chunker';
import { KnowledgeRepository, type KnowledgeRecord } from '../persistence/knowledge.repository';
import { KnowledgeSearchClient, searchFailure } from './search.client';

/** The index retrieval reads unless a node names another: logical `docs`, `svc_docs` under the default prefix. */
export const DEFAULT_KNOWLEDGE_INDEX = 'docs';
/** Chunks per upsert call: one embedding batch each. */
export const INGEST_BATCH = 64;
const ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
const INDEX = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

export interface IngestResult {
  index: string;
  documents: Array<{ id: string; chunks: number; previousChunks: number }>;
  chunks: number;
  /** Chunks embedded and upserted; the others were unchanged. */
  embeddedChunks: number;
  removedChunks: number;
  ms: number;
}

/**
 * Knowledge ingest: chunks each document, upserts the chunks (text embedded by the search
 * service's configured embedder, in batches) under deterministic ids `<docId>#<n>`, then deletes
 * the ids the previous version had beyond the new count, so re-ingesting replaces a document with
 * no duplicates and no orphans. Every document is checked before anything is written.
 */
@Injectable()
export class IngestKnowledgeUseCase {
  private readonly log = new Logger('Knowledge');

  constructor(
    private readonly search: KnowledgeSearchClient,
    private readonly repo: KnowledgeRepository,
  ) {}

  async ingest(documents: KnowledgeDocument[], index = DEFAULT_KNOWLEDGE_INDEX): Promise<IngestResult> {
    const started = Date.now();
    checkIndex(index);
    const chunked = this.prepare(documents);
    let head: { backendIndex: string; created: boolean };
    try {
      head = await this.search.upsert(index, []);
    } catch (e) {
      throw searchFailure(e);
    }
    const backend = head.backendIndex;
    // A chunk whose text, title, headings and URL are what the index already holds is not embedded again.
    const plans = [];
    for (const { doc, chunks } of chunked) {
      const previous = head.created ? null : await this.repo.find(backend, doc.id);
      const docs = chunks.map(toIndexDocument);
      const hashes = docs.map(hashOf);
      const changed = docs.filter((_, i) => previous?.hashes?.[i] !== hashes[i]);
      plans.push({ doc, chunks, previous, hashes, changed });
    }
    const changed = plans.flatMap((p) => p.changed);
    for (let i = 0; i < changed.length; i += INGEST_BATCH) {
      try {
        await this.search.upsert(index, changed.slice(i, i + INGEST_BATCH));
      } catch (e) {
        throw searchFailure(e);
      }
    }
    const out: IngestResult['documents'] = [];
    let removed = 0;
    for (const { doc, chunks, previous, hashes } of plans) {
      const stale = staleIds(doc.id, chunks.length, previous?.chunks ?? 0);
      if (stale.length) {
        await this.deleteIds(index, stale);
        removed += stale.length;
      }
      await this.repo.save({ docId: doc.id, index: backend, title: doc.title, url: doc.url, format: doc.format ?? 'markdown', chunks: chunks.length, chars: doc.text.length, hashes, updatedAt: new Date() });
      out.push({ id: doc.id, chunks: chunks.length, previousChunks: previous?.chunks ?? 0 });
    }
    const total = plans.reduce((n, p) => n + p.chunks.length, 0);
    const ms = Date.now() - started;
    this.log.log(`ingested ${out.length} document(s), ${total} chunk(s) (${changed.length} embedded) into ${backend} in ${ms} ms`);
    return { index: backend, documents: out, chunks: total, embeddedChunks: changed.length, removedChunks: removed, ms };
  }

  /** Removes a document and all its chunks; 404 when the index has no such document. */
  async remove(docId: string, index = DEFAULT_KNOWLEDGE_INDEX): Promise<{ index: string; id: string; removedChunks: number }> {
    checkIndex(index);
    const record = await this.findRecord(index, docId);
    if (!record) throw new DomainException('KNOWLEDGE_NOT_FOUND', 404, `no document ${JSON.stringify(docId)} in the knowledge index ${index}`);
    await this.deleteIds(index, staleIds(docId, 0, record.chunks));
    await this.repo.remove(record.index, docId);
    return { index: record.index, id: docId, removedChunks: record.chunks };
  }

  async list(index?: string): Promise<KnowledgeRecord[]> {
    return this.repo.list(index);
  }

  /** The record under the name as given or with any prefix the search service put before it. */
  private async findRecord(index: string, docId: string): Promise<KnowledgeRecord | null> {
    const direct = await this.repo.find(index, docId);
    if (direct) return direct;
    const all = await this.repo.list();
    return all.find((r) => r.docId === docId && r.index.endsWith(index)) ?? null;
  }

  private async deleteIds(index: string, ids: string[]): Promise<void> {
    try {
      for (let i = 0; i < ids.length; i += 1000) await this.search.delete(index, ids.slice(i, i + 1000));
    } catch (e) {
      const err = searchFailure(e);
      // An index deleted by hand took the chunks with it.
      if (err.status !== 404) throw err;
    }
  }

  /** Checks every document and chunks it; 400 naming each document that is invalid or has no text. */
  private prepare(documents: KnowledgeDocument[]): Array<{ doc: KnowledgeDocument; chunks: KnowledgeChunk[] }> {
    if (!Array.isArray(documents) || documents.length === 0) throw new DomainException('KNOWLEDGE_INVALID', 400, 'documents must be a non-empty array');
    const problems: string[] = [];
    const empty: string[] = [];
    const seen = new Set<string>();
    const out: Array<{ doc: KnowledgeDocument; chunks: KnowledgeChunk[] }> = [];
    documents.forEach((doc, i) => {
      const before = problems.length;
      const name = typeof doc?.id === 'string' && doc.id ? JSON.stringify(doc.id) : `documents[${i}]`;
      if (typeof doc?.id !== 'string' || !ID.test(doc.id)) problems.push(`${name}: id must be 1-200 letters, digits, ".", "_", ":", "/" or "-"`);
      else if (seen.has(doc.id)) problems.push(`${name}: the id appears twice`);
      if (typeof doc?.title !== 'string' || !doc.title.trim()) problems.push(`${name}: title is required`);
      if (doc?.url !== undefined && typeof doc.url !== 'string') problems.push(`${name}: url must be a string`);
      if (doc?.format !== undefined && !(KNOWLEDGE_FORMATS as readonly string[]).includes(doc.format)) problems.push(`${name}: format must be one of ${KNOWLEDGE_FORMATS.join(', ')}`);
      if (doc?.text !== undefined && typeof doc.text !== 'string') problems.push(`${name}: text must be a string`);
      if (typeof doc?.id === 'string') seen.add(doc.id);
      if (problems.length > before) return;
      const chunks = typeof doc.text === 'string' ? chunkDocument(doc) : [];
      if (!chunks.length) empty.push(name);
      out.push({ doc, chunks });
    });
    if (empty.length) problems.push(`no text in ${empty.join(', ')}`);
    if (problems.length) throw new DomainException('KNOWLEDGE_INVALID', 400, problems.join('; '));
    return out;
  }
}

function checkIndex(index: string): void {
  if (typeof index !== 'string' || !INDEX.test(index)) throw new DomainException('KNOWLEDGE_INVALID', 400, `invalid index name ${JSON.stringify(index)}: use 1-64 letters, digits, "_" or "-"`);
}

/** Chunk ids `<docId>#<from>` … `<docId>#<to-1>`. */
function staleIds(docId: string, from: number, to: number): string[] {
  const ids: string[] = [];
  for (let n = from; n < to; n++) ids.push(`${docId}#${n}`);
  return ids;
}

function toIndexDocument(c: KnowledgeChunk) {
  return {
    id: c.id,
    text: embeddingText(c),
    payload: { docId: c.docId, n: c.n, title: c.title, headings: c.headings, ...(c.url ? { url: c.url } : {}), text: c.text, source: 'assistant-knowledge' },
  };
}

/** A short digest of what an index point holds, to tell an unchanged chunk. */
function hashOf(doc: ReturnType<typeof toIndexDocument>): string {
  return createHash('sha256').update(JSON.stringify([doc.text, doc.payload])).digest('base64url').slice(0, 22);
}
