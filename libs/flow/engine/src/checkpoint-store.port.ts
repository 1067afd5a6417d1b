import type { RunMeta } from './node-manifest';
import type { FinalRunStatus } from './run-events';

/**
 * Persistence of `checkpoint` edges. A run of a version with a checkpoint edge is recorded when it
 * starts (`begin`); each packet crossing a checkpoint edge is saved (`save`) BEFORE the next step
 * runs; a saved step is marked `complete` once everything it started either finished or was handed
 * to a later checkpoint; `finish` closes the run. After a crash, `engine.resume(runId)` re-runs the
 * saved steps that are not complete (and the start nodes when the run had not yet reached its
 * first checkpoints), so every step after the last checkpoint runs at least once more.
 *
 * The runtime implements this on its Store; `MemoryCheckpointStore` is the in-process one.
 */

/** The id of the implicit checkpoint covering a run's start nodes. */
export const ROOT_CHECKPOINT = 'root';

/** What is needed to restart a run. */
export interface CheckpointRunRecord {
  runId: string;
  versionId: string;
  input: unknown;
  meta: RunMeta;
  startedAt: number;
}

/** A packet persisted on a checkpoint edge: the step it feeds, ready to run again. */
export interface CheckpointStep {
  /** Deterministic: a resumed run re-creating the same checkpoint gets the same id (and skips it). */
  id: string;
  /** The checkpoint whose branch reached this edge (`root` for the start nodes' branch). */
  parentId: string;
  edgeId: string;
  /** The node to run. */
  nodeId: string;
  packet: unknown;
  /** Chunks of the upstream node, when the edge also streams. */
  upstreamTokens?: string[];
  /** The run's last event sequence number when saved. */
  seq: number;
  /** Steps the run had executed when saved (the max-steps guard continues from there). */
  steps: number;
  savedAt: number;
}

/** A run as loaded for resumption. */
export interface CheckpointedRun {
  run: CheckpointRunRecord;
  steps: CheckpointStep[];
  /** Ids of complete checkpoints (`root` included once the start branch was handed off). */
  completed: string[];
}

/** The port. Every method may reject; the engine fails the run when `begin` or `save` does. */
export interface CheckpointStore {
  begin(run: CheckpointRunRecord): Promise<void>;
  /** Idempotent by `step.id`. */
  save(runId: string, step: CheckpointStep): Promise<void>;
  complete(runId: string, stepId: string): Promise<void>;
  /** The run reached a final status: it will not be resumed (records may be dropped). */
  finish(runId: string, status: FinalRunStatus): Promise<void>;
  load(runId: string): Promise<CheckpointedRun | undefined>;
  /** Ids of runs begun and not finished. */
  pending(): Promise<string[]>;
  /**
   * Optional lease: resolves true when `owner` may resume the run (several replicas calling
   * `resumeAll` at startup then resume each run once).
   */
  claim?(runId: string, owner: string): Promise<boolean>;
}

interface StoredRun {
  run: string;
  steps: Map<string, string>;
  completed: Set<string>;
  owner?: string;
  leaseUntil?: number;
}

/** Options of `MemoryCheckpointStore`. */
export interface MemoryCheckpointStoreOptions {
  /** How long a `claim` keeps other owners out (default 60 s); an expired lease can be taken over. */
  leaseMs?: number;
  now?: () => number;
}

/**
 * The checkpoint store kept in process memory. Records are stored as JSON, like a database would,
 * so a resumed run sees copies (and a packet that cannot be serialised fails `save`). It survives
 * the engine instance, not the process: tests simulate a crash by dropping the engine and resuming
 * with a new one over the same store.
 */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly runs = new Map<string, StoredRun>();
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(options: MemoryCheckpointStoreOptions = {}) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  async begin(run: CheckpointRunRecord): Promise<void> {
    this.runs.set(run.runId, { run: JSON.stringify(run), steps: new Map(), completed: new Set() });
  }

  async save(runId: string, step: CheckpointStep): Promise<void> {
    const r = this.runs.get(runId);
    if (!r) throw new Error(`checkpoint store: unknown run ${runId}`);
    if (!r.steps.has(step.id)) r.steps.set(step.id, JSON.stringify(step));
  }

  async complete(runId: string, stepId: string): Promise<void> {
    this.runs.get(runId)?.completed.add(stepId);
  }

  async finish(runId: string): Promise<void> {
    this.runs.delete(runId);
  }

  async load(runId: string): Promise<CheckpointedRun | undefined> {
    const r = this.runs.get(runId);
    if (!r) return undefined;
    return {
      run: JSON.parse(r.run) as CheckpointRunRecord,
      steps: [...r.steps.values()].map((s) => JSON.parse(s) as CheckpointStep),
      completed: [...r.completed],
    };
  }

  async pending(): Promise<string[]> {
    return [...this.runs.keys()];
  }

  async claim(runId: string, owner: string): Promise<boolean> {
    const r = this.runs.get(runId);
    if (!r) return false;
    const now = this.now();
    if (r.owner !== undefined && r.owner !== owner && (r.leaseUntil ?? 0) > now) return false;
    r.owner = owner;
    r.leaseUntil = now + this.leaseMs;
    return true;
  }

  /** Forgets a lease at once (the replica that held it is known dead); for tests and operators. */
  release(runId: string): void {
    const r = this.runs.get(runId);
    if (r) {
      r.owner = undefined;
      r.leaseUntil = undefined;
    }
  }

  /** Runs currently recorded. */
  get size(): number {
    return this.runs.size;
  }
}
