import { ProfileEndpointOverrideError, ProfileNotFoundError, ProfilesUnavailableError } from '@flowplane/contracts';
import {
  type ChatCall,
  type ChatCallResult,
  LlmAbortedError,
  LlmBadResponseError,
  LlmConfigError,
  LlmRateLimitError,
  LlmTimeoutError,
  LlmUnavailableError,
  translationTokenCap,
} from '@flowplane/llm';
import { languageTag } from '../../locales/domain/language-tag';
import {
  addUsage,
  type GlossaryEntry,
  type GlossarySource,
  NO_USAGE,
  type ReviewKeyRequest,
  type ReviewKeyResult,
  ReviewerUnavailableError,
  type ReviewVerdict,
  type TargetLocale,
  type TranslateTextRequest,
  type TranslateTextResult,
  TranslationEngine,
  type TranslationUsage,
  type TranslationUsageContext,
} from '../auto-translate.ports';
import { type FormatSignature, isIcuBranching, keepTermsOf, signature, validate } from './format-signature';
import { parseJsonObject, reviewMessages, translateMessages, translatorNote } from './translation-prompts';

/** The model a call goes to: an `llm-chat` profile (which wins, spec rule 19) over the flat settings. */
export interface ModelSettings {
  profileId?: string;
  /** Flat settings: providerID, model, temperature. */
  config: Record<string, unknown>;
}

/** Where the engine reads `ai/profile`, `ai/provider`, `ai/model` and `ai/temperature`. */
export interface ModelSettingsSource {
  current(): Promise<ModelSettings>;
}

/** The part of `LlmClient` the engine calls. */
export interface ChatClient {
  chat(call: ChatCall): Promise<ChatCallResult>;
}

export interface EngineOptions {
  /** AI_MAX_TOKENS: floor of the completion cap (default 2048). */
  maxTokensFloor?: number;
  /** AI_CALL_TIMEOUT: bound of each model call in ms; 0 disables (default 3 minutes). */
  callTimeoutMs?: number;
  /** CONTENT_TRANSLATE_DOMAIN. */
  domain?: string;
  /** Retries of a call after a 429, a 5xx, a timeout or a malformed wire answer (default 2). */
  retries?: number;
  /** First backoff delay, doubled per retry with full jitter (default 500 ms), capped at `maxBackoffMs` (default 8 s). */
  retryBaseMs?: number;
  maxBackoffMs?: number;
  /** Locales per call for short sources (rule 11, default 6). */
  batchSize?: number;
  /** Sources longer than this many characters go one locale per call (default 1,000). */
  longSourceChars?: number;
  /** Calls of one `translate` in flight at once (default 4). */
  concurrency?: number;
  /** For tests: random number in [0, 1) for the jitter, and the wait itself. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const DEFAULTS = { maxTokensFloor: 2048, callTimeoutMs: 180_000, retries: 2, retryBaseMs: 500, maxBackoffMs: 8_000, batchSize: 6, longSourceChars: 1_000, concurrency: 4 };

/** A call's outcome: the answer text, or why there is none. */
type CallOutcome = { ok: true; content: string; by: string } | { ok: false; reason: string };

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmAbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

function isRetryable(error: unknown): boolean {
  return error instanceof ProfilesUnavailableError || error instanceof LlmRateLimitError || error instanceof LlmUnavailableError || error instanceof LlmTimeoutError || error instanceof LlmBadResponseError;
}

function describe(error: unknown): string {
  if (error instanceof LlmTimeoutError) return `model call timed out after ${error.timeoutMs} ms`;
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return `model call failed${typeof code === 'string' ? ` (${code})` : ''}: ${message.slice(0, 300)}`;
}

/**
 * Translation through a chat model (automatic translation rules 10 and 11). One source text goes
 * to its target locales six per call when short, one per call when longer than `longSourceChars`
 * or an ICU plural/select message; each call's completion cap is sized from the source
 * (`translationTokenCap`, AI_MAX_TOKENS a floor) and bounded by AI_CALL_TIMEOUT; 429s, 5xx,
 * timeouts and malformed wire answers are retried with exponential backoff and full jitter. The
 * model answers `{"<locale>": "<text>"}`; every candidate is checked against the source's format
 * signature. Locales whose answer is missing, not JSON or broken are asked again once, in one
 * call naming each reason, then omitted with the reason, so the source keeps showing. Nothing per
 * locale throws: only an abort or an unusable configuration reject.
 */
export class ModelTranslationEngine extends TranslationEngine {
  private readonly options: Required<Omit<EngineOptions, 'domain' | 'random' | 'sleep'>> & Pick<EngineOptions, 'domain'>;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    private readonly client: ChatClient,
    private readonly settings: ModelSettingsSource,
    private readonly glossarySource?: GlossarySource,
    options: EngineOptions = {},
  ) {
    super();
    this.options = {
      maxTokensFloor: options.maxTokensFloor ?? DEFAULTS.maxTokensFloor,
      callTimeoutMs: options.callTimeoutMs ?? DEFAULTS.callTimeoutMs,
      retries: options.retries ?? DEFAULTS.retries,
      retryBaseMs: options.retryBaseMs ?? DEFAULTS.retryBaseMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      batchSize: Math.max(1, options.batchSize ?? DEFAULTS.batchSize),
      longSourceChars: options.longSourceChars ?? DEFAULTS.longSourceChars,
      concurrency: Math.max(1, options.concurrency ?? DEFAULTS.concurrency),
      domain: options.domain,
    };
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? sleepFor;
  }

