import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ProfileResolver } from '@flowplane/contracts';
import { BusUsageSink, callTimeoutMs, createProviderRegistry, HttpTransport, LlmClient, PrivateHostAllowlist } from '@flowplane/llm';
import { SERVICE_CONTEXT, type ServiceContext } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { GlossarySource } from '../auto-translate.ports';
import { AiSettings } from './ai-settings.service';
import { LOCAL_TRANSLATION_TASKS } from './local-translation.tasks';
import { type EngineOptions, ModelTranslationEngine } from './model-translation-engine';

/** Optional overrides of the engine's retry and batching knobs (tests). */
export const TRANSLATION_ENGINE_OPTIONS = Symbol('TRANSLATION_ENGINE_OPTIONS');

/**
 * The i18n service's `TranslationEngine`: `ModelTranslationEngine` over an `LlmClient` whose usage
 * rows go to the ledger as `llm.usage_recorded` with service `i18n`. Providers are the platform's
 * (`local`, `openai-compatible`, `openai`, `ollama`); the `local` one answers translation requests
 * with pseudo-localization and review requests by the format signature. Base URLs on private
 * addresses need LLM_ALLOWED_PRIVATE_HOSTS, as in flow-runtime; each call is bounded by
 * AI_CALL_TIMEOUT (TRANSLATE_CALL_TIMEOUT feeds it; 0 disables).
 */
@Injectable()
export class LlmTranslationEngine extends ModelTranslationEngine implements OnApplicationShutdown {
  private readonly transport: HttpTransport;

  constructor(
    @Inject(I18nConfig) config: I18nConfig,
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    settings: AiSettings,
    @Optional() profiles?: ProfileResolver,
    @Optional() glossary?: GlossarySource,
    @Optional() @Inject(TRANSLATION_ENGINE_OPTIONS) overrides?: EngineOptions,
  ) {
    const timeoutMs = callTimeoutMs(ctx.env);
    const allowlist = new PrivateHostAllowlist(ctx.env['LLM_ALLOWED_PRIVATE_HOSTS']);
    // The engine retries (with the reason of each failure known); the transport makes one attempt.
    const transport = new HttpTransport({ timeoutMs, maxRetries: 0, allowPrivate: (host, address) => allowlist.allows(host, address) });
    const log = new Logger('TranslationEngine');
    const client = new LlmClient({
      providers: createProviderRegistry({ transport, localTasks: LOCAL_TRANSLATION_TASKS }),
      profiles: profiles,
      usage: ctx.bus ? new BusUsageSink(ctx.bus) : undefined,
      service: 'i18n',
      onRecordError: (error) => log.warn(`a translation usage row could not be published: ${(error as Error).message}`),
    });
    super(client, settings, glossary, {
      maxTokensFloor: config.aiMaxTokens,
      callTimeoutMs: timeoutMs,
      domain: config.translateDomain,
      concurrency: config.aiConcurrency,
      ...overrides,
    });
    this.transport = transport;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.transport.close();
  }
}
