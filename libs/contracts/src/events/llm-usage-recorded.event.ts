import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsRFC3339, IsString, Matches, Min } from 'class-validator';

/** Outcome of an LLM call. */
export const LLM_CALL_STATUSES = ['ok', 'error', 'aborted'] as const;
/** An LLM call outcome. */
export type LlmCallStatus = (typeof LLM_CALL_STATUSES)[number];

/**
 * Payload of `llm.usage_recorded` (our own topic): one row of the `llm_usage` ledger
 * (assistant-deployments-profiles.md, rules 23 and the usage queries). The optional ids are the breakdown
 * dimensions of the admin usage view: profile, provider, model, flow, node, user, assistant.
 */
export class LlmUsageRecordedPayload {
  /** Id of the ledger row; consumers dedupe on it. */
  @IsString()
  @IsNotEmpty()
  usageId!: string;

  @IsRFC3339()
  recordedAt!: string;

  /** Registered LLM provider id (for example `local`, `openai`). */
  @IsString()
  @IsNotEmpty()
  providerId!: string;

  @IsString()
  @IsNotEmpty()
  model!: string;

  @IsInt()
  @Min(0)
  promptTokens!: number;

  @IsInt()
  @Min(0)
  completionTokens!: number;

  @IsInt()
  @Min(0)
  totalTokens!: number;

  /** Cost in US dollars from the pricing table; absent when the model has no known price. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  costUsd?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  durationMs?: number;

  @IsIn(LLM_CALL_STATUSES)
  status!: LlmCallStatus;

  /** LLMUsage.ProfileID, stamped after the profile merge. */
  @IsOptional()
  @IsString()
  profileId?: string;

  @IsOptional()
  @IsString()
  flowId?: string;

  @IsOptional()
  @IsString()
  versionId?: string;

  @IsOptional()
  @IsString()
  runId?: string;

  @IsOptional()
  @IsString()
  nodeId?: string;

  @IsOptional()
  @IsString()
  userId?: string;

  /** Assistant chat session the call served, when it came from the assistant. */
  @IsOptional()
  @IsString()
  sessionId?: string;

  /** Deployment variant label the session bucketed into. */
  @IsOptional()
  @IsString()
  variantLabel?: string;

  /** Whether the call served the assistant (spec rule 23). */
  @IsOptional()
  @IsBoolean()
  assistant?: boolean;

  /** Token counts reported by the provider, or estimated by the tokenizer when it sent none. */
  @IsOptional()
  @IsIn(['provider', 'estimated'])
  usageSource?: 'provider' | 'estimated';

  /** What the call was for. */
  @IsOptional()
  @IsIn(['chat', 'guard', 'embedding'])
  kind?: 'chat' | 'guard' | 'embedding';

  /** Wall time of the call. */
  @IsOptional()
  @IsInt()
  @Min(0)
  latencyMs?: number;

  /** Typed error code of a failed call (auth, rate_limit, timeout, bad_response, ...). */
  @IsOptional()
  @IsString()
  errorCode?: string;

  /** Cost in `currency`, when the producer priced the call (flow-runtime prices it otherwise). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  cost?: number;

  /** ISO 4217 code of `cost`. */
  @IsOptional()
  @Matches(/^[A-Z]{3}$/)
  currency?: string;

  /** The service that made the call. */
  @IsOptional()
  @IsString()
  service?: string;
}
