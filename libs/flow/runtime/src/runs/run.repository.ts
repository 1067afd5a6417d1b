import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { RunError, RunEvent, RunStatus } from '@flowplane/flow/engine';
import { SERVICE_CONFIG, type ServiceConfig, STORE } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import type { Collection, Filter, Store, StoreDocument } from '@flowplane/platform/store';

/** A run as stored. */
export interface RunRecord {
  runId: string;
  flowId: string;
  versionId: string;
  variant?: string;
  status: RunStatus;
  output?: unknown;
  error?: RunError;
  startedBy: string;
  startedAt: Date;
  finishedAt?: Date;
  durationMs?: number;
  lastSeq: number;
  /** Instance id of the engine that started the run. */
  engine?: string;
}

/** Filters of a run listing; `from` is inclusive, `to` exclusive (both on `startedAt`). */
export interface RunQuery {
  flowId?: string;
  status?: RunStatus;
  from?: Date;
  to?: Date;
}

/** Position in a listing: the last run of the previous page. */
export interface RunCursor {
  at: Date;
  runId: string;
}

interface RunDoc extends StoreDocument {
  flowId: string;
  versionId: string;
  variant?: string;
  status: RunStatus;
  outputJson?: string;
  error?: RunError;
  startedBy: string;
  startedAt: Date;
  finishedAt?: Date;
  durationMs?: number;
  lastSeq: number;
  engine?: string;
  expiresAt: Date;
}

/**
 * The events of one flush of a run (one document per batch, not per event: a run's events arrive
 * in a few bursts, and one write per burst keeps the hot path cheap). `fromSeq`..`toSeq` is the
 * contiguous range it holds.
 */
interface EventBatchDoc extends StoreDocument {
  runId: string;
  fromSeq: number;
  toSeq: number;
  /** JSON array of `{seq, type, time, data}`. */
  eventsJson: string;
  expiresAt: Date;
}

const toRun = (d: RunDoc): RunRecord => ({
  runId: d._id,
  flowId: d.flowId,
  versionId: d.versionId,
  variant: d.variant,
  status: d.status,
  output: d.outputJson === undefined ? undefined : (JSON.parse(d.outputJson) as unknown),
  error: d.error,
  startedBy: d.startedBy,
  startedAt: d.startedAt,
  finishedAt: d.finishedAt,
  durationMs: d.durationMs,
  lastSeq: d.lastSeq,
  engine: d.engine,
});

/** Runs and their events, kept for RUN_RETENTION_DAYS (TTL index plus the read filter of the store). */
@Injectable()
export class RunRepository implements OnModuleInit {
  private readonly runs: Collection<RunDoc>;
  private readonly events: Collection<EventBatchDoc>;
  private readonly retentionMs: number;

  constructor(@Inject(STORE) store: Store, @Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.retentionMs = ((config as ServiceConfig & FlowRuntimeEnv).RUN_RETENTION_DAYS ?? 7) * 24 * 3600 * 1000;
    this.runs = store.collection<RunDoc>('runs');
    this.events = store.collection<EventBatchDoc>('run_event_batches');
  }

