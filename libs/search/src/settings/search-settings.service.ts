import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { SERVICE_CONFIG, type ServiceConfig, ServiceClients } from '@flowplane/platform/service';
import type { VectorDistance } from '@flowplane/platform/vector';
import { EmbeddingService } from '../domain/embedding.service';
import type { SearchEnv } from '../search.env';

/** The `search.*` runtime settings as the service applies them. */
export interface EffectiveSearchSettings {
  defaultDistance: VectorDistance;
  defaultLimit: number;
  indexPrefix: string;
  embeddingProvider: string;
  /** Empty means the provider's default model. */
  embeddingModel: string;
}

/** What `GET /internal/settings/search` of the profiles service answers. */
interface InternalModuleSettings {
  values: Record<string, unknown>;
  sources: Record<string, 'stored' | 'env' | 'default' | 'unset'>;
}

const DISTANCES: readonly VectorDistance[] = ['cosine', 'dot', 'euclid'];
const PREFIX = /^[A-Za-z0-9_-]{0,40}$/;
/** Staleness bound when a settings.updated event is missed. */
const TTL_MS = 30_000;
/** How long the fallback is used before the profiles service is asked again. */
const UNREACHABLE_RETRY_MS = 5_000;

/**
 * The runtime settings `search.*` (stored in the profiles service, editable at
 * /admin/settings/search), over this service's own environment. A value stored by an admin wins;
 * otherwise this service's SEARCH_* environment applies (not the profiles service's, which may run
 * elsewhere with another environment), then the declared default. Cached, dropped on
 * `settings.updated` for module `search` (fan-out group per replica) and after 30 s. While the
 * profiles service is unreachable the last values read are used, or the environment before any read:
 * search keeps answering.
 */
@Injectable()
export class SearchSettings implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('SearchSettings');
  private cached?: { value: EffectiveSearchSettings; at: number };
  private lastGood?: EffectiveSearchSettings;
  private inflight?: Promise<EffectiveSearchSettings>;
  private generation = 0;
  private subscription?: Subscription;
  private warnedUnreachable = false;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
    private readonly clients: ServiceClients,
    @Optional() @Inject(EVENT_BUS) private readonly bus?: EventBus | null,
    @Optional() private readonly embeddings?: EmbeddingService,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.bus) return;
    this.subscription = await this.bus.subscribe<SettingsUpdatedPayload>(
      [Topics.SettingsUpdated],
      { groupId: `search-settings-${hostname()}-${process.pid}`, fromBeginning: false },
      async (event) => {
        if (event.data?.module === 'search') this.invalidate();
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop().catch(() => undefined);
  }

  /** The settings in force now. */
  async current(): Promise<EffectiveSearchSettings> {
    if (this.cached && Date.now() - this.cached.at < TTL_MS) return this.cached.value;
    if (!this.inflight) {
      const generation = this.generation;
      const pending = this.fetch()
        .then((value) => {
          if (generation === this.generation) this.cached = { value, at: Date.now() };
          this.lastGood = value;
          this.warnedUnreachable = false;
          return value;
        })
        .catch((err: unknown) => {
          const fallback = this.lastGood ?? this.fromEnvironment();
          // Ask again after UNREACHABLE_RETRY_MS, not on every request: each failed read costs a timeout or a retry.
          if (generation === this.generation) this.cached = { value: fallback, at: Date.now() - TTL_MS + UNREACHABLE_RETRY_MS };
          if (!this.warnedUnreachable) {
            this.warnedUnreachable = true;
            this.log.warn(`profiles service unreachable, search settings from ${this.lastGood ? 'the last read' : 'the environment'}: ${(err as Error).message}`);
          }
          return fallback;
        })
        .finally(() => {
          if (this.inflight === pending) this.inflight = undefined;
        });
      this.inflight = pending;
    }
    return this.inflight;
  }

  /** Drops the cache; the next read asks the profiles service again. */
  invalidate(): void {
    this.generation++;
    this.cached = undefined;
    this.inflight = undefined;
  }

  /** The settings from this service's environment and the declared defaults alone. */
  fromEnvironment(): EffectiveSearchSettings {
    return {
      defaultDistance: 'cosine',
      defaultLimit: Math.min(10, this.config.SEARCH_MAX_LIMIT),
      indexPrefix: this.config.SEARCH_INDEX_PREFIX,
      embeddingProvider: this.config.SEARCH_EMBEDDING_PROVIDER,
      embeddingModel: this.config.SEARCH_EMBEDDING_MODEL ?? '',
    };
  }

  private async fetch(): Promise<EffectiveSearchSettings> {
    const client = this.clients.for('profiles', { timeoutMs: 3000, retries: 1 });
    const body = await client.get<InternalModuleSettings>('/internal/settings/search');
    const base = this.fromEnvironment();
    const stored = (key: string): unknown => (body.sources?.[key] === 'stored' ? body.values?.[key] : undefined);
    const out = { ...base };

    const distance = stored('default_distance');
    if (distance !== undefined) {
      if (DISTANCES.includes(distance as VectorDistance)) out.defaultDistance = distance as VectorDistance;
      else this.log.warn(`ignoring search.default_distance ${JSON.stringify(distance)}: use cosine, dot or euclid`);
    }
    const limit = stored('default_limit');
    if (limit !== undefined) {
      const n = Number(limit);
      if (Number.isInteger(n) && n >= 1) out.defaultLimit = Math.min(n, this.config.SEARCH_MAX_LIMIT);
      else this.log.warn(`ignoring search.default_limit ${JSON.stringify(limit)}: use a positive integer`);
    }
    const prefix = stored('index_prefix');
    if (prefix !== undefined) {
      if (typeof prefix === 'string' && PREFIX.test(prefix)) out.indexPrefix = prefix;
      else this.log.warn(`ignoring search.index_prefix ${JSON.stringify(prefix)}: up to 40 letters, digits, "_" or "-"`);
    }
    const provider = stored('embedding_provider');
    if (typeof provider === 'string' && provider.trim()) {
      // A value stored before the profiles service checked it against the embedders: ignored, so
      // text queries keep working with the environment's provider instead of all failing.
      const known = this.embeddings?.providerIds();
      if (!known || known.includes(provider.trim())) out.embeddingProvider = provider.trim();
      else this.log.warn(`ignoring search.embedding_provider ${JSON.stringify(provider)}: use one of ${known.join(', ')}`);
    }
    const model = stored('embedding_model');
    if (typeof model === 'string') out.embeddingModel = model.trim();
    return out;
  }
}
