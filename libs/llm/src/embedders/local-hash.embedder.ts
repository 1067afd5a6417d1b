import { countTokens } from '../tokenizer';
import type { Embedder, EmbeddingResult } from './embedder';

export const LOCAL_HASH_EMBEDDER_ID = 'local-hash';
export const LOCAL_HASH_MODEL = 'local-hash-v1';
export const DEFAULT_EMBEDDING_DIM = 768;

// Feature weights: whole words carry the meaning, word pairs the phrasing, character n-grams make
// inflections and typos land near each other ("index", "indexes", "indxe").
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const CHAR_WEIGHT = 0.2;
const CHAR_NGRAMS = [3, 4] as const;
const BOUNDARY = 0x23; // '#', pads each word for its character n-grams

const WORD = /[\p{L}\p{N}]+/gu;
const SEED_WORD = 0x9747b28c;
const SEED_BIGRAM = 0x85ebca6b;
const SEED_CHAR = 0xc2b2ae35;
const EMPTY_TEXT_FEATURE = 0x5bd1e995;

/**
 * The `local-hash` embedder: deterministic, offline feature hashing (the "hashing trick") of word
 * unigrams, word bigrams and character 3- and 4-grams of each word (padded with a boundary mark).
 * Each feature adds its weight, with a sign taken from its hash so collisions cancel out on
 * average instead of piling up, into one of `dimension` buckets; the vector is then L2-normalised.
 * Texts sharing words or word parts get a higher cosine similarity. Text is NFKC-normalised and
 * lower-cased first. A text with no words maps to one fixed unit vector.
 *
 * The hash is FNV-1a over UTF-16 code units with MurmurHash3's finaliser, computed in place so no
 * substring is allocated per feature (the `murmurhash` package hashes only ASCII strings).
 */
export class LocalHashEmbedder implements Embedder {
  readonly id = LOCAL_HASH_EMBEDDER_ID;
  readonly model = LOCAL_HASH_MODEL;
  private readonly acc: Float64Array;

  constructor(readonly dimension: number = DEFAULT_EMBEDDING_DIM) {
    if (!Number.isInteger(dimension) || dimension < 8 || dimension > 65_536) throw new RangeError(`embedding dimension must be an integer in 8..65536, got ${dimension}`);
    this.acc = new Float64Array(dimension);
  }

  async embed(texts: readonly string[]): Promise<EmbeddingResult> {
    const started = performance.now();
    const vectors = new Array<number[]>(texts.length);
    let tokens = 0;
    for (let i = 0; i < texts.length; i++) {
      vectors[i] = this.embedOne(texts[i]);
      tokens += countTokens(texts[i]);
    }
    return { vectors, model: this.model, usage: { promptTokens: tokens, source: 'provider' }, latencyMs: performance.now() - started };
  }

  /** The vector of one text, synchronously. */
  embedOne(text: string): number[] {
    const acc = this.acc;
    acc.fill(0);
    const s = (text ?? '').normalize('NFKC').toLowerCase();
    let previous = -1;
    let features = 0;
    WORD.lastIndex = 0;
    for (let m = WORD.exec(s); m !== null; m = WORD.exec(s)) {
      const start = m.index;
      const end = start + m[0].length;
      const word = fmix(hashRange(s, start, end, SEED_WORD));
      this.add(word, WORD_WEIGHT);
      if (previous >= 0) this.add(fmix(Math.imul(previous ^ SEED_BIGRAM, 0x01000193) ^ word), BIGRAM_WEIGHT);
      previous = word;
      const padded = end - start + 2;
      for (const n of CHAR_NGRAMS) {
        for (let k = 0; k + n <= padded; k++) this.add(fmix(hashPadded(s, start, end, k, n, SEED_CHAR + n)), CHAR_WEIGHT);
      }
      features++;
    }
    if (features === 0) this.add(fmix(EMPTY_TEXT_FEATURE), 1);
    let norm = 0;
    for (let i = 0; i < acc.length; i++) norm += acc[i] * acc[i];
    norm = Math.sqrt(norm);
    const out = new Array<number>(acc.length);
    for (let i = 0; i < acc.length; i++) out[i] = acc[i] / norm;
    return out;
  }

  private add(hash: number, weight: number): void {
    // The top bit picks the sign, the rest the bucket (independent enough after fmix).
    const index = (hash & 0x7fffffff) % this.dimension;
    this.acc[index] += hash < 0 ? -weight : weight;
  }
}

/** FNV-1a over the code units of s[start, end). */
function hashRange(s: string, start: number, end: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** FNV-1a over `n` code units of the word s[start, end) padded with a boundary mark on both sides, from padded offset k. */
function hashPadded(s: string, start: number, end: number, k: number, n: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) | 0;
  const len = end - start;
  for (let j = k; j < k + n; j++) {
    const c = j === 0 || j === len + 1 ? BOUNDARY : s.charCodeAt(start + j - 1);
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h;
}

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the output (signed int32). */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
