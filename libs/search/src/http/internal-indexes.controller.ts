import { Body, Controller, HttpCode, Inject, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { Internal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { SearchErrorsInterceptor, SearchException, toSearchException } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import type { SearchDocument, SearchQuery } from '../domain/search.types';
import type { SearchEnv } from '../search.env';
import { SearchSettings } from '../settings/search-settings.service';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string) => new DomainException('SEARCH_INVALID', 400, message);
/** The body as a JSON object: a request without one (no body, no JSON content type, an array) is refused. */
const objectBody = (body: unknown): Json => {
  if (!isObject(body)) throw bad('the body must be a JSON object');
  return body;
};

/**
 * Index reads and writes for other services (service tokens only): the assistant's retrieval node
 * queries, its knowledge ingest upserts and deletes. An index may be named logically (`docs`) or
 * with the current prefix (`svc_docs`, the name operators see in the spec); answers and errors
 * carry both, so a missing index is reported as the operator named it.
 */
@ApiExcludeController()
@Controller('internal/search/indexes')
@UseInterceptors(SearchErrorsInterceptor)
export class InternalIndexesController {
  constructor(
    private readonly search: SearchService,
    private readonly settings: SearchSettings,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
  ) {}

  @Post(':name/query')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.searchQuery)
  async query(@Param('name') name: string, @Body() raw: unknown) {
    const body = objectBody(raw);
    const { logical, backend } = await this.names(name);
    if (typeof body.text !== 'string' || !body.text.trim()) throw bad('text is required: the query text');
    const q: SearchQuery = { text: body.text };
    if (body.limit !== undefined) q.limit = Number(body.limit);
    if (isObject(body.filter)) q.filter = body.filter;
    const result = await this.missing(backend, () => this.search.query(logical, q));
    return { ...result, index: logical, backendIndex: backend };
  }

  /** Upserts `documents` (text is embedded); `create: true` makes the index first when it does not exist, with the embedder's dimension. */
  @Post(':name/upsert')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.searchWrite)
  async upsert(@Param('name') name: string, @Body() raw: unknown) {
    const body = objectBody(raw);
    const { logical, backend } = await this.names(name);
    if (!Array.isArray(body.documents)) throw bad('documents must be an array');
    const documents = body.documents.map((d, i) => {
      if (!isObject(d) || (typeof d.id !== 'string' && typeof d.id !== 'number')) throw bad(`documents[${i}] must be {id, text, payload?}`);
      return { id: d.id, ...(typeof d.text === 'string' ? { text: d.text } : {}), ...(isObject(d.payload) ? { payload: d.payload } : {}) } as SearchDocument;
    });
    let created = false;
    if (body.create === true) {
      const existing = await this.search.getIndex(logical).catch((e: unknown) => {
        if (e instanceof DomainException && e.status === 404) return undefined;
        throw e;
      });
      if (!existing) created = (await this.search.createIndex(logical, this.config.SEARCH_EMBEDDING_DIM)).created;
    }
    // No documents: the caller only wants the index made and its backend name.
    const result = await this.missing(backend, async () => (documents.length ? this.search.upsert(logical, documents) : (await this.search.getIndex(logical), { upserted: 0, embedded: 0 })));
    return { ...result, index: logical, backendIndex: backend, created };
  }

  @Post(':name/delete')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.searchWrite)
  async remove(@Param('name') name: string, @Body() raw: unknown) {
    const body = objectBody(raw);
    const { logical, backend } = await this.names(name);
    if (!Array.isArray(body.ids)) throw bad('ids must be an array');
    const result = await this.missing(backend, () => this.search.deleteDocuments(logical, body.ids as Array<string | number>));
    return { ...result, index: logical, backendIndex: backend };
  }

  /** The logical name and the backend name of `name`, which may carry the current prefix. */
  private async names(name: string): Promise<{ logical: string; backend: string }> {
    const { indexPrefix } = await this.settings.current();
    const logical = indexPrefix && name.startsWith(indexPrefix) && name.length > indexPrefix.length ? name.slice(indexPrefix.length) : name;
    return { logical, backend: `${indexPrefix}${logical}` };
  }

  /** A 404 of the index names it by its backend name (`svc_docs`), the name the caller's operator configured. */
  private async missing<T>(backend: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      const err = toSearchException(e);
      if (err instanceof DomainException && err.status === 404) throw new SearchException('SEARCH_INDEX_NOT_FOUND', 404, `the index ${backend} does not exist`);
      throw err;
    }
  }
}
