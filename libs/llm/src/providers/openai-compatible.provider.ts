import type { ChatMessage, ChatProvider, ChatRequest, ChatResult, FinishReason, TokenUsage } from '../chat.types';
import { LlmBadResponseError, LlmConfigError, LlmError, LlmUnavailableError } from '../errors';
import { countPromptTokens, countTokens } from '../tokenizer';
import type { HttpTransport } from './http-transport';
import { sseData } from './sse';

/** Presets of the OpenAI wire format. */
export interface OpenAiCompatibleOptions {
  /** Registry id (`openai-compatible`, `openai`, `ollama`, ...). */
  id: string;
  /** Base URL used when the settings give none (`https://api.openai.com/v1`). */
  defaultBaseURL?: string;
  defaultModel?: string;
  /** Whether a call without `apiKey` is a configuration error (OpenAI) or fine (Ollama, llama.cpp). */
  requiresApiKey?: boolean;
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length', content_filter: 'content_filter', tool_calls: 'tool_calls', function_call: 'tool_calls' };

interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
}

/**
 * Chat completions over the OpenAI wire format (OpenAI, Ollama's `/v1`, vLLM, llama.cpp's server):
 * `POST {baseURL}/chat/completions`, streamed as SSE `data:` chunks until `[DONE]` with
 * `stream_options.include_usage` so the final chunk carries the usage. A reply without usage is
 * counted locally and marked `estimated`.
 */
export class OpenAiCompatibleProvider implements ChatProvider {
  readonly id: string;
  readonly defaultModel?: string;

  constructor(
    private readonly transport: HttpTransport,
    private readonly options: OpenAiCompatibleOptions,
  ) {
    this.id = options.id;
    this.defaultModel = options.defaultModel;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const started = performance.now();
    const { settings } = request;
    const baseURL = settings.baseURL?.trim() || this.options.defaultBaseURL;
    if (!baseURL) throw new LlmConfigError(`provider ${this.id} needs a baseURL`);
    const model = settings.model?.trim() || this.defaultModel;
    if (!model) throw new LlmConfigError(`provider ${this.id} needs a model`);
    if (this.options.requiresApiKey && !settings.apiKey) throw new LlmConfigError(`provider ${this.id} needs an apiKey`);
    const stream = request.onToken !== undefined;
    const body: Record<string, unknown> = { model, messages: request.messages.map(wireMessage), stream };
    if (typeof settings.temperature === 'number' && Number.isFinite(settings.temperature)) body.temperature = settings.temperature;
    if (typeof settings.maxTokens === 'number' && settings.maxTokens >= 1) body.max_tokens = Math.floor(settings.maxTokens);
    if (stream) body.stream_options = { include_usage: true };
    const post = { baseURL, path: 'chat/completions', apiKey: settings.apiKey, body, signal: request.signal, provider: this.id };

    if (!stream) {
      const { json, attempts } = await this.transport.postJson(post);
      const reply = parseCompletion(json, this.id);
      return {
        content: reply.content,
        model: reply.model ?? model,
        finishReason: reply.finishReason,
        usage: usageOf(reply.usage, request.messages, reply.content),
        latencyMs: performance.now() - started,
        attempts,
      };
    }

    const res = await this.transport.open({ ...post, accept: 'text/event-stream' });
    let content = '';
    let finishReason: FinishReason | undefined;
    let usage: WireUsage | undefined;
    let answeredModel: string | undefined;
    let done = false;
    try {
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = parseChunk(data, this.id);
        if (typeof chunk.model === 'string' && chunk.model) answeredModel = chunk.model;
        if (chunk.usage && typeof chunk.usage === 'object') usage = chunk.usage;
        for (const choice of chunk.choices ?? []) {
          if ((choice.index ?? 0) !== 0) continue;
          const piece = choice.delta?.content;
          if (typeof piece === 'string' && piece !== '') {
            content += piece;
            request.onToken!(piece);
          }
          if (typeof choice.finish_reason === 'string') finishReason = FINISH[choice.finish_reason] ?? 'unknown';
        }
      }
    } catch (error) {
      throw error instanceof LlmError ? error : res.fail(error);
    } finally {
      res.done();
    }
    if (!done && finishReason === undefined) throw new LlmUnavailableError(`${this.id} closed the stream before [DONE]`);
    return {
      content,
      model: answeredModel ?? model,
      finishReason: finishReason ?? 'stop',
      usage: usageOf(usage, request.messages, content),
      latencyMs: performance.now() - started,
      attempts: res.attempts,
    };
  }
}

function wireMessage(m: ChatMessage): { role: string; content: string } {
  return { role: m.role, content: m.content };
}

interface WireChunk {
  model?: unknown;
  usage?: WireUsage | null;
  choices?: Array<{ index?: number; delta?: { content?: unknown }; finish_reason?: unknown }>;
}

function parseChunk(data: string, provider: string): WireChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new LlmBadResponseError(`${provider} sent a stream chunk that is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new LlmBadResponseError(`${provider} sent a stream chunk that is not an object`);
  const chunk = parsed as WireChunk & { error?: { message?: unknown } };
  if (chunk.error) throw new LlmUnavailableError(`${provider} reported an error mid-stream${typeof chunk.error.message === 'string' ? `: ${chunk.error.message.slice(0, 300)}` : ''}`);
  if (chunk.choices !== undefined && !Array.isArray(chunk.choices)) throw new LlmBadResponseError(`${provider} sent a stream chunk whose choices is not a list`);
  return chunk;
}

function parseCompletion(json: unknown, provider: string): { content: string; model?: string; finishReason: FinishReason; usage?: WireUsage } {
  const body = json as { model?: unknown; usage?: WireUsage; choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> };
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
  const content = choice?.message?.content;
  if (!choice || (typeof content !== 'string' && content !== null)) throw new LlmBadResponseError(`${provider} answered without choices[0].message.content`);
  return {
    content: content ?? '',
    model: typeof body.model === 'string' ? body.model : undefined,
    finishReason: typeof choice.finish_reason === 'string' ? (FINISH[choice.finish_reason] ?? 'unknown') : 'stop',
    usage: body.usage ?? undefined,
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The provider's counts when complete, otherwise the local tokenizer's (marked `estimated`). */
function usageOf(wire: WireUsage | undefined, messages: readonly ChatMessage[], content: string): TokenUsage {
  const prompt = count(wire?.prompt_tokens);
  const completion = count(wire?.completion_tokens);
  if (prompt !== undefined && completion !== undefined) {
    return { promptTokens: prompt, completionTokens: completion, totalTokens: count(wire?.total_tokens) ?? prompt + completion, source: 'provider' };
  }
  const p = countPromptTokens(messages);
  const c = countTokens(content);
  return { promptTokens: p, completionTokens: c, totalTokens: p + c, source: 'estimated' };
}
