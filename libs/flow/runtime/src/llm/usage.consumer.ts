import { Injectable, Logger } from '@nestjs/common';
import { type CloudEvent, LlmUsageRecordedPayload, Topics } from '@flowplane/contracts';
import type { UsageRecord } from '@flowplane/llm';
import { BusConsumer } from '@flowplane/platform/bus';
import { UsageLedgerService } from './usage-ledger.service';

/** `llm.usage_recorded` as @flowplane/llm's `usageEventPayload` writes it (the contract, extras included). */
export class LlmUsageEventPayload extends LlmUsageRecordedPayload {}

/** Consumer group of the ledger: one group, so each row is stored once whatever the replica count. */
export const LLM_USAGE_GROUP = 'flow-runtime-llm-usage';

/**
 * Stores the usage rows other services publish. Idempotent: the row id is the usage id, so a
 * redelivered event (at-least-once) finds its row and stores nothing.
 */
@Injectable()
export class UsageConsumer {
  private readonly log = new Logger('LlmUsage');

  constructor(private readonly ledger: UsageLedgerService) {}

  @BusConsumer(Topics.LlmUsageRecorded, { groupId: LLM_USAGE_GROUP, payload: LlmUsageEventPayload })
  async onUsage(event: CloudEvent<LlmUsageEventPayload>): Promise<void> {
    const p = event.data;
    const row: UsageRecord = {
      usageId: p.usageId,
      recordedAt: p.recordedAt,
      providerId: p.providerId,
      model: p.model,
      promptTokens: p.promptTokens,
      completionTokens: p.completionTokens,
      totalTokens: p.totalTokens,
      latencyMs: p.latencyMs ?? p.durationMs ?? 0,
      usageSource: p.usageSource ?? 'provider',
      status: p.status,
      errorCode: p.errorCode,
      kind: p.kind,
      profileId: p.profileId,
      flowId: p.flowId,
      versionId: p.versionId,
      runId: p.runId,
      nodeId: p.nodeId,
      userId: p.userId,
      sessionId: p.sessionId,
      variantLabel: p.variantLabel,
      assistant: p.assistant,
      service: p.service ?? event.source,
      ...(p.cost !== undefined ? { cost: p.cost, currency: p.currency ?? 'USD' } : p.costUsd !== undefined ? { cost: p.costUsd, currency: 'USD' } : {}),
    };
    const stored = await this.ledger.store(row);
    if (!stored) this.log.debug(`usage ${p.usageId} already stored (redelivery)`);
  }
}
