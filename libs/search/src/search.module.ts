import { type DynamicModule, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import type { ServiceContext } from '@flowplane/platform/service';
import { EmbeddingService } from './domain/embedding.service';
import { SearchErrorsInterceptor } from './domain/search.errors';
import { SearchService } from './domain/search.service';
import { RemoteSearchOwners } from './freshness/remote-owners.service';
import { SearchFreshness } from './freshness/search-freshness.service';
import { SearchOwners, type SearchModuleRegistration } from './freshness/search-owners.registry';
import { AdminSearchController } from './http/admin-search.controller';
import { InternalSearchController } from './http/internal-search.controller';
import { SearchController } from './http/search.controller';
import { InternalIndexesController } from './http/internal-indexes.controller';
import { SearchNodeRegistrar } from './nodes/search-node.registrar';
import { SearchNodesController } from './nodes/search-nodes.controller';
import { SearchSettings } from './settings/search-settings.service';

export interface SearchModuleOptions {
  /** In-process modules that keep indexes fresh (lifecycle consumers and reindexers). */
  modules?: SearchModuleRegistration[];
}

const MODULES = Symbol('SEARCH_MODULE_REGISTRATIONS');

@Injectable()
class RegisterInProcessModules implements OnApplicationBootstrap {
  constructor(
    private readonly freshness: SearchFreshness,
    private readonly modules: { list: SearchModuleRegistration[] },
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const m of this.modules.list) await this.freshness.register(m);
  }
}

/**
 * The search feature (issue 9): vector indexes behind the VectorStore port, embedding through the
 * LLM layer, runtime settings from the profiles service, freshness, and the two flow nodes.
 */
@Module({})
export class SearchModule {
  static forRoot(_ctx?: ServiceContext, options: SearchModuleOptions = {}): DynamicModule {
    return {
      module: SearchModule,
      controllers: [SearchController, AdminSearchController, InternalSearchController, InternalIndexesController, SearchNodesController],
      providers: [
        SearchSettings,
        EmbeddingService,
        SearchOwners,
        SearchService,
        SearchFreshness,
        RemoteSearchOwners,
        SearchNodeRegistrar,
        SearchErrorsInterceptor,
        { provide: MODULES, useValue: { list: options.modules ?? [] } },
        { provide: RegisterInProcessModules, inject: [SearchFreshness, MODULES], useFactory: (f: SearchFreshness, m: { list: SearchModuleRegistration[] }) => new RegisterInProcessModules(f, m) },
      ],
      exports: [SearchService, SearchFreshness, SearchOwners, SearchSettings, SearchNodeRegistrar],
    };
  }
}
