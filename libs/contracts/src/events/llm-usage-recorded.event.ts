import { IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsRFC3339, IsString, Min } from 'class-validator';

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
}