  /** Locales per call for this source: one for long and ICU plural/select sources, else the batch size. */
  localesPerCall(text: string, sig: FormatSignature = signature(text)): number {
    return text.length > this.options.longSourceChars || isIcuBranching(sig) ? 1 : this.options.batchSize;
  }

  async translate(request: TranslateTextRequest): Promise<TranslateTextResult> {
    const settings = await this.settings.current();
    const glossary = request.glossary ?? (await this.glossary());
    const translations: Record<string, string> = {};
    const omitted: Array<{ locale: string; reason: string }> = [];
    const state = { usage: NO_USAGE as TranslationUsage, by: undefined as string | undefined };
    const locales = dedupe(request.locales);
    if (!request.text.trim()) {
      for (const l of locales) translations[l.code] = request.text;
      return { translations, omitted, usage: NO_USAGE, by: fallbackBy(settings) };
    }
    const sig = signature(request.text, glossary);
    const note = translatorNote(this.options.domain, request.context, request.label);
    const groups = chunk(locales, this.localesPerCall(request.text, sig));
    const ask = async (targets: TargetLocale[], problems?: Record<string, string>): Promise<CallOutcome> => {
      const messages = translateMessages({ text: request.text, sourceLanguage: request.sourceLocale, targets, note, glossary, problems });
      const maxTokens = translationTokenCap(request.text.length, targets.length, this.options.maxTokensFloor);
      return this.call(settings, messages, maxTokens, request.signal, request.usageContext, state);
    };

    await pool(
      groups.map((group) => async () => {
        const problems: Record<string, string> = {};
        const first = await ask(group);
        this.collect(first, group, sig, translations, problems);
        const again = group.filter((t) => problems[t.code] !== undefined);
        if (!again.length) return;
        // One repair round for every locale that came back missing, unparseable or broken.
        const second = await ask(again, problems);
        const still: Record<string, string> = {};
        this.collect(second, again, sig, translations, still);
        for (const t of again) {
          if (still[t.code] === undefined) continue;
          omitted.push({ locale: t.code, reason: `${still[t.code]} (after one retry)` });
        }
      }),
      this.options.concurrency,
    );
    request.signal?.throwIfAborted();
    const order = new Map(locales.map((l, i) => [l.code, i]));
    omitted.sort((a, b) => order.get(a.locale)! - order.get(b.locale)!);
    return { translations: orderBy(translations, locales), omitted, usage: state.usage, by: state.by ?? fallbackBy(settings) };
  }

