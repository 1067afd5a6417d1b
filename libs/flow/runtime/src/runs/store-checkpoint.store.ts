import type { CheckpointedRun, CheckpointRunRecord, CheckpointStep, CheckpointStore } from '@flowplane/flow/engine';
import { type Collection, DuplicateKeyError, type Store, type StoreDocument } from '@flowplane/platform/store';

/**
 * The engine's `CheckpointStore` on the service's Store (issue 4 item 3, `checkpoint` delivery).
 *
 * - `run_checkpoints`: one document per unfinished run of a version with checkpoint edges: the
 *   run record (input, meta, version), its owner (the engine instance running it) and a lease.
 * - `run_checkpoint_steps`: one document per saved checkpoint step (`<runId>:<stepId>`) and per
 *   completed checkpoint (`completed: true`; the implicit `root` checkpoint has no step).
 *
 * Ownership: `begin` records the starting instance as owner with a lease of `leaseMs`; the owner
 * renews the leases of all its runs every `leaseMs / 3` (`renew`, one `updateMany`). A run whose
 * owner died keeps its lease until it expires; then `pending()` offers it to every replica and
 * `claim` (a conditional update) hands it to exactly one. An instance restarting with the same id
 * (a stable `FLOW_ENGINE_INSTANCE_ID`) takes its own runs back at once.
 *
 * Packets are stored as JSON text, so a resumed run sees exactly what a database would give back.
 */

interface RunCheckpointDoc extends StoreDocument {
  runJson: string;
  owner: string;
  leaseUntil: Date;
  createdAt: Date;
}

interface StepDoc extends StoreDocument {
  runId: string;
  stepJson?: string;
  completed?: boolean;
}

export interface StoreCheckpointStoreOptions {
  /** This engine instance (owner of the runs it begins). */
  owner: string;
  /** Lease of a run's owner; another replica may adopt the run this long after the owner's last renewal. Default 30 s. */
  leaseMs?: number;
  now?: () => number;
}

export class StoreCheckpointStore implements CheckpointStore {
  private readonly runs: Collection<RunCheckpointDoc>;
  private readonly steps: Collection<StepDoc>;
  readonly owner: string;
  readonly leaseMs: number;
  private readonly now: () => number;

  constructor(store: Store, options: StoreCheckpointStoreOptions) {
    this.runs = store.collection<RunCheckpointDoc>('run_checkpoints');
    this.steps = store.collection<StepDoc>('run_checkpoint_steps');
    this.owner = options.owner;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  async init(): Promise<void> {
    await this.steps.createIndex({ keys: { runId: 1 }, name: 'run' });
    await this.runs.createIndex({ keys: { owner: 1 }, name: 'owner' });
  }

  private lease(): Date {
    return new Date(this.now() + this.leaseMs);
  }

  async begin(run: CheckpointRunRecord): Promise<void> {
    await this.runs.insertOne({ _id: run.runId, runJson: JSON.stringify(run), owner: this.owner, leaseUntil: this.lease(), createdAt: new Date(this.now()) });
  }

  async save(runId: string, step: CheckpointStep): Promise<void> {
    try {
      await this.steps.insertOne({ _id: `${runId}:${step.id}`, runId, stepJson: JSON.stringify(step) });
    } catch (e) {
      // Idempotent by step id: a resumed run re-creating the same checkpoint keeps the first.
      if (!(e instanceof DuplicateKeyError)) throw e;
    }
  }

  async complete(runId: string, stepId: string): Promise<void> {
    await this.steps.updateOne({ _id: `${runId}:${stepId}` }, { $set: { runId, completed: true } }, { upsert: true });
  }

  async finish(runId: string): Promise<void> {
    await this.steps.deleteMany({ runId });
    await this.runs.deleteOne({ _id: runId });
  }

  async load(runId: string): Promise<CheckpointedRun | undefined> {
    const run = await this.runs.findOne({ _id: runId });
    if (!run) return undefined;
    const docs = await this.steps.find({ runId });
    return {
      run: JSON.parse(run.runJson) as CheckpointRunRecord,
      steps: docs.filter((d) => d.stepJson !== undefined).map((d) => JSON.parse(d.stepJson!) as CheckpointStep),
      completed: docs.filter((d) => d.completed).map((d) => d._id.slice(runId.length + 1)),
    };
  }

  /** Unfinished runs this instance may take: its own, and those whose owner's lease expired. */
  async pending(): Promise<string[]> {
    const docs = await this.runs.find({ $or: [{ owner: this.owner }, { leaseUntil: { $lte: new Date(this.now()) } }] }, { sort: { createdAt: 1 } });
    return docs.map((d) => d._id);
  }

  async claim(runId: string, owner: string): Promise<boolean> {
    const doc = await this.runs.findOneAndUpdate(
      { _id: runId, $or: [{ owner }, { leaseUntil: { $lte: new Date(this.now()) } }] },
      { $set: { owner, leaseUntil: this.lease() } },
    );
    return doc?.owner === owner;
  }

  /** Extends the lease of every run this instance owns; returns how many. */
  async renew(): Promise<number> {
    const res = await this.runs.updateMany({ owner: this.owner }, { $set: { leaseUntil: this.lease() } });
    return res.modifiedCount ?? res.matchedCount ?? 0;
  }

  /** Unfinished checkpointed runs, all owners. */
  count(): Promise<number> {
    return this.runs.countDocuments({});
  }
}