  async onModuleInit(): Promise<void> {
    await this.runs.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'retention' });
    await this.events.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'retention' });
    await this.events.createIndex({ keys: { runId: 1, fromSeq: 1 }, unique: true, name: 'run_seq' });
    await this.runs.createIndex({ keys: { engine: 1, status: 1 }, name: 'engine_status' });
    // The listing, newest first: per flow (the common filter) and over all runs.
    await this.runs.createIndex({ keys: { flowId: 1, startedAt: -1, _id: -1 }, name: 'flow_started' });
    await this.runs.createIndex({ keys: { startedAt: -1, _id: -1 }, name: 'started' });
  }

  async insert(r: RunRecord): Promise<void> {
    await this.runs.insertOne({ _id: r.runId, flowId: r.flowId, versionId: r.versionId, variant: r.variant, status: r.status, startedBy: r.startedBy, startedAt: r.startedAt, lastSeq: r.lastSeq, engine: r.engine, expiresAt: this.expiry() });
  }

  async appendEvents(events: RunEvent[]): Promise<void> {
    if (!events.length) return;
    const expiresAt = this.expiry();
    // The run's lastSeq is written once, when it finishes: one write per batch instead of two.
    // A flush holds one run's events in sequence order (RunChannel); group them by run anyway.
    const byRun = new Map<string, RunEvent[]>();
    for (const e of events) {
      const list = byRun.get(e.runId);
      if (list) list.push(e);
      else byRun.set(e.runId, [e]);
    }
    const docs = [...byRun.values()].map((list) => ({
      _id: `${list[0].runId}:${list[0].seq}`,
      runId: list[0].runId,
      fromSeq: list[0].seq,
      toSeq: list[list.length - 1].seq,
      eventsJson: JSON.stringify(list.map((e) => ({ seq: e.seq, type: e.type, time: e.time, data: e.data ?? null }))),
      expiresAt,
    }));
    if (docs.length === 1) await this.events.insertOne(docs[0]);
    else await this.events.insertMany(docs);
  }

  async finish(runId: string, f: { status: RunStatus; output?: unknown; error?: RunError; finishedAt: Date; durationMs: number; lastSeq: number }): Promise<void> {
    await this.runs.updateOne({ _id: runId }, { $set: { status: f.status, lastSeq: f.lastSeq, outputJson: f.output === undefined ? undefined : JSON.stringify(f.output), error: f.error, finishedAt: f.finishedAt, durationMs: f.durationMs } });
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const d = await this.runs.findOne({ _id: runId });
    return d ? toRun(d) : undefined;
  }

  /** Runs newest first (`startedAt`, then id), `limit` per page, after the cursor position. */
  async list(q: RunQuery, limit: number, after?: RunCursor): Promise<{ items: RunRecord[]; next?: RunCursor }> {
    const filter: Filter = {};
    // Equality filters stay top-level, where an index can serve them.
    if (q.flowId !== undefined) filter.flowId = q.flowId;
    if (q.status !== undefined) filter.status = q.status;
    const clauses: Filter[] = [];
    if (q.from || q.to) clauses.push({ startedAt: { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) } });
    if (after) clauses.push({ $or: [{ startedAt: { $lt: after.at } }, { startedAt: after.at, _id: { $lt: after.runId } }] });
    if (clauses.length) filter.$and = clauses;
    // Outputs can be large and a listing does not show them.
    const docs = await this.runs.find(filter, { sort: { startedAt: -1, _id: -1 }, limit: limit + 1, projection: { outputJson: 0 } });
    const items = docs.slice(0, limit).map(toRun);
    const last = items[items.length - 1];
    return { items, next: docs.length > limit && last ? { at: last.startedAt, runId: last.runId } : undefined };
  }

  /** Runs recorded as running that the given engine instance started. */
  async runningOn(engine: string): Promise<RunRecord[]> {
    return (await this.runs.find({ engine, status: 'running' })).map(toRun);
  }

  /** Stored events of a run after `afterSeq`, in order. */
  async eventsAfter(runId: string, afterSeq: number): Promise<RunEvent[]> {
    const docs = await this.events.find({ runId, toSeq: { $gt: afterSeq } }, { sort: { fromSeq: 1 } });
    const out: RunEvent[] = [];
    for (const d of docs) {
      for (const e of JSON.parse(d.eventsJson) as Array<{ seq: number; type: string; time: number; data: unknown }>) {
        if (e.seq > afterSeq) out.push({ runId: d.runId, seq: e.seq, type: e.type, time: e.time, data: e.data } as RunEvent);
      }
    }
    return out;
  }

  private expiry(): Date {
    return new Date(Date.now() + this.retentionMs);
  }
}