  async review(request: ReviewKeyRequest): Promise<ReviewKeyResult> {
    const settings = await this.settings.current();
    const glossary = request.glossary ?? (await this.glossary());
    const state = { usage: NO_USAGE as TranslationUsage, by: undefined as string | undefined };
    const codes = Object.keys(request.candidates);
    if (!codes.length) return { verdicts: {}, usage: NO_USAGE, by: fallbackBy(settings) };
    const keep = keepTermsOf(glossary);
    const messages = reviewMessages({
      source: request.source,
      source_language: request.sourceLocale,
      ...(translatorNote(this.options.domain, request.context, undefined) ? { note: translatorNote(this.options.domain, request.context, undefined) } : {}),
      ...(keep.length ? { do_not_translate: keep } : {}),
      languages: Object.fromEntries(codes.map((c) => [c, languageTag({ code: c })])),
      candidates: request.candidates,
    });
    const candidatesText = Object.values(request.candidates).reduce((n, t) => n + t.length, request.source.length);
    // A verdict is short, but a suggestion is a whole translation: size the cap like a translation of every candidate.
    const maxTokens = translationTokenCap(candidatesText, 1, this.options.maxTokensFloor);
    const outcome = await this.call(settings, messages, maxTokens, request.signal, request.usageContext, state);
    if (!outcome.ok) throw new ReviewerUnavailableError(`reviewer unavailable: ${outcome.reason}`, state.usage);
    const parsed = parseJsonObject(outcome.content);
    if (!parsed) throw new ReviewerUnavailableError('reviewer unavailable: its answer was not a JSON object', state.usage);
    const verdicts: Record<string, ReviewVerdict> = {};
    for (const code of codes) {
      const raw = parsed[code];
      if (!raw || typeof raw !== 'object' || typeof (raw as { ok?: unknown }).ok !== 'boolean') {
        throw new ReviewerUnavailableError(`reviewer unavailable: its answer had no verdict for ${code}`, state.usage);
      }
      const v = raw as { ok: boolean; reason?: unknown; suggestion?: unknown };
      const suggestion = typeof v.suggestion === 'string' && v.suggestion.trim() ? v.suggestion : undefined;
      // Rule 5: a rejection that suggests the very candidate is no rejection.
      if (v.ok || (suggestion !== undefined && suggestion.trim() === request.candidates[code].trim())) verdicts[code] = { ok: true };
      else verdicts[code] = { ok: false, ...(typeof v.reason === 'string' && v.reason.trim() ? { reason: v.reason.trim() } : { reason: 'rejected' }), ...(suggestion !== undefined ? { suggestion } : {}) };
    }
    return { verdicts, usage: state.usage, by: state.by ?? fallbackBy(settings) };
  }

  /** Sorts a call's answer into `translations` and `problems` (the reason of each locale left out). */
  private collect(outcome: CallOutcome, targets: readonly TargetLocale[], sig: FormatSignature, translations: Record<string, string>, problems: Record<string, string>): void {
    if (!outcome.ok) {
      for (const t of targets) problems[t.code] = outcome.reason;
      return;
    }
    const parsed = parseJsonObject(outcome.content);
    for (const t of targets) {
      if (!parsed) {
        problems[t.code] = 'the model answer was not a JSON object';
        continue;
      }
      const candidate = parsed[t.code];
      if (typeof candidate !== 'string') {
        problems[t.code] = `the model answer had no translation for ${t.code}`;
        continue;
      }
      const broken = validate(sig, candidate, { language: t.language });
      if (broken) problems[t.code] = broken;
      else {
        translations[t.code] = candidate;
        delete problems[t.code];
      }
    }
  }

