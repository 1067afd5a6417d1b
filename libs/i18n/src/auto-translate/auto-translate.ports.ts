/**
 * The seams of automatic translation. Three parts meet here:
 *
 * - the engine (`engine/`): turns one source text into candidates for several locales through a
 *   model (or the offline pseudo-localizer), checks each against the source's format signature,
 *   and judges candidates in the review gate;
 * - the fill loop (`fill/`): picks which (key, locale) cells to work on from provenance and mode,
 *   reuses translation memory, calls the engine with bounded concurrency and writes every locale
 *   with its provenance in the same update; shared by the admin route, the node, the sweep and the CLI;
 * - the flows, node, schedule and command line (`flows/`, `cli/`) that drive the fill loop.
 */

/** One glossary entry: a term kept verbatim (`doNotTranslate`) or rendered as `translation` in `locale` (every locale when absent). */
export interface GlossaryEntry {
  term: string;
  locale?: string;
  translation?: string;
  doNotTranslate?: boolean;
}

/** Reads the glossary the engine injects into prompts and checks candidates against. */
export abstract class GlossarySource {
  abstract entries(): Promise<readonly GlossaryEntry[]>;
}

/** A language to translate into: the locale code (how it appears in URLs and rows) and its BCP 47 tag for the prompt. */
export interface TargetLocale {
  code: string;
  language: string;
}

/** What model calls cost: summed over every call of an operation (retries included). */
export interface TranslationUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** USD, from the price table; 0 when unknown or on the local provider. */
  costUsd: number;
}

export const NO_USAGE: TranslationUsage = Object.freeze({ calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 });

/** Sums usages. */
export function addUsage(a: TranslationUsage, b: TranslationUsage): TranslationUsage {
  return {
    calls: a.calls + b.calls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

/** Dimensions stamped on the usage ledger rows of the calls. */
export interface TranslationUsageContext {
  userId?: string;
  flowId?: string;
  runId?: string;
  /** What asked: `translate-missing`, `ai-translate`, `review`, `node`, `cli`. */
  purpose?: string;
}

/** One source text into several locales. */
export interface TranslateTextRequest {
  text: string;
  sourceLocale: string;
  locales: readonly TargetLocale[];
  /** Translator note (the key's `context`); `CONTENT_TRANSLATE_DOMAIN` is added by the engine. */
  context?: string;
  /** Falls back as the note when `context` is blank (for example a settings field label). */
  label?: string;
  /** Entries to inject and enforce; the engine reads the stored glossary when absent. */
  glossary?: readonly GlossaryEntry[];
  signal?: AbortSignal;
  usageContext?: TranslationUsageContext;
}

/** Why a locale was left out: the source keeps showing for it. */
export interface OmittedLocale {
  locale: string;
  reason: string;
}

/**
 * Every requested locale ends up in exactly one of `translations` or `omitted` (a broken candidate
 * after its one retry, a timeout, a 429 storm after backoff, an answer that is not JSON or misses
 * the locale). The promise rejects only when `signal` aborts or the configuration is unusable
 * (`LlmConfigError`).
 */
export interface TranslateTextResult {
  translations: Record<string, string>;
  omitted: OmittedLocale[];
  usage: TranslationUsage;
  /** `<provider>/<model>`, stamped as `provenance.by` of what is written. */
  by: string;
}

/** The review gate's question for one key. */
export interface ReviewKeyRequest {
  key: string;
  source: string;
  sourceLocale: string;
  context?: string;
  /** Locale code to candidate text. */
  candidates: Record<string, string>;
  glossary?: readonly GlossaryEntry[];
  signal?: AbortSignal;
  usageContext?: TranslationUsageContext;
}

/** The gate's verdict on one candidate. A rejection whose suggestion equals the candidate is discarded (ok: true). */
export interface ReviewVerdict {
  ok: boolean;
  reason?: string;
  suggestion?: string;
}

export interface ReviewKeyResult {
  verdicts: Record<string, ReviewVerdict>;
  usage: TranslationUsage;
  by: string;
}

/** The reviewer could not answer (outage, timeout, unparseable answer): translation goes on without a verdict. */
export class ReviewerUnavailableError extends Error {
  constructor(message: string, readonly usage: TranslationUsage = NO_USAGE) {
    super(message);
    this.name = 'ReviewerUnavailableError';
  }
}

/** Translates and reviews through the model of `ai/profile` (or the flat `ai/*` settings), offline on `local`. */
export abstract class TranslationEngine {
  abstract translate(request: TranslateTextRequest): Promise<TranslateTextResult>;
  /** One model call per key judging every candidate; rejects with `ReviewerUnavailableError` on an outage. */
  abstract review(request: ReviewKeyRequest): Promise<ReviewKeyResult>;
}

/** Which cells a fill run works on (automatic translation rules 1, 3, 6). */
export type FillMode = 'missing' | 'missing_and_stale';

/** A fill run. Keys are addressed within `ns`; `ns` absent means every namespace. */
export interface FillRequest {
  mode: FillMode;
  ns?: string;
  /** Explicit keys; otherwise `allKeys` must be true (or `prefix` set) for the whole catalog. */
  keys?: readonly string[];
  allKeys?: boolean;
  prefix?: string;
  /** Locale codes; absent: every active locale but the source. */
  locales?: readonly string[];
  /** Replace machine text and text of unknown origin (never from a node: rule 8). */
  overwrite?: boolean;
  /** With `overwrite`, also replace human and code/seed text. */
  includeProtected?: boolean;
  /**
   * With `overwrite`, also replace current machine text written before this instant (epoch ms):
   * the start of the overwrite pass. Absent: only stale machine text and machine text without
   * fingerprints are replaced.
   */
  overwriteBefore?: number;
  /** Run the review gate before writing. */
  review: boolean;
  /** Keys worked on at most (the run reports what remains); absent: no cap. */
  limit?: number;
  /** Answer with what is done by this time (epoch ms); the rest counts in `remaining`. */
  deadline?: number;
  /** Select and report without calling a model or writing. */
  dryRun?: boolean;
  signal?: AbortSignal;
  usageContext?: TranslationUsageContext;
  onProgress?: (progress: FillProgress) => void;
}

export interface FillProgress {
  keysDone: number;
  keysTotal: number;
  localesFilled: number;
}

export interface FailedCell {
  key: string;
  /** Present when the key lives outside the default namespace. */
  ns?: string;
  locale: string;
  reason: string;
}

/** What a fill run did; the admin route answers its first six fields (plus the rest as extras). */
export interface FillReport {
  keysProcessed: number;
  localesFilled: number;
  skippedProtected: number;
  held: number;
  failed: FailedCell[];
  /** Keys that still need work after this run (re-run until keysProcessed is 0). */
  remaining: number;
  /** Locales filled from translation memory instead of a model call. */
  memoryHits: number;
  usage: TranslationUsage;
  /** Selected keys skipped because they have no source-language text to translate from (not failures). */
  missingSource?: number;
}

/** The one fill loop (the endpoint, the node, the sweep and the CLI all call it). */
export abstract class FillTranslations {
  abstract run(request: FillRequest): Promise<FillReport>;
}
