import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { SERVICE_CONTEXT, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import type { ModelSettings, ModelSettingsSource } from './model-translation-engine';

/** What `GET /internal/settings/ai` of the profiles service answers. */
interface InternalModuleSettings {
  values?: Record<string, unknown>;
  sources?: Record<string, 'stored' | 'env' | 'default' | 'unset'>;
}

/** Settings read this recently are used as they are. */
const TTL_MS = 1_000;
/** After a failed read, the fallback is used this long before the profiles service is asked again. */
const UNREACHABLE_RETRY_MS = 5_000;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/**
 * The model of automatic translation (spec rule 19): module settings `ai/profile`, `ai/provider`,
 * `ai/model` and `ai/temperature`, stored in the profiles service (editable at
 * /admin/settings/ai). A stored value wins, then this service's environment (AI_PROFILE,
 * AI_PROVIDER, AI_MODEL, AI_TEMPERATURE), then the default provider `local`. A profile named by
 * `ai/profile` overrides the flat provider, model and temperature when the call is made. Read at
 * most once a second; while the profiles service is unreachable, the last values read (or the
 * environment) apply.
 */
@Injectable()
export class AiSettings implements ModelSettingsSource {
  private readonly log = new Logger('AiSettings');
  private cached?: { value: ModelSettings; at: number };
  private lastGood?: ModelSettings;
  private inflight?: Promise<ModelSettings>;
  private warned = false;

  constructor(
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    @Optional() private readonly clients?: ServiceClients,
  ) {}

  current(): Promise<ModelSettings> {
    if (this.cached && Date.now() - this.cached.at < TTL_MS) return Promise.resolve(this.cached.value);
    this.inflight ??= this.read().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  /** The settings from this service's environment alone. */
  fromEnvironment(): ModelSettings {
    const env = this.ctx.env;
    return this.build({ profile: this.config.aiProfile, provider: env['AI_PROVIDER'], model: env['AI_MODEL'], temperature: env['AI_TEMPERATURE'] });
  }

  private async read(): Promise<ModelSettings> {
    if (!this.clients) return this.remember(this.fromEnvironment(), TTL_MS);
    try {
      const body = await this.clients.for('profiles', { timeoutMs: 3000, retries: 1 }).get<InternalModuleSettings>('/internal/settings/ai');
      const stored = (key: string): unknown => (body.sources?.[key] === 'stored' ? body.values?.[key] : undefined);
      const env = this.ctx.env;
      const value = this.build({
        profile: stored('profile') ?? this.config.aiProfile,
        provider: stored('provider') ?? env['AI_PROVIDER'],
        model: stored('model') ?? env['AI_MODEL'],
        temperature: stored('temperature') ?? env['AI_TEMPERATURE'],
      });
      this.lastGood = value;
      this.warned = false;
      return this.remember(value, TTL_MS);
    } catch (err) {
      if (!this.warned) {
        this.warned = true;
        this.log.warn(`profiles service unreachable, ai settings from ${this.lastGood ? 'the last read' : 'the environment'}: ${(err as Error).message}`);
      }
      return this.remember(this.lastGood ?? this.fromEnvironment(), UNREACHABLE_RETRY_MS);
    }
  }

  private remember(value: ModelSettings, forMs: number): ModelSettings {
    this.cached = { value, at: Date.now() - TTL_MS + forMs };
    return value;
  }

  private build(raw: { profile?: unknown; provider?: unknown; model?: unknown; temperature?: unknown }): ModelSettings {
    const config: Record<string, unknown> = { providerID: str(raw.provider) ?? 'local' };
    const model = str(raw.model);
    if (model) config.model = model;
    const temperature = typeof raw.temperature === 'number' ? raw.temperature : str(raw.temperature) !== undefined ? Number(raw.temperature) : undefined;
    if (temperature !== undefined && Number.isFinite(temperature)) config.temperature = temperature;
    const profileId = str(raw.profile);
    return profileId ? { profileId, config } : { config };
  }
}
