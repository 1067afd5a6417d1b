import { Inject, Injectable, Logger } from '@nestjs/common';
import { computeCost, type UsageRecord, type UsageSink } from '@flowplane/llm';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { PriceTableService } from './price-table.service';
import { type UsageEntry, UsageRepository } from './usage.repository';

/** The fields of a stored run (`runs`, written by RunRepository) the ledger stamps on rows. */
interface RunFactsDoc extends StoreDocument {
  flowId?: string;
  versionId?: string;
  variant?: string;
  startedBy?: string;
}

interface RunFacts {
  flowId?: string;
  versionId?: string;
  variant?: string;
  startedBy?: string;
}

// Who started a run when it was not a user: a dispatched route, an event, a service.
const NOT_A_USER = /^(route|event|svc|schedule|scheduler):/;
const RUN_CACHE_SIZE = 1000;

/**
 * Writes ledger rows: prices each row from the price table at record time (unless its producer
 * priced it), stamps the run's flow, version and variant (and its starter as the user when the run
 * meta named none) on rows of flow steps, and stores it idempotently by usage id. flow-runtime's
 * nodes write through here directly; other services' rows arrive over `llm.usage_recorded`.
 */
@Injectable()
export class UsageLedgerService implements UsageSink {
  private readonly log = new Logger('LlmUsage');
  private readonly runs: Collection<RunFactsDoc>;
  private readonly runFacts = new Map<string, RunFacts>();

  constructor(
    private readonly repo: UsageRepository,
    private readonly prices: PriceTableService,
    @Inject(STORE) store: Store,
  ) {
    // flow-runtime's own runs collection: read for the few fields above, never written here.
    this.runs = store.collection<RunFactsDoc>('runs');
  }

  /** UsageSink: a row made in this service. */
  async record(row: UsageRecord): Promise<void> {
    await this.store(row);
  }

  /** Prices, enriches and stores a row; false when it was already stored (redelivery). */
  async store(row: UsageRecord): Promise<boolean> {
    const facts = row.runId && !row.flowId ? await this.facts(row.runId) : undefined;
    const userId = row.userId ?? (facts?.startedBy && !NOT_A_USER.test(facts.startedBy) ? facts.startedBy : undefined);
    const usage = { promptTokens: row.promptTokens, completionTokens: row.completionTokens };
    let pricing: Pick<UsageEntry, 'pricing' | 'cost' | 'currency'>;
    if (typeof row.cost === 'number' && Number.isFinite(row.cost)) {
      pricing = { pricing: 'priced', cost: row.cost, currency: row.currency ?? 'USD' };
    } else {
      const cost = computeCost(await this.prices.get(), row.providerId, row.model, usage);
      pricing = cost.status === 'priced' ? { pricing: 'priced', cost: cost.cost, currency: cost.currency } : { pricing: 'unpriced' };
    }
    const recordedAt = new Date(row.recordedAt);
    return this.repo.insert({
      usageId: row.usageId,
      recordedAt: Number.isNaN(recordedAt.getTime()) ? new Date() : recordedAt,
      providerId: row.providerId,
      model: row.model,
      profileId: row.profileId,
      flowId: row.flowId ?? facts?.flowId,
      versionId: row.versionId ?? facts?.versionId,
      nodeId: row.nodeId,
      runId: row.runId,
      userId,
      sessionId: row.sessionId,
      variantLabel: row.variantLabel ?? facts?.variant,
      assistant: row.assistant === true,
      kind: row.kind,
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens,
      totalTokens: row.totalTokens,
      latencyMs: row.latencyMs,
      usageSource: row.usageSource,
      status: row.status,
      errorCode: row.errorCode,
      service: row.service,
      ...pricing,
    });
  }

  private async facts(runId: string): Promise<RunFacts | undefined> {
    const cached = this.runFacts.get(runId);
    if (cached) return cached;
    try {
      const doc = await this.runs.findOne({ _id: runId }, { projection: { flowId: 1, versionId: 1, variant: 1, startedBy: 1 } });
      if (!doc) return undefined;
      const facts: RunFacts = { flowId: doc.flowId, versionId: doc.versionId, variant: doc.variant, startedBy: doc.startedBy };
      if (this.runFacts.size >= RUN_CACHE_SIZE) this.runFacts.delete(this.runFacts.keys().next().value as string);
      this.runFacts.set(runId, facts);
      return facts;
    } catch (error) {
      this.log.warn(`run ${runId} could not be read for its usage row: ${(error as Error).message}`);
      return undefined;
    }
  }
}
