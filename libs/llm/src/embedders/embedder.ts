import type { UsageSource } from '../chat.types';

/** Vectors for a batch of texts, in input order. */
export interface EmbeddingResult {
  vectors: number[][];
  /** The model that produced them. */
  model: string;
  usage: { promptTokens: number; source: UsageSource };
  latencyMs: number;
}

/**
 * Turns texts into vectors of a fixed dimension. Implementations: `local-hash` (offline, feature
 * hashing) and the OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama `nomic-embed-text`, ...).
 */
export interface Embedder {
  /** Provider id (`local-hash`, `openai-compatible`, `openai`, `ollama`). */
  readonly id: string;
  readonly model: string;
  /** Length of every vector this embedder returns. */
  readonly dimension: number;
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<EmbeddingResult>;
}

/** Cosine similarity of two vectors of equal length (dot product when both are unit length). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
