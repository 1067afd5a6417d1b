import { Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ServiceCallError, ServiceClient } from '@flowplane/contracts';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import { currentRequestId } from '@flowplane/platform/http';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import type { SearchDocument } from '../domain/search.types';
import type { RegisterSearchOwnerDto } from '../dto/owner.dto';
import { type FreshnessRegistrationResult, SearchFreshness } from './search-freshness.service';
import type { SearchModuleRegistration } from './search-owners.registry';

/** Store collection of owner registrations made over HTTP (one document per module). */
export const SEARCH_OWNERS_COLLECTION = 'search_owners';

interface OwnerDocument extends StoreDocument {
  json: string;
  registeredAt: Date;
}

interface SourcePage {
  documents?: SearchDocument[];
  nextCursor?: string | null;
}

/**
 * Owners in other services (`PUT /internal/search/owners/{module}`, service token). They serve their
 * documents at `sourceUrl`:
 * - `GET {sourceUrl}/{index}/documents?cursor=` answers `{documents: [Document], nextCursor}` (null on
 *   the last page): the reindexer;
 * - `GET {sourceUrl}/{index}/documents/{id}` answers one Document, or 404 when the entity is gone or no
 *   longer public: what lifecycle consumers rebuild.
 * Registrations are kept in the store and registered again when the service starts.
 */
@Injectable()
export class RemoteSearchOwners implements OnApplicationBootstrap {
  private readonly log = new Logger('SearchOwners');
  private readonly docs: Collection<OwnerDocument> | undefined;

  constructor(
    private readonly freshness: SearchFreshness,
    @Optional() @Inject(STORE) store?: Store | null,
    @Optional() @Inject(ServiceTokenProvider) private readonly tokens?: ServiceTokenProvider | null,
  ) {
    this.docs = store ? store.collection<OwnerDocument>(SEARCH_OWNERS_COLLECTION) : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.docs) return;
    for (const doc of await this.docs.find({})) {
      try {
        await this.freshness.register(this.toRegistration(doc._id, JSON.parse(doc.json) as RegisterSearchOwnerDto));
      } catch (err) {
        this.log.warn(`could not restore the search owner ${doc._id}: ${(err as Error).message}`);
      }
    }
  }

  async register(module: string, dto: RegisterSearchOwnerDto): Promise<FreshnessRegistrationResult> {
    const result = await this.freshness.register(this.toRegistration(module, dto));
    await this.docs?.replaceOne({ _id: module }, { json: JSON.stringify(dto), registeredAt: new Date() }, { upsert: true });
    return result;
  }

  async unregister(module: string): Promise<boolean> {
    const removed = await this.freshness.unregister(module);
    const deleted = (await this.docs?.deleteOne({ _id: module }))?.deletedCount ?? 0;
    return removed || deleted > 0;
  }

  private toRegistration(module: string, dto: RegisterSearchOwnerDto): SearchModuleRegistration {
    const client = new ServiceClient({
      service: module,
      baseUrl: dto.sourceUrl,
      timeoutMs: 30_000,
      retries: 2,
      tokenProvider: this.tokens ? (target, perms) => this.tokens!.token(target, perms) : undefined,
      requestIdProvider: currentRequestId,
    });
    const path = (index: string) => `/${encodeURIComponent(index)}/documents`;
    return {
      module,
      events: dto.events,
      reindexers: dto.indexes
        .filter((i) => i.reindex !== false)
        .map((i) => ({
          index: i.index,
          module,
          dim: i.dim,
          distance: i.distance,
          documents: async function* () {
            let cursor: string | undefined;
            for (let pages = 0; pages < 1_000_000; pages++) {
              const page = await client.get<SourcePage>(path(i.index), { query: { cursor } });
              if (!Array.isArray(page?.documents)) throw new Error(`owner ${module} answered a page without documents for ${i.index}`);
              yield page.documents;
              if (!page.nextCursor) return;
              cursor = page.nextCursor;
            }
          },
        })),
      consumers: (dto.consumers ?? []).map((c) => ({
        topic: c.topic,
        groupId: c.groupId,
        index: c.index,
        rebuild: async (id: string) => {
          try {
            return await client.get<SearchDocument>(`${path(c.index)}/${encodeURIComponent(id)}`);
          } catch (err) {
            if (err instanceof ServiceCallError && (err.status === 404 || err.status === 410)) return null;
            throw err;
          }
        },
      })),
    };
  }
}
