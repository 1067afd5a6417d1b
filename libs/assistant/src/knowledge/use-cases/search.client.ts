import { Injectable } from '@nestjs/common';
import { ServiceCallError, ServiceClient, ServiceUnavailableError } from '@flowplane/contracts';
import { currentRequestId, DomainException } from '@flowplane/platform/http';
import { ServiceClients } from '@flowplane/platform/service';
import { keepAliveTransport } from './keep-alive-transport';

/** A hit as the search service answers it. */
export interface KnowledgeHit {
  id: string;
  score: number;
  payload: Record<string, unknown>;
}

/** A document for the search service's upsert: `text` is embedded there with the configured embedder. */
export interface IndexDocument {
  id: string;
  text: string;
  payload: Record<string, unknown>;
}

/**
 * The search service's internal index routes, with the least service token each call needs. The
 * index may be named logically (`docs`) or with the prefix (`svc_docs`); answers carry the backend
 * name (`backendIndex`), which is what the knowledge records and the node's errors use.
 */
@Injectable()
export class KnowledgeSearchClient {
  private queries?: ServiceClient;

  constructor(private readonly clients: ServiceClients) {}

  private get search() {
    return this.clients.for('search', { timeoutMs: 30_000, retries: 1 });
  }

  /**
   * The same client for the retrieval node's queries (one per chat turn), but over node:http with a
   * keep-alive agent instead of fetch: same URL, token, request id, timeout, retries and errors.
   */
  private get searchQueries(): ServiceClient {
    return (this.queries ??= new ServiceClient({
      service: 'search',
      baseUrl: this.search.baseUrl,
      timeoutMs: 30_000,
      retries: 1,
      tokenProvider: (_target, perms) => this.clients.token('search', perms),
      requestIdProvider: currentRequestId,
      transport: keepAliveTransport,
    }));
  }

  async query(index: string, text: string, limit: number, signal?: AbortSignal): Promise<{ backendIndex: string; hits: KnowledgeHit[] }> {
    return this.searchQueries.post(`/internal/search/indexes/${encodeURIComponent(index)}/query`, { text, limit }, { idempotent: true, signal });
  }

  async upsert(index: string, documents: IndexDocument[]): Promise<{ backendIndex: string; upserted: number; created: boolean }> {
    return this.search.post(`/internal/search/indexes/${encodeURIComponent(index)}/upsert`, { documents, create: true }, { idempotent: true, timeoutMs: 120_000 });
  }

  async delete(index: string, ids: string[]): Promise<{ backendIndex: string }> {
    return this.search.post(`/internal/search/indexes/${encodeURIComponent(index)}/delete`, { ids }, { idempotent: true });
  }
}

/** A search failure as this service's answer: its 4xx passed on with the message, anything else 503. */
export function searchFailure(e: unknown): DomainException {
  if (e instanceof DomainException) return e;
  if (e instanceof ServiceCallError && !(e instanceof ServiceUnavailableError) && e.status !== undefined && e.status < 500) {
    const body = (e.body ?? {}) as { code?: string };
    return new DomainException(body.code ?? 'SEARCH_REFUSED', e.status, e.remoteMessage ?? `the search service refused the call (${e.status})`);
  }
  return new DomainException('SEARCH_UNAVAILABLE', 503, 'the search service is unavailable, retry later');
}
