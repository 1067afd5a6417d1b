import { LlmBadResponseError, LlmConfigError } from '../errors';
import type { HttpTransport } from '../providers/http-transport';
import { countTokens } from '../tokenizer';
import type { Embedder, EmbeddingResult } from './embedder';

/** Settings of an OpenAI-compatible embedder. */
export interface OpenAiCompatibleEmbedderOptions {
  id: string;
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Expected vector length; every answer is checked against it. */
  dimension: number;
  /** Send `dimensions` in the request (OpenAI text-embedding-3 models can shorten their vectors). */
  requestDimensions?: boolean;
  /** Texts per request (default 64). */
  batchSize?: number;
}

/**
 * `POST {baseURL}/embeddings` with `{model, input: [...]}`: OpenAI, Ollama (`nomic-embed-text`,
 * 768 dimensions), vLLM, llama.cpp. Vectors are returned in input order (by `index`) and checked
 * for the configured dimension, so a model swap cannot silently corrupt an index.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly dimension: number;

  constructor(
    private readonly transport: HttpTransport,
    private readonly options: OpenAiCompatibleEmbedderOptions,
  ) {
    if (!options.baseURL) throw new LlmConfigError(`embedder ${options.id} needs a baseURL`);
    if (!options.model) throw new LlmConfigError(`embedder ${options.id} needs a model`);
    if (!Number.isInteger(options.dimension) || options.dimension < 1) throw new LlmConfigError(`embedder ${options.id} needs a positive dimension`);
    this.id = options.id;
    this.model = options.model;
    this.dimension = options.dimension;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<EmbeddingResult> {
    const started = performance.now();
    const batch = Math.max(1, this.options.batchSize ?? 64);
    const vectors: number[][] = [];
    let promptTokens = 0;
    let reported = true;
    let model = this.model;
    for (let offset = 0; offset < texts.length; offset += batch) {
      const input = texts.slice(offset, offset + batch);
      const body: Record<string, unknown> = { model: this.model, input };
      if (this.options.requestDimensions) body.dimensions = this.dimension;
      const { json } = await this.transport.postJson({
        baseURL: this.options.baseURL,
        path: 'embeddings',
        apiKey: this.options.apiKey,
        body,
        signal: options.signal,
        provider: this.id,
      });
      const parsed = this.parse(json, input.length);
      vectors.push(...parsed.vectors);
      if (parsed.model) model = parsed.model;
      if (parsed.promptTokens === undefined) {
        reported = false;
        promptTokens += input.reduce((n, t) => n + countTokens(t), 0);
      } else {
        promptTokens += parsed.promptTokens;
      }
    }
    return { vectors, model, usage: { promptTokens, source: reported ? 'provider' : 'estimated' }, latencyMs: performance.now() - started };
  }

  private parse(json: unknown, expected: number): { vectors: number[][]; model?: string; promptTokens?: number } {
    const body = json as { data?: Array<{ embedding?: unknown; index?: unknown }>; model?: unknown; usage?: { prompt_tokens?: unknown } };
    if (!Array.isArray(body?.data) || body.data.length !== expected) throw new LlmBadResponseError(`${this.id} answered ${Array.isArray(body?.data) ? body.data.length : 'no'} embeddings for ${expected} texts`);
    const out = new Array<number[]>(expected);
    body.data.forEach((item, i) => {
      const index = typeof item.index === 'number' ? item.index : i;
      const v = item.embedding;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) throw new LlmBadResponseError(`${this.id} answered an embedding that is not a list of numbers`);
      if (v.length !== this.dimension) throw new LlmBadResponseError(`${this.id} answered ${v.length} dimensions, expected ${this.dimension} (check the model and the configured dimension)`);
      if (index < 0 || index >= expected || out[index]) throw new LlmBadResponseError(`${this.id} answered an embedding with a bad index ${index}`);
      out[index] = v as number[];
    });
    const tokens = body.usage?.prompt_tokens;
    return {
      vectors: out,
      model: typeof body.model === 'string' ? body.model : undefined,
      promptTokens: typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : undefined,
    };
  }
}
