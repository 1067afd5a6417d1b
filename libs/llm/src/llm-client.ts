import { LLM_CHAT_KIND, mergeProfile } from '@flowplane/contracts';
import type { ChatMessage, ChatResult } from './chat.types';
import type { Embedder, EmbeddingResult } from './embedders/embedder';
import type { ProviderRegistry } from './providers/provider-registry';
import { chatSettingsOf, mergeModuleProfile } from './settings';
import { type UsageContext, type UsageRecord, usageRow, type UsageSink } from './usage/usage-record';

/** The part of contracts' `ProfileResolver` the client uses. */
export interface LlmProfileResolver {
  resolve(module: string, kind: string, profileId: string): Promise<{ readonly config: Readonly<Record<string, unknown>> }>;
}

/** Options of an `LlmClient`. */
export interface LlmClientOptions {
  providers: ProviderRegistry;
  /** Resolves `llm-chat` profiles named by calls. */
  profiles?: LlmProfileResolver;
  /** Where usage rows go; without one nothing is recorded. */
  usage?: UsageSink;
  /** Name of the calling service, stamped on rows. */
  service?: string;
  /** Told about a row that could not be recorded (the call itself still succeeds). */
  onRecordError?: (error: unknown, row: UsageRecord) => void;
}

/** One chat call through the client. */
export interface ChatCall {
  /** An `llm-chat` profile: resolved and merged (unless `profileMerged`), and stamped on the usage row. */
  profileId?: string;
  /** Flat settings (providerID, model, baseURL, apiKey, temperature, maxTokens). */
  config?: Readonly<Record<string, unknown>>;
  /**
   * How a resolved profile combines with `config`: `node` (default, spec rule 18: a value in
   * `config` wins) or `module` (rule 19: the profile overrides the flat settings).
   */
  precedence?: 'node' | 'module';
  /** The profile is already merged into `config` (the flow engine did it): only stamp its id. */
  profileMerged?: boolean;
  messages: ChatMessage[];
  onToken?: (chunk: string) => void;
  signal?: AbortSignal;
  /** Breakdown dimensions for the usage row. */
  context?: UsageContext;
}

/** A chat result with what the ledger recorded. */
export interface ChatCallResult extends ChatResult {
  providerId: string;
  profileId?: string;
  /** The ledger row (also when it could not be stored). */
  usageRecord: UsageRecord;
}

/**
 * One way for every service to call a model: resolves the profile, picks the provider, calls it
 * within the shared bounds, and records one usage row per call (success or failure) with the
 * profile id stamped after the merge (spec rule 23).
 */
export class LlmClient {
  constructor(private readonly options: LlmClientOptions) {}

  async chat(call: ChatCall): Promise<ChatCallResult> {
    const profileId = call.profileId?.trim() || undefined;
    let config: Record<string, unknown> = { ...(call.config ?? {}) };
    if (profileId && !call.profileMerged) {
      if (!this.options.profiles) throw new Error(`profile ${profileId} named but this client has no profile resolver`);
      const profile = await this.options.profiles.resolve(LLM_CHAT_KIND.module, LLM_CHAT_KIND.id, profileId);
      const ref = { module: LLM_CHAT_KIND.module, kind: LLM_CHAT_KIND.id, profileId };
      config = call.precedence === 'module' ? mergeModuleProfile(config, profile.config, profileId) : mergeProfile(profile.config, config, { profileRef: ref });
    }
    const settings = chatSettingsOf(config);
    const provider = this.options.providers.require(settings.providerID);
    const model = settings.model ?? provider.defaultModel ?? 'unknown';
    const started = performance.now();
    let result: ChatResult;
    try {
      result = await provider.chat({ settings, messages: call.messages, signal: call.signal, onToken: call.onToken });
    } catch (error) {
      await this.record(usageRow({ providerId: provider.id, model, latencyMs: performance.now() - started, error, service: this.options.service }, { kind: 'chat', ...call.context, profileId }));
      throw error;
    }
    const row = usageRow({ providerId: provider.id, model: result.model || model, usage: result.usage, latencyMs: result.latencyMs, service: this.options.service }, { kind: 'chat', ...call.context, profileId });
    await this.record(row);
    return { ...result, providerId: provider.id, profileId, usageRecord: row };
  }

  /** Embeds texts and records the call (kind `embedding`, no completion tokens). */
  async embed(embedder: Embedder, texts: readonly string[], options: { signal?: AbortSignal; context?: UsageContext } = {}): Promise<EmbeddingResult> {
    const started = performance.now();
    try {
      const result = await embedder.embed(texts, { signal: options.signal });
      const usage = { promptTokens: result.usage.promptTokens, completionTokens: 0, totalTokens: result.usage.promptTokens, source: result.usage.source };
      await this.record(usageRow({ providerId: embedder.id, model: result.model, usage, latencyMs: result.latencyMs, service: this.options.service }, { ...options.context, kind: 'embedding' }));
      return result;
    } catch (error) {
      await this.record(usageRow({ providerId: embedder.id, model: embedder.model, latencyMs: performance.now() - started, error, service: this.options.service }, { ...options.context, kind: 'embedding' }));
      throw error;
    }
  }

  private async record(row: UsageRecord): Promise<void> {
    const sink = this.options.usage;
    if (!sink) return;
    try {
      await sink.record(row);
    } catch (error) {
      this.options.onRecordError?.(error, row);
    }
  }
}
