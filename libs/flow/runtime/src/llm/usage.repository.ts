import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { UsageRecord } from '@flowplane/llm';
import { SERVICE_CONFIG, type ServiceConfig, STORE } from '@flowplane/platform/service';
import { type Collection, DuplicateKeyError, type Filter, type Store, type StoreDocument } from '@flowplane/platform/store';
import type { FlowRuntimeEnv } from '../flow-runtime.env';

/** A stored ledger row (`llm_usage`): the recorded call, dated, with its pricing settled. */
export interface UsageEntry extends Omit<UsageRecord, 'recordedAt' | 'assistant'> {
  recordedAt: Date;
  assistant: boolean;
  /** `priced` with cost and currency, or `unpriced` (no price known: never counted as zero). */
  pricing: 'priced' | 'unpriced';
}

interface UsageDoc extends StoreDocument, Omit<UsageEntry, 'usageId'> {
  expiresAt: Date;
}

/** Breakdown dimensions of GET /admin/llm/usage/by (spec rule 23). */
/** `variantLabel`: the deployment variant whose run made the call, for the cost of each side of a split. */
export const USAGE_GROUP_FIELDS = ['profileId', 'provider', 'model', 'flowId', 'nodeId', 'userId', 'assistant', 'variantLabel'] as const;
export type UsageGroupField = (typeof USAGE_GROUP_FIELDS)[number];

/** One group of a breakdown. */
export interface UsageGroup {
  key: string | boolean | null;
  calls: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Calls whose counts were estimated locally (the provider reported none). */
  estimated: number;
  /** Calls with no known price: not included in the cost. */
  unpriced: number;
  /** Cost of the priced calls, when they share one currency; null when none is priced or currencies differ. */
  cost: number | null;
  currency: string | null;
  costByCurrency: Record<string, number>;
}

export interface UsageQuery {
  from: Date;
  to: Date;
  profileId?: string;
  flowId?: string;
  runId?: string;
  providerId?: string;
  model?: string;
}

const toEntry = ({ _id, expiresAt: _expiresAt, ...rest }: UsageDoc): UsageEntry => ({ usageId: _id, ...rest });

/**
 * The `llm_usage` ledger: one row per model call of the platform, kept LLM_USAGE_RETENTION_DAYS
 * (default 30) by a TTL index, and filtered on the expiry at read time too (MongoDB reaps only
 * once a minute). Rows are keyed by usage id, so a redelivered event stores nothing new.
 */
@Injectable()
export class UsageRepository implements OnModuleInit {
  private readonly rows: Collection<UsageDoc>;
  readonly retentionMs: number;

  constructor(@Inject(STORE) store: Store, @Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.retentionMs = ((config as ServiceConfig & FlowRuntimeEnv).LLM_USAGE_RETENTION_DAYS ?? 30) * 24 * 3600 * 1000;
    this.rows = store.collection<UsageDoc>('llm_usage');
  }