  /**
   * One model call, retried with exponential backoff and full jitter on 429, 5xx, timeouts and
   * malformed wire answers. An outage is an outcome, not an exception; an abort and an unusable
   * configuration throw.
   */
  private async call(
    settings: ModelSettings,
    messages: ChatCall['messages'],
    maxTokens: number,
    signal: AbortSignal | undefined,
    usageContext: TranslationUsageContext | undefined,
    state: { usage: TranslationUsage; by?: string },
  ): Promise<CallOutcome> {
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        const result = await this.bounded(
          (callSignal) =>
            this.client.chat({
              profileId: settings.profileId,
              precedence: 'module',
              config: { ...settings.config, maxTokens },
              messages,
              signal: callSignal,
              context: { kind: 'chat', userId: usageContext?.userId, flowId: usageContext?.flowId, runId: usageContext?.runId },
            }),
          signal,
        );
        state.usage = addUsage(state.usage, { calls: 1, promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens, totalTokens: result.usage.totalTokens, costUsd: 0 });
        state.by ??= `${result.providerId}/${result.model}`;
        return { ok: true, content: result.content, by: `${result.providerId}/${result.model}` };
      } catch (error) {
        if (signal?.aborted) throw error instanceof LlmAbortedError ? error : new LlmAbortedError();
        const config = asConfigError(error);
        if (config) throw config;
        state.usage = addUsage(state.usage, { ...NO_USAGE, calls: 1 });
        if (!isRetryable(error) || attempt >= this.options.retries) return { ok: false, reason: describe(error) };
        await this.sleep(this.backoff(attempt, error), signal);
      }
    }
  }

  private backoff(attempt: number, error: unknown): number {
    const ceiling = Math.min(this.options.maxBackoffMs, this.options.retryBaseMs * 2 ** attempt);
    const jittered = Math.floor(this.random() * ceiling);
    const asked = error instanceof LlmRateLimitError ? error.retryAfterMs : undefined;
    return asked !== undefined ? Math.min(Math.max(jittered, asked), Math.max(this.options.maxBackoffMs, ceiling)) : jittered;
  }

  /** Runs one call under AI_CALL_TIMEOUT (also when the provider ignores its signal), linked to the caller's abort. */
  private async bounded<T>(run: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    const ms = this.options.callTimeoutMs;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const running = run(controller.signal);
      if (ms <= 0) return await running;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new LlmTimeoutError(ms));
          controller.abort();
        }, ms);
      });
      running.catch(() => undefined);
      return await Promise.race([running, timeout]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  private async glossary(): Promise<readonly GlossaryEntry[]> {
    if (!this.glossarySource) return [];
    try {
      return await this.glossarySource.entries();
    } catch {
      // A glossary that cannot be read leaves the prompt without it; translation goes on.
      return [];
    }
  }
}

/** Configuration problems reject the whole call (a profile that does not exist, an unknown provider, ...). */
function asConfigError(error: unknown): Error | undefined {
  if (error instanceof LlmConfigError) return error;
  if (error instanceof ProfileNotFoundError || error instanceof ProfileEndpointOverrideError) return new LlmConfigError(`ai/profile: ${(error as Error).message}`);
  return undefined;
}

function fallbackBy(settings: ModelSettings): string {
  if (settings.profileId) return `profile:${settings.profileId}`;
  const provider = typeof settings.config.providerID === 'string' && settings.config.providerID ? settings.config.providerID : 'local';
  const model = typeof settings.config.model === 'string' && settings.config.model ? settings.config.model : 'default';
  return `${provider}/${model}`;
}

function dedupe(locales: readonly TargetLocale[]): TargetLocale[] {
  const seen = new Set<string>();
  return locales.filter((l) => !seen.has(l.code) && (seen.add(l.code), true));
}

function orderBy(translations: Record<string, string>, locales: readonly TargetLocale[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of locales) if (translations[l.code] !== undefined) out[l.code] = translations[l.code];
  return out;
}
