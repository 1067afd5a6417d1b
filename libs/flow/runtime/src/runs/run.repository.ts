import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { RunError, RunEvent, RunStatus } from '@flowplane/flow/engine';
import { SERVICE_CONFIG, type ServiceConfig, STORE } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';

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
  expiresAt: Date;
}

interface EventDoc extends StoreDocument {
  runId: string;
  seq: number;
  type: string;
  time: number;
  dataJson: string;
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
});

/** Runs and their events, kept for RUN_RETENTION_DAYS (TTL index plus the read filter of the store). */
@Injectable()
export class RunRepository implements OnModuleInit {
  private readonly runs: Collection<RunDoc>;
  private readonly events: Collection<EventDoc>;
  private readonly retentionMs: number;

  constructor(@Inject(STORE) store: Store, @Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.retentionMs = ((config as ServiceConfig & FlowRuntimeEnv).RUN_RETENTION_DAYS ?? 7) * 24 * 3600 * 1000;
    this.runs = store.collection<RunDoc>('runs');
    this.events = store.collection<EventDoc>('run_events');
  }

  async onModuleInit(): Promise<void> {
    await this.runs.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'retention' });
    await this.events.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'retention' });
    await this.events.createIndex({ keys: { runId: 1, seq: 1 }, unique: true, name: 'run_seq' });
  }

  async insert(r: RunRecord): Promise<void> {
    await this.runs.insertOne({ _id: r.runId, flowId: r.flowId, versionId: r.versionId, variant: r.variant, status: r.status, startedBy: r.startedBy, startedAt: r.startedAt, lastSeq: r.lastSeq, expiresAt: this.expiry() });
  }

  async appendEvents(events: RunEvent[]): Promise<void> {
    if (!events.length) return;
    const expiresAt = this.expiry();
    // The run's lastSeq is written once, when it finishes: one write per batch instead of two.
    await this.events.insertMany(events.map((e) => ({ _id: `${e.runId}:${e.seq}`, runId: e.runId, seq: e.seq, type: e.type, time: e.time, dataJson: JSON.stringify(e.data ?? null), expiresAt })));
  }

  async finish(runId: string, f: { status: RunStatus; output?: unknown; error?: RunError; finishedAt: Date; durationMs: number; lastSeq: number }): Promise<void> {
    await this.runs.updateOne({ _id: runId }, { $set: { status: f.status, lastSeq: f.lastSeq, outputJson: f.output === undefined ? undefined : JSON.stringify(f.output), error: f.error, finishedAt: f.finishedAt, durationMs: f.durationMs } });
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const d = await this.runs.findOne({ _id: runId });
    return d ? toRun(d) : undefined;
  }

  /** Stored events of a run after `afterSeq`, in order. */
  async eventsAfter(runId: string, afterSeq: number): Promise<RunEvent[]> {
    const docs = await this.events.find({ runId, seq: { $gt: afterSeq } }, { sort: { seq: 1 } });
    return docs.map((d) => ({ runId: d.runId, seq: d.seq, type: d.type, time: d.time, data: JSON.parse(d.dataJson) }) as RunEvent);
  }

  private expiry(): Date {
    return new Date(Date.now() + this.retentionMs);
  }
}
