import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { BusUsageSink, callTimeoutMs, type Embedder, EmbedderRegistry, LlmClient, LOCAL_HASH_EMBEDDER_ID, ProviderRegistry } from '@flowplane/llm';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { SERVICE_CONFIG, SERVICE_CONTEXT, type ServiceConfig, type ServiceContext } from '@flowplane/platform/service';
import type { SearchEnv } from '../search.env';
import type { EffectiveSearchSettings } from '../settings/search-settings.service';

/**
 * The embedder of the current settings (`search.embedding_provider`, `search.embedding_model`,
 * SEARCH_EMBEDDING_DIM, SEARCH_EMBEDDING_BASE_URL, SEARCH_EMBEDDING_API_KEY), built through the
 * LLM layer's `EmbedderRegistry` and kept while the settings stay the same.
 *
 * Every call to an embedding model goes through `LlmClient.embed`, so it lands in the `llm_usage`
 * ledger (kind `embedding`, service `search`) like every other model call. The offline
 * `local-hash` embedder is plain code, not a model, and is not recorded.
 */
@Injectable()
export class EmbeddingService {
  private readonly registry: EmbedderRegistry;
  private readonly log = new Logger('Embeddings');
  private readonly client?: LlmClient;
  private current?: { key: string; embedder: Embedder; settings: EffectiveSearchSettings };

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    @Optional() @Inject(EVENT_BUS) bus?: EventBus | null,
  ) {
    if (bus) {
      this.client = new LlmClient({
        providers: new ProviderRegistry(),
        usage: new BusUsageSink(bus),
        service: 'search',
        onRecordError: (error) => this.log.warn(`an embedding usage row could not be published: ${(error as Error).message}`),
      });
    }
    // Embedding base URLs come from this service's environment or a provider preset (Ollama on
    // localhost), never from a request, so private addresses are allowed here.
    this.registry = new EmbedderRegistry({ timeoutMs: callTimeoutMs(ctx.env), allowPrivate: () => true });
  }

  /** The provider ids `search.embedding_provider` may name. */
  providerIds(): string[] {
    return this.registry.ids();
  }

  /** The embedder for `settings`; throws `LlmConfigError` (400) for an unknown provider or a missing model or key. */
  embedderFor(settings: EffectiveSearchSettings): Embedder {
    // The settings service hands out the same object until its cache expires: no key to build then.
    if (this.current?.settings === settings) return this.current.embedder;
    const key = JSON.stringify([settings.embeddingProvider, settings.embeddingModel, this.config.SEARCH_EMBEDDING_DIM]);
    if (this.current?.key === key) {
      this.current.settings = settings;
      return this.current.embedder;
    }
    const embedder = this.registry.create({
      provider: settings.embeddingProvider,
      model: settings.embeddingModel || undefined,
      dimension: this.config.SEARCH_EMBEDDING_DIM,
      baseURL: this.config.SEARCH_EMBEDDING_BASE_URL,
      apiKey: this.config.SEARCH_EMBEDDING_API_KEY,
    });
    this.current = { key, embedder, settings };
    return embedder;
  }

  /** Vectors of `texts` in one call (the provider batches as it can), in input order. */
  async embed(settings: EffectiveSearchSettings, texts: readonly string[]): Promise<number[][]> {
    if (!texts.length) return [];
    const embedder = this.embedderFor(settings);
    if (!this.client || embedder.id === LOCAL_HASH_EMBEDDER_ID) return (await embedder.embed(texts)).vectors;
    return (await this.client.embed(embedder, texts)).vectors;
  }
}
