import { randomUUID } from 'node:crypto';
import { type LlmCallStatus, type LlmUsageRecordedPayload, Topics } from '@flowplane/contracts';
import type { TokenUsage, UsageSource } from '../chat.types';
import { LlmError } from '../errors';

/** What a call was for. */
export type UsageKind = 'chat' | 'guard' | 'embedding';

/** Who and what a call served: the breakdown dimensions of the ledger (spec rule 23). */
export interface UsageContext {
  /** LLMUsage.ProfileID: the resolved profile, stamped after the merge. */
  profileId?: string;
  flowId?: string;
  versionId?: string;
  nodeId?: string;
  runId?: string;
  userId?: string;
  sessionId?: string;
  variantLabel?: string;
  /** True when the call served the assistant. */
  assistant?: boolean;
  kind?: UsageKind;
}

/** One row of the `llm_usage` ledger. */
export interface UsageRecord extends UsageContext {
  usageId: string;
  /** RFC 3339. */
  recordedAt: string;
  providerId: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMs: number;
  usageSource: UsageSource;
  status: LlmCallStatus;
  /** Error code of a failed call (`LLM_TIMEOUT`, ...). */
  errorCode?: string;
  /** Set when the producer priced the call itself; otherwise the ledger prices it on receipt. */
  cost?: number;
  currency?: string;
  /** Service that made the call. */
  service?: string;
}

/** Where usage rows go: the ledger directly (flow-runtime) or `llm.usage_recorded` (other services). */
export interface UsageSink {
  record(row: UsageRecord): Promise<void>;
}

/** A ledger row for a finished call (or a failed one: zero completion tokens, the error's code). */
export function usageRow(
  call: { providerId: string; model: string; usage?: TokenUsage; latencyMs: number; error?: unknown; service?: string },
  context: UsageContext = {},
  now: Date = new Date(),
): UsageRecord {
  const usage = call.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0, source: 'estimated' as const };
  const error = call.error;
  const status: LlmCallStatus = error === undefined ? 'ok' : error instanceof LlmError && error.code === 'LLM_ABORTED' ? 'aborted' : 'error';
  return {
    usageId: randomUUID(),
    recordedAt: now.toISOString(),
    providerId: call.providerId,
    model: call.model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    latencyMs: Math.max(0, Math.round(call.latencyMs)),
    usageSource: usage.source,
    status,
    ...(error !== undefined ? { errorCode: error instanceof LlmError ? error.code : 'LLM_ERROR' } : {}),
    ...(call.service ? { service: call.service } : {}),
    ...stripUndefined(context),
  };
}

/**
 * The `llm.usage_recorded` payload of a row: the contract's fields plus the ledger's extras
 * (assistant, usageSource, kind, latencyMs, errorCode, currency, service), which consumers
 * that do not know them simply drop (tolerant reader).
 */
export function usageEventPayload(row: UsageRecord): LlmUsageRecordedPayload & Record<string, unknown> {
  return stripUndefined({
    usageId: row.usageId,
    recordedAt: row.recordedAt,
    providerId: row.providerId,
    model: row.model,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    totalTokens: row.totalTokens,
    costUsd: row.cost !== undefined && (row.currency ?? 'USD') === 'USD' ? row.cost : undefined,
    durationMs: row.latencyMs,
    status: row.status,
    profileId: row.profileId,
    flowId: row.flowId,
    versionId: row.versionId,
    runId: row.runId,
    nodeId: row.nodeId,
    userId: row.userId,
    sessionId: row.sessionId,
    variantLabel: row.variantLabel,
    assistant: row.assistant,
    usageSource: row.usageSource,
    kind: row.kind,
    latencyMs: row.latencyMs,
    errorCode: row.errorCode,
    cost: row.cost,
    currency: row.cost !== undefined ? (row.currency ?? 'USD') : undefined,
    service: row.service,
  }) as LlmUsageRecordedPayload & Record<string, unknown>;
}

/** The part of the EventBus port a `BusUsageSink` uses. */
export interface UsagePublisher {
  publish(topic: string, data: unknown, options?: { key?: string; entitytype?: string; action?: string }): Promise<unknown>;
}

/**
 * For services other than flow-runtime: publishes each row as `llm.usage_recorded` (keyed by
 * usage id); flow-runtime's consumer stores it once, deduplicated by `usageId`.
 */
export class BusUsageSink implements UsageSink {
  constructor(private readonly bus: UsagePublisher) {}

  async record(row: UsageRecord): Promise<void> {
    await this.bus.publish(Topics.LlmUsageRecorded, usageEventPayload(row), { key: row.usageId, entitytype: 'llm_usage', action: 'recorded' });
  }
}

function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