  async onModuleInit(): Promise<void> {
    await this.rows.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'retention' });
    await this.rows.createIndex({ keys: { recordedAt: -1 }, name: 'recorded_at' });
    await this.rows.createIndex({ keys: { profileId: 1, recordedAt: -1 }, name: 'profile_time' });
    await this.rows.createIndex({ keys: { flowId: 1, recordedAt: -1 }, name: 'flow_time' });
  }

  /** Stores a row; false when its usage id is already there (a redelivery). Rows older than the retention are dropped. */
  async insert(entry: UsageEntry): Promise<boolean> {
    const expiresAt = new Date(entry.recordedAt.getTime() + this.retentionMs);
    if (expiresAt.getTime() <= Date.now()) return false;
    const { usageId, ...rest } = entry;
    try {
      await this.rows.insertOne({ _id: usageId, ...stripUndefined(rest), expiresAt } as UsageDoc);
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async get(usageId: string): Promise<UsageEntry | undefined> {
    const doc = await this.rows.findOne({ _id: usageId, expiresAt: { $gt: new Date() } });
    return doc ? toEntry(doc) : undefined;
  }

  /** Rows newest first, `limit` per page, after the cursor position `(recordedAt, usageId)`. */
  async list(q: UsageQuery, limit: number, after?: { at: Date; id: string }): Promise<{ items: UsageEntry[]; next?: { at: Date; id: string } }> {
    const clauses: Filter[] = [this.range(q)];
    if (after) clauses.push({ $or: [{ recordedAt: { $lt: after.at } }, { recordedAt: after.at, _id: { $lt: after.id } }] });
    const docs = await this.rows.find({ $and: clauses }, { sort: { recordedAt: -1, _id: -1 }, limit: limit + 1 });
    const items = docs.slice(0, limit).map(toEntry);
    const last = items[items.length - 1];
    return { items, next: docs.length > limit && last ? { at: last.recordedAt, id: last.usageId } : undefined };
  }

  /** Calls, tokens, cost and unpriced count per value of `field` within the range; most calls first. */
  async groupBy(field: UsageGroupField, q: UsageQuery): Promise<UsageGroup[]> {
    const path = field === 'provider' ? 'providerId' : field;
    const groups = new Map<string, UsageGroup>();
    const cursor = this.rows.cursor(this.range(q), {
      projection: { [path]: 1, status: 1, promptTokens: 1, completionTokens: 1, totalTokens: 1, usageSource: 1, pricing: 1, cost: 1, currency: 1 },
      batchSize: 1000,
    });
    try {
      for await (const doc of cursor) {
        const raw = (doc as Record<string, unknown>)[path];
        const key = field === 'assistant' ? raw === true : typeof raw === 'string' && raw !== '' ? raw : null;
        const id = JSON.stringify(key);
        let g = groups.get(id);
        if (!g) groups.set(id, (g = { key, calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, estimated: 0, unpriced: 0, cost: null, currency: null, costByCurrency: {} }));
        g.calls++;
        if (doc.status !== 'ok') g.errors++;
        g.promptTokens += doc.promptTokens ?? 0;
        g.completionTokens += doc.completionTokens ?? 0;
        g.totalTokens += doc.totalTokens ?? 0;
        if (doc.usageSource === 'estimated') g.estimated++;
        if (doc.pricing === 'priced' && typeof doc.cost === 'number') {
          const currency = doc.currency ?? 'USD';
          g.costByCurrency[currency] = round((g.costByCurrency[currency] ?? 0) + doc.cost);
        } else {
          g.unpriced++;
        }
      }
    } finally {
      await cursor.close();
    }
    const out = [...groups.values()];
    for (const g of out) {
      const currencies = Object.keys(g.costByCurrency);
      if (currencies.length === 1) {
        g.currency = currencies[0];
        g.cost = g.costByCurrency[currencies[0]];
      }
    }
    return out.sort((a, b) => b.calls - a.calls || String(a.key).localeCompare(String(b.key)));
  }

  /** Calls, tokens and cost per run of `runIds` (runs without a call are left out). */
  async totalsByRun(runIds: readonly string[]): Promise<Record<string, { calls: number; totalTokens: number; cost: number | null; currency: string | null }>> {
    const out: Record<string, { calls: number; totalTokens: number; cost: number | null; currency: string | null }> = {};
    if (runIds.length === 0) return out;
    const docs = await this.rows.find(
      { runId: { $in: [...runIds] }, expiresAt: { $gt: new Date() } },
      { projection: { runId: 1, totalTokens: 1, pricing: 1, cost: 1, currency: 1 } },
    );
    for (const doc of docs) {
      const id = doc.runId as string;
      const t = (out[id] ??= { calls: 0, totalTokens: 0, cost: null, currency: null });
      t.calls++;
      t.totalTokens += doc.totalTokens ?? 0;
      if (doc.pricing === 'priced' && typeof doc.cost === 'number') {
        t.cost = round((t.cost ?? 0) + doc.cost);
        t.currency ??= doc.currency ?? 'USD';
      }
    }
    return out;
  }

  private range(q: UsageQuery): Filter {
    const filter: Filter = { recordedAt: { $gte: q.from, $lt: q.to }, expiresAt: { $gt: new Date() } };
    if (q.profileId) filter.profileId = q.profileId;
    if (q.flowId) filter.flowId = q.flowId;
    if (q.runId) filter.runId = q.runId;
    if (q.providerId) filter.providerId = q.providerId;
    if (q.model) filter.model = q.model;
    return filter;
  }
}

function round(n: number): number {
  return Math.round(n * 1e12) / 1e12;
}

function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
