import { LlmConfigError } from '../errors';
import { HttpTransport, type TransportOptions } from '../providers/http-transport';
import type { Embedder } from './embedder';
import { DEFAULT_EMBEDDING_DIM, LOCAL_HASH_EMBEDDER_ID, LocalHashEmbedder } from './local-hash.embedder';
import { OpenAiCompatibleEmbedder } from './openai-compatible.embedder';

/** What an embedder is built from (for search: SEARCH_EMBEDDING_PROVIDER, _MODEL, _DIM, ...). */
export interface EmbedderConfig {
  /** `local-hash` (default), `openai-compatible`, `openai` or `ollama`. */
  provider?: string;
  model?: string;
  /** Vector length; default 768. */
  dimension?: number;
  baseURL?: string;
  apiKey?: string;
  batchSize?: number;
  requestDimensions?: boolean;
}

/** Builds an embedder from its config. */
export type EmbedderFactory = (config: EmbedderConfig, transport: HttpTransport) => Embedder;

const OPENAI_PRESETS: Record<string, { baseURL?: string; model?: string; requiresKey?: boolean }> = {
  'openai-compatible': {},
  openai: { baseURL: 'https://api.openai.com/v1', model: 'text-embedding-3-small', requiresKey: true },
  ollama: { baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text' },
};

/**
 * Embedder factories by provider id. `create()` builds one from a config, sharing one HTTP
 * transport (call timeout, retries, address policy) across the embedders it makes.
 */
export class EmbedderRegistry {
  private readonly factories = new Map<string, EmbedderFactory>();
  private readonly transport: HttpTransport;

  constructor(options: TransportOptions & { transport?: HttpTransport } = {}) {
    this.transport = options.transport ?? new HttpTransport(options);
    this.register(LOCAL_HASH_EMBEDDER_ID, (c) => new LocalHashEmbedder(c.dimension ?? DEFAULT_EMBEDDING_DIM));
    for (const [id, preset] of Object.entries(OPENAI_PRESETS)) {
      this.register(id, (c, transport) => {
        if (preset.requiresKey && !c.apiKey) throw new LlmConfigError(`embedder ${id} needs an apiKey`);
        return new OpenAiCompatibleEmbedder(transport, {
          id,
          baseURL: c.baseURL?.trim() || preset.baseURL || '',
          model: c.model?.trim() || preset.model || '',
          apiKey: c.apiKey,
          dimension: c.dimension ?? DEFAULT_EMBEDDING_DIM,
          batchSize: c.batchSize,
          requestDimensions: c.requestDimensions,
        });
      });
    }
  }

  register(id: string, factory: EmbedderFactory, options: { replace?: boolean } = {}): this {
    if (this.factories.has(id) && !options.replace) throw new Error(`embedder ${id} is already registered`);
    this.factories.set(id, factory);
    return this;
  }

  ids(): string[] {
    return [...this.factories.keys()].sort();
  }

  create(config: EmbedderConfig = {}): Embedder {
    const id = config.provider?.trim() || LOCAL_HASH_EMBEDDER_ID;
    const factory = this.factories.get(id);
    if (!factory) throw new LlmConfigError(`unknown embedding provider ${JSON.stringify(id)}; registered: ${this.ids().join(', ')}`);
    return factory(config, this.transport);
  }
}
