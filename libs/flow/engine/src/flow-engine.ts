import { createHash, randomUUID } from 'node:crypto';
import { mergeProfile } from '@flowplane/contracts';
import { ROOT_CHECKPOINT, type CheckpointStore } from './checkpoint-store.port';
import type { CompiledEdge, CompiledFlow, CompiledNode, PortRoute } from './compile-flow';
import type {
  DurableStepEvent,
  DurableStepMessage,
  DurableStepOutcome,
  DurableStepResult,
  DurableSubscription,
  DurableTransport,
} from './durable-transport.port';
import type { SettingsProblem } from '@flowplane/flow/ir';
import { mergedConfigProblems } from './config-validation';
import { describeThrown, EngineClosedError, NodeTimeoutError, RunAbortedError, RunRejectedError } from './engine-errors';
import {
  DEFAULT_PORT,
  ERROR_PORT,
  isNodeToken,
  type NodeHandler,
  type NodeOutput,
  type NodeToken,
  type RunMeta,
} from './node-manifest';
import type {
  ConditionErrorReport,
  FinalRunStatus,
  RunError,
  RunEvent,
  RunEventDataMap,
  RunEventListener,
  RunEventType,
  RunHandle,
  RunResult,
  RunStatus,
} from './run-events';
import { resolveSettingRef, type SettingsReaderLike } from './setting-refs';
import { StepContext, StepState, type StepHost } from './step-context';

/**
 * The flow engine (issue 4 item 3). It executes compiled flow versions:
 *
 * - The start nodes receive the run input. A handler emits outputs, each on a port; for each
 *   output, the node's outgoing edges of that port (`edge.port` equal to it, or absent) are
 *   candidates: every conditional edge whose condition is true fires; the default edges (no
 *   condition, or `true`) fire only when no conditional edge matched. Several firing edges fan out
 *   in parallel. The packet travels on unchanged (inheritance, no coercion).
 * - The first `end` node reached finishes the run with its packet as output (`completed`, or
 *   `rejected` when its config says `status: "rejected"`). Branches still running are then aborted
 *   (their signal fires, their results are dropped); ephemeral branches keep running, silently.
 *   When every branch ends without reaching an end node, the run completes with no output.
 * - A handler that throws (or times out) sends `{error}` on its node's `Error` port when the
 *   manifest declares one and an edge of that port would fire for it (a default edge, or one
 *   whose condition holds); otherwise the run fails with the error.
 *   A handler that throws `RunRejectedError` ends the run as `rejected`.
 * - Delivery modes: `direct` inline; `ephemeral` a detached branch that can neither fail nor end
 *   the run (and is not awaited); `checkpoint` the packet is saved in the `CheckpointStore` before
 *   the next step runs (see `resume`); `durable` the step crosses the `DurableTransport` and runs
 *   on any consumer, at least once; `stream` routes like `direct` and hands the downstream step
 *   the chunks its upstream streamed (`ctx.upstreamTokens`). Tokens always reach the run's event
 *   stream live, as `token` events, whatever the edge mode; the downstream node gets the final packet.
 *
 * Nothing throws out of `start`, `cancel`, `resume` or `close`: errors end up in a run result.
 */

/** The part of `ProfileResolver` (contracts) the engine uses. */
export interface ProfileResolverLike {
  resolve(module: string, kind: string, profileId: string): Promise<{ readonly config: Readonly<Record<string, unknown>> }>;
  /** Synchronous cache hit, when the resolver has one (skips a promise per step). */
  resolveCached?(module: string, kind: string, profileId: string): { readonly config: Readonly<Record<string, unknown>> } | undefined;
}

/** Where the engine reports its own troubles (a checkpoint that could not be marked complete, ...). */
export interface EngineLogger {
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** Options of a `FlowEngine`. */
export interface FlowEngineOptions {
  /** Identifies this engine among replicas (durable results, checkpoint claims); default a uuid. */
  instanceId?: string;
  /** Receives every event of every run of this engine. */
  onEvent?: RunEventListener;
  /** Hook for conditions that failed to parse or evaluate (they also appear as `condition.error` events). */
  onConditionError?: (report: ConditionErrorReport) => void;
  /** Resolves `x-profile-kind` selector fields. Without it, selectors are left unresolved with a warning. */
  profiles?: ProfileResolverLike;
  /** Resolves `$setting:<module>/<key>` config values. Without it they resolve empty, with a warning. */
  settings?: SettingsReaderLike;
  /** Per-step timeout when the manifest sets none, in ms (default 30,000; 0 disables). */
  nodeTimeoutMs?: number;
  /** Steps a run may execute before it fails with `MAX_STEPS` (default 1,000). */
  maxSteps?: number;
  /** Persistence for `checkpoint` edges; without it they behave like `direct`. */
  checkpoints?: CheckpointStore;
  /** Transport for `durable` edges; without it (or before `connect()`) they run inline with a warning. */
  durable?: DurableTransport;
  /** Whether this engine runs durable steps sent by any engine (default true). */
  consumeDurableSteps?: boolean;
  /** Finds a version by id for durable steps and resumed runs this engine has not started itself. */
  loadVersion?: (versionId: string) => CompiledFlow | undefined | Promise<CompiledFlow | undefined>;
  logger?: EngineLogger;
}

/** Options of one `start`. */
export interface StartOptions {
  /** Run id chosen by the caller (for example created with the run record); default a uuid. */
  runId?: string;
  /** Receives this run's events (besides the engine's `onEvent`). */
  onEvent?: RunEventListener;
  /** Aborting it cancels the run. */
  signal?: AbortSignal;
}

/** Options of `resume`. */
export interface ResumeOptions {
  onEvent?: RunEventListener;
  /**
   * First sequence number of the resumed events. Default: one past the last checkpoint's. Pass
   * one past the last stored event when events emitted after that checkpoint were persisted.
   */
  nextSeq?: number;
}

type StepOutcome = DurableStepOutcome | { kind: 'aborted' };

/** Accounting of one checkpoint: branches it started that have neither ended nor reached a later checkpoint. */
class Tracker {
  pending = 0;
  counts?: Map<string, number>;
  /** How many times this checkpoint's branches reached each node (for step keys). */
  visits?: Map<string, number>;
  constructor(readonly id: string) {}
}

/** One unit of work: a node to run with the packet that arrived on it. */
interface Work {
  node: CompiledNode;
  packet: unknown;
  ephemeral: boolean;
  tracker?: Tracker;
  tokens?: readonly string[];
  /** `NodeContext.stepKey`; set when the step is counted (see `stepKeyOf`). */
  key?: string;
}

const NO_META: RunMeta = Object.freeze({});

class RunState implements StepHost {
  status: RunStatus = 'running';
  /** Cancelled or interrupted: even ephemeral branches stop. */
  halted = false;
  interrupted = false;
  seq = 0;
  steps = 0;
  /** Non-ephemeral work items not yet settled (the run completes when it drops to zero). */
  active = 0;
  detached = 0;
  checkpointed = false;
  skip?: Set<string>;
  /** Arrivals per node outside any checkpoint tracker (for step keys). */
  visits?: Map<string, number>;
  remote?: Set<string>;
  readonly inflight = new Set<StepState>();
  result?: RunResult;
  resolve!: (result: RunResult) => void;
  readonly done: Promise<RunResult>;
  detachSignal?: () => void;
  readonly inputMeta: unknown;

  constructor(
    readonly runId: string,
    readonly flow: CompiledFlow,
    readonly input: unknown,
    readonly meta: RunMeta,
    private readonly listener: RunEventListener | undefined,
    readonly startedAt: number,
  ) {
    this.done = new Promise<RunResult>((resolve) => (this.resolve = resolve));
    this.inputMeta = inputMetaOf(input);
  }

  /** Whether work of this kind may still run. */
  accepts(ephemeral: boolean): boolean {
    return this.status === 'running' || (ephemeral && !this.halted);
  }

  emit<T extends RunEventType>(type: T, data: RunEventDataMap[T], time?: number): void {
    if (this.status !== 'running') return;
    this.emitAlways(type, data, time);
  }

  emitAlways<T extends RunEventType>(type: T, data: RunEventDataMap[T], time?: number): void {
    const seq = ++this.seq;
    const listener = this.listener;
    if (listener === undefined) return;
    const event = { runId: this.runId, seq, time: time ?? Date.now(), type, data } as unknown as RunEvent;
    try {
      listener(event);
    } catch {
      // A listener never affects the run.
    }
  }

  add(step: StepState): void {
    this.inflight.add(step);
  }

  remove(step: StepState): void {
    this.inflight.delete(step);
  }
}

/** A durable step being run here for another engine: its events are collected for the result. */
class RemoteHost implements StepHost {
  readonly events: DurableStepEvent[] = [];
  readonly steps = new Set<StepState>();
  constructor(
    readonly runId: string,
    readonly meta: RunMeta,
    readonly inputMeta: unknown,
  ) {}

  emit<T extends RunEventType>(type: T, data: RunEventDataMap[T]): void {
    this.events.push({ type, data, time: Date.now() } as DurableStepEvent);
  }

  add(step: StepState): void {
    this.steps.add(step);
  }

  remove(step: StepState): void {
    this.steps.delete(step);
  }
}

function onStepTimeout(step: StepState, nodeId: string, ms: number): void {
  step.abort(new NodeTimeoutError(nodeId, ms));
}

/** Starts the step's timeout clock once, when it first has to wait for something. */
function armTimeout(step: StepState, timeoutMs: number, nodeId: string): void {
  if (step.timer === undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
    step.timer = setTimeout(onStepTimeout, timeoutMs, step, nodeId, timeoutMs).unref();
  }
}

function combine(a: RunEventListener | undefined, b: RunEventListener | undefined): RunEventListener | undefined {
  if (!a) return b;
  if (!b) return a;
  return (event) => {
    try {
      a(event);
    } catch {
      /* ignored */
    }
    b(event);
  };
}

/** The `meta` object of a run's input, which edge conditions read as `meta.<path>`. */
function inputMetaOf(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  return (input as { meta?: unknown }).meta;
}

/**
 * Whether routing a failure's `{error}` packet would fire an edge: a default edge, or a
 * conditional one whose condition holds. When none would (every edge leaving the node selects
 * another port by condition), the failure fails the run rather than ending the branch quietly and
 * completing the run with no output. Condition errors are reported when the packet is routed.
 */
function errorRouteFires(route: PortRoute, ctx: { port: string; output: unknown; input: unknown; meta: unknown }): boolean {
  if (route.defaults.length > 0) return true;
  for (const edge of route.conditional) {
    try {
      if (edge.condition!.evaluate(ctx).value === true) return true;
    } catch {
      // an edge whose condition throws does not fire
    }
  }
  return false;
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';
}

function isAsyncIterable(v: unknown): v is AsyncIterable<NodeOutput | NodeToken> {
  return typeof v === 'object' && v !== null && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

function asOutput(v: unknown): NodeOutput {
  if (typeof v === 'object' && v !== null && typeof (v as NodeOutput).port === 'string') return v as NodeOutput;
  throw new TypeError('handler returned an invalid output: expected {port, packet}');
}

function toOutputs(v: unknown): NodeOutput[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(asOutput);
  return [asOutput(v)];
}

/**
 * The n-th arrival at `nodeId` of the branches that left checkpoint `trackerId` (`root`: the start
 * nodes; `run`: a run without checkpoints, or an ephemeral branch). A resumed run re-executes a
 * checkpoint's branches from a fresh count, so a step run again gets the key it had.
 */
function stepKeyOf(run: RunState, tracker: Tracker | undefined, nodeId: string): string {
  const visits = tracker ? (tracker.visits ??= new Map<string, number>()) : (run.visits ??= new Map<string, number>());
  const n = (visits.get(nodeId) ?? 0) + 1;
  visits.set(nodeId, n);
  return `${run.runId}:${tracker ? tracker.id : 'run'}:${nodeId}:${n}`;
}

function checkpointId(parentId: string, edgeId: string, n: number): string {
  return createHash('sha1').update(`${parentId}\u0000${edgeId}\u0000${n}`).digest('hex').slice(0, 20);
}

/** Executes compiled flow versions. One instance per process (or per replica) is enough. */
export class FlowEngine {
  readonly instanceId: string;
  private readonly runs = new Map<string, RunState>();
  private readonly versions = new Map<string, CompiledFlow>();
  private readonly durableWaits = new Map<string, { run: RunState; work: Work }>();
  private readonly remoteHosts = new Set<RemoteHost>();
  private readonly maxSteps: number;
  private readonly nodeTimeoutMs: number;
  private subscriptions: DurableSubscription[] = [];
  private connecting?: Promise<void>;
  private connected = false;
  private closed = false;

  constructor(private readonly options: FlowEngineOptions = {}) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.maxSteps = options.maxSteps ?? 1000;
    this.nodeTimeoutMs = options.nodeTimeoutMs ?? 30_000;
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) throw new RangeError('maxSteps must be an integer >= 1');
    if (!(this.nodeTimeoutMs >= 0)) throw new RangeError('nodeTimeoutMs must be >= 0');
  }

  /** Runs in progress on this engine. */
  get activeRuns(): number {
    return this.runs.size;
  }

  /** Status of a run in progress here; undefined once it finished (or when it runs elsewhere). */
  runStatus(runId: string): RunStatus | undefined {
    return this.runs.get(runId)?.status;
  }

  /**
   * Forgets a version (its next durable step or resume loads it again through `loadVersion`).
   * Runs already going keep the compiled version they started with.
   */
  forgetVersion(versionId: string): void {
    this.versions.delete(versionId);
  }

  /** Makes a version known for durable steps and resumes (versions passed to `start` are added automatically). */
  addVersion(flow: CompiledFlow): void {
    if (this.versions.get(flow.versionId) !== flow) this.versions.set(flow.versionId, flow);
  }

  /**
   * Subscribes to the durable transport (results of this engine's steps and, unless
   * `consumeDurableSteps` is false, steps to run). Without a transport it does nothing.
   */
  connect(): Promise<void> {
    const transport = this.options.durable;
    if (!transport || this.connected || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const subs: DurableSubscription[] = [];
      try {
        subs.push(await transport.onResult((r) => this.onResult(r)));
        if (this.options.consumeDurableSteps !== false) subs.push(await transport.onStep((s) => this.onStep(s)));
        this.subscriptions = subs;
        this.connected = true;
      } catch (error) {
        await Promise.all(subs.map((s) => s.stop().catch(() => undefined)));
        throw error;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** Starts a run of `flow`. Never throws; `done` never rejects. */
  start(flow: CompiledFlow, input: unknown, meta: RunMeta = NO_META, options: StartOptions = {}): RunHandle {
    const runId = options.runId ?? randomUUID();
    const run = new RunState(runId, flow, input, meta, combine(this.options.onEvent, options.onEvent), Date.now());
    if (this.closed || this.runs.has(runId)) {
      const error: RunError = this.closed
        ? { code: 'ENGINE_CLOSED', message: 'flow engine closed' }
        : { code: 'DUPLICATE_RUN', message: `run ${runId} is already running` };
      run.resolve(this.result(run, 'failed', { error }));
      return { runId, done: run.done };
    }
    this.runs.set(runId, run);
    this.addVersion(flow);
    const signal = options.signal;
    if (signal) {
      const onAbort = (): void => void this.cancel(runId, 'signal aborted');
      if (signal.aborted) queueMicrotask(onAbort);
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        run.detachSignal = () => signal.removeEventListener('abort', onAbort);
      }
    }
    run.emit('run.started', { versionId: flow.versionId, input, meta });
    if (flow.starts.length === 0) {
      void this.finish(run, 'failed', { error: { code: 'NO_START_NODE', message: 'the flow has no start node' } });
    } else if (flow.hasCheckpoints && this.options.checkpoints) {
      void this.beginCheckpointed(run, this.options.checkpoints);
    } else {
      this.launch(run, flow.starts, undefined);
    }
    return { runId, done: run.done };
  }

  /** Cancels a run in progress here: status `cancelled`, every step's signal aborted. */
  cancel(runId: string, reason?: string): boolean {
    const run = this.runs.get(runId);
    if (!run || run.status !== 'running') return false;
    void this.finish(run, 'cancelled', { reason });
    return true;
  }

  /**
   * Ends a run in progress here as `failed` with `error` (for a failure outside the flow, such as
   * its events not being stored): every step's signal is aborted, as on cancel.
   */
  fail(runId: string, error: RunError): boolean {
    const run = this.runs.get(runId);
    if (!run || run.status !== 'running') return false;
    run.halted = true;
    void this.finish(run, 'failed', { error });
    return true;
  }

  /**
   * Resumes a run interrupted by a crash from its checkpoints (see `CheckpointStore`): saved steps
   * not complete run again, and the start nodes too when the run had not handed its start branch
   * to checkpoints yet. Steps after the last checkpoint therefore run at least once more. Resolves
   * undefined when there is nothing to resume (no store, unknown or finished run, claimed by
   * another owner). A run already in progress here returns its handle.
   */
  async resume(runId: string, options: ResumeOptions = {}): Promise<RunHandle | undefined> {
    const existing = this.runs.get(runId);
    if (existing) return { runId, done: existing.done };
    const store = this.options.checkpoints;
    if (!store || this.closed) return undefined;
    try {
      const saved = await store.load(runId);
      if (!saved) return undefined;
      if (store.claim && !(await store.claim(runId, this.instanceId))) return undefined;
      const again = this.runs.get(runId);
      if (again) return { runId, done: again.done };
      const flow = await this.version(saved.run.versionId);
      const listener = combine(this.options.onEvent, options.onEvent);
      if (!flow) {
        const lost = new RunState(runId, placeholderFlow(saved.run.versionId), saved.run.input, saved.run.meta ?? NO_META, listener, saved.run.startedAt);
        lost.checkpointed = true;
        this.runs.set(runId, lost);
        void this.finish(lost, 'failed', { error: { code: 'UNKNOWN_VERSION', message: `flow version ${saved.run.versionId} is not known to this engine` } });
        return { runId, done: lost.done };
      }
      const run = new RunState(runId, flow, saved.run.input, saved.run.meta ?? NO_META, listener, saved.run.startedAt);
      run.checkpointed = true;
      run.skip = new Set(saved.steps.map((s) => s.id));
      const completed = new Set(saved.completed);
      const pending = saved.steps.filter((s) => !completed.has(s.id));
      const restart = !completed.has(ROOT_CHECKPOINT);
      let seq = 0;
      for (const s of saved.steps) {
        seq = Math.max(seq, s.seq);
        run.steps = Math.max(run.steps, s.steps);
      }
      run.seq = Math.max(seq, (options.nextSeq ?? 1) - 1);
      this.runs.set(runId, run);
      this.addVersion(flow);
      run.emit('run.resumed', { versionId: flow.versionId, fromCheckpoints: pending.length, restarted: restart });
      const items: Work[] = [];
      for (const s of pending) {
        const node = flow.nodes.get(s.nodeId);
        if (!node) continue;
        const tracker = new Tracker(s.id);
        tracker.pending = 1;
        items.push({ node, packet: s.packet, ephemeral: false, tracker, tokens: s.upstreamTokens });
      }
      if (items.length === 0 && !restart) {
        // Every branch had ended without reaching an end node before the crash.
        void this.finish(run, 'completed', { output: undefined });
        return { runId, done: run.done };
      }
      run.active += items.length;
      if (restart) this.launch(run, flow.starts, new Tracker(ROOT_CHECKPOINT));
      for (const w of items) void this.exec(run, w);
      return { runId, done: run.done };
    } catch (error) {
      this.warn('resume failed', { runId, error: describeThrown(error).message });
      return undefined;
    }
  }

  /** Resumes every unfinished run of the checkpoint store (call at service start). */
  async resumeAll(options: Omit<ResumeOptions, 'nextSeq'> = {}): Promise<RunHandle[]> {
    const store = this.options.checkpoints;
    if (!store || this.closed) return [];
    let ids: string[];
    try {
      ids = await store.pending();
    } catch (error) {
      this.warn('listing checkpointed runs failed', { error: describeThrown(error).message });
      return [];
    }
    const handles: RunHandle[] = [];
    for (const id of ids) {
      const h = await this.resume(id, options);
      if (h) handles.push(h);
    }
    return handles;
  }

  /**
   * Stops the engine as a crash would, but tidily: every run in progress is interrupted (no final
   * event, checkpoints kept so another instance can resume it; `done` resolves `failed` with
   * `ENGINE_CLOSED` and `interrupted: true`), durable steps being run here are abandoned
   * unacknowledged (the transport redelivers them), and the transport subscriptions stop.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reason = new EngineClosedError();
    for (const run of [...this.runs.values()]) this.interrupt(run, reason);
    for (const host of this.remoteHosts) for (const s of [...host.steps]) s.abort(reason);
    await this.connecting?.catch(() => undefined);
    const subs = this.subscriptions;
    this.subscriptions = [];
    this.connected = false;
    await Promise.all(subs.map((s) => s.stop().catch(() => undefined)));
  }

  // --- execution --------------------------------------------------------------------------------

  private launch(run: RunState, starts: readonly CompiledNode[], tracker: Tracker | undefined): void {
    run.active += starts.length;
    if (tracker) tracker.pending += starts.length;
    for (const node of starts) void this.exec(run, { node, packet: run.input, ephemeral: false, tracker });
  }

  private async beginCheckpointed(run: RunState, store: CheckpointStore): Promise<void> {
    try {
      await store.begin({ runId: run.runId, versionId: run.flow.versionId, input: run.input, meta: run.meta, startedAt: run.startedAt });
    } catch (error) {
      await this.finish(run, 'failed', { error: { code: 'CHECKPOINT_FAILED', message: `recording the run failed: ${describeThrown(error).message}` } });
      return;
    }
    run.checkpointed = true;
    if (run.status !== 'running') {
      // Cancelled while the record was written: it must not be resumed.
      if (!run.interrupted) await store.finish(run.runId, run.status as FinalRunStatus).catch(() => undefined);
      return;
    }
    this.launch(run, run.flow.starts, new Tracker(ROOT_CHECKPOINT));
  }

  /** Runs one step of a local run and routes its outcome. Never rejects. */
  private async exec(run: RunState, work: Work): Promise<void> {
    try {
      if (!run.accepts(work.ephemeral)) return;
      const step = ++run.steps;
      if (step > this.maxSteps) {
        this.maxStepsExceeded(run, work);
        return;
      }
      work.key ??= stepKeyOf(run, work.tracker, work.node.id);
      const outcome = await this.runNode(run, work, step);
      await this.apply(run, work, outcome);
    } catch (error) {
      // Only engine bugs land here (handler errors are outcomes).
      if (!work.ephemeral) await this.finish(run, 'failed', { error: { code: 'ENGINE_ERROR', message: describeThrown(error).message, nodeId: work.node.id } });
    } finally {
      this.settle(run, work);
    }
  }

  private maxStepsExceeded(run: RunState, work: Work): void {
    const error: RunError = {
      code: 'MAX_STEPS',
      message: `the run exceeded ${this.maxSteps} steps at node ${JSON.stringify(work.node.id)}: the flow probably loops (a cycle without an exit)`,
      nodeId: work.node.id,
    };
    if (work.ephemeral) run.emit('node.warning', { nodeId: work.node.id, code: 'MAX_STEPS', message: error.message });
    else void this.finish(run, 'failed', { error });
  }

  /** A work item is over: the run and its checkpoint learn it. */
  private settle(run: RunState, work: Work): void {
    if (work.ephemeral) {
      run.detached--;
      return;
    }
    const t = work.tracker;
    if (t !== undefined && --t.pending === 0 && run.status === 'running') this.completeCheckpoint(run, t.id);
    if (--run.active === 0 && run.status === 'running') void this.finish(run, 'completed', { output: undefined });
  }

  private completeCheckpoint(run: RunState, id: string): void {
    const store = this.options.checkpoints;
    if (!store) return;
    store.complete(run.runId, id).catch((error: unknown) => {
      this.warn('marking a checkpoint complete failed (a resume would re-run it)', { runId: run.runId, checkpoint: id, error: describeThrown(error).message });
    });
  }

  /** What a finished step means for the run. */
  private async apply(run: RunState, work: Work, outcome: StepOutcome): Promise<void> {
    switch (outcome.kind) {
      case 'outputs': {
        const outputs = outcome.outputs;
        for (let i = 0; i < outputs.length; i++) {
          const p = this.dispatch(run, work, outputs[i], outcome.tokens);
          if (p !== undefined) await p;
        }
        return;
      }
      case 'end':
        // An ephemeral branch cannot end the run.
        if (!work.ephemeral) await this.finish(run, outcome.status, { output: outcome.packet, endNodeId: work.node.id, nodeId: work.node.id });
        return;
      case 'rejected':
        if (!work.ephemeral) await this.finish(run, 'rejected', { output: outcome.packet, reason: outcome.reason, nodeId: work.node.id });
        return;
      case 'failed':
        if (!work.ephemeral) await this.finish(run, 'failed', { error: outcome.error });
        return;
      case 'aborted':
        return;
    }
  }

  /** Routes one output to the node's edges of its port. Returns a promise only when something must be awaited. */
  private dispatch(run: RunState, work: Work, output: NodeOutput, tokens: readonly string[] | undefined): Promise<unknown> | undefined {
    if (!run.accepts(work.ephemeral)) return undefined;
    const route = work.node.route(output.port);
    let waits: Promise<unknown>[] | undefined;
    let matched = false;
    const conditional = route.conditional;
    if (conditional.length > 0) {
      const ctx = { port: output.port, output: output.packet, input: work.packet, meta: run.inputMeta };
      for (let i = 0; i < conditional.length; i++) {
        const edge = conditional[i];
        let value = false;
        let error: string | undefined;
        try {
          const r = edge.condition!.evaluate(ctx);
          value = r.value === true;
          error = r.error;
        } catch (e) {
          error = describeThrown(e).message;
        }
        if (error !== undefined) this.conditionError(run, edge, error);
        if (value) {
          matched = true;
          const p = this.fire(run, work, edge, output.packet, tokens);
          if (p !== undefined) (waits ??= []).push(p);
        }
      }
    }
    if (!matched) {
      const defaults = route.defaults;
      for (let i = 0; i < defaults.length; i++) {
        const p = this.fire(run, work, defaults[i], output.packet, tokens);
        if (p !== undefined) (waits ??= []).push(p);
      }
    }
    if (waits === undefined) return undefined;
    return waits.length === 1 ? waits[0] : Promise.all(waits);
  }

  private conditionError(run: RunState, edge: CompiledEdge, error: string): void {
    const condition = edge.condition?.source ?? '';
    run.emit('condition.error', { nodeId: edge.from.id, edgeId: edge.id, condition, error });
    const hook = this.options.onConditionError;
    if (hook) {
      try {
        hook({ runId: run.runId, nodeId: edge.from.id, edgeId: edge.id, condition, error });
      } catch {
        /* a hook never affects the run */
      }
    }
  }

  /** Sends a packet along one edge according to its delivery mode. */
  private fire(run: RunState, work: Work, edge: CompiledEdge, packet: unknown, tokens: readonly string[] | undefined): Promise<unknown> | undefined {
    const mode = edge.mode;
    const child: Work = {
      node: edge.to,
      packet,
      ephemeral: work.ephemeral || mode === 'ephemeral',
      tracker: undefined,
      tokens: mode === 'stream' ? tokens : undefined,
    };
    if (mode === 'checkpoint' && !child.ephemeral && work.tracker !== undefined && this.options.checkpoints) {
      return this.fireCheckpoint(run, work.tracker, edge, child, this.options.checkpoints);
    }
    if (mode === 'durable') {
      if (this.connected && this.options.durable) return this.fireDurable(run, work, edge, child, this.options.durable);
      run.emit('node.warning', {
        nodeId: edge.from.id,
        code: 'DURABLE_UNAVAILABLE',
        message: `edge ${JSON.stringify(edge.id)} is durable but the engine has no connected transport; the step ran inline`,
      });
    }
    if (child.ephemeral) {
      run.detached++;
    } else {
      child.tracker = work.tracker;
      if (child.tracker !== undefined) child.tracker.pending++;
      run.active++;
    }
    void this.exec(run, child);
    return undefined;
  }

  private async fireCheckpoint(run: RunState, parent: Tracker, edge: CompiledEdge, child: Work, store: CheckpointStore): Promise<void> {
    const counts = (parent.counts ??= new Map<string, number>());
    const n = (counts.get(edge.id) ?? 0) + 1;
    counts.set(edge.id, n);
    const id = checkpointId(parent.id, edge.id, n);
    // Saved by the interrupted incarnation of this run: resumed (or finished) from its own record.
    if (run.skip?.has(id)) return;
    const tracker = new Tracker(id);
    tracker.pending = 1;
    child.tracker = tracker;
    run.active++;
    try {
      await store.save(run.runId, {
        id,
        parentId: parent.id,
        edgeId: edge.id,
        nodeId: edge.to.id,
        packet: child.packet,
        upstreamTokens: child.tokens ? [...child.tokens] : undefined,
        seq: run.seq,
        steps: run.steps,
        savedAt: Date.now(),
      });
    } catch (error) {
      await this.finish(run, 'failed', {
        error: { code: 'CHECKPOINT_FAILED', message: `saving checkpoint of edge ${JSON.stringify(edge.id)} failed: ${describeThrown(error).message}`, nodeId: edge.from.id },
      });
      run.active--;
      return;
    }
    void this.exec(run, child);
  }

  private async fireDurable(run: RunState, work: Work, edge: CompiledEdge, child: Work, transport: DurableTransport): Promise<void> {
    const step = ++run.steps;
    if (step > this.maxSteps) {
      this.maxStepsExceeded(run, child);
      return;
    }
    if (child.ephemeral) run.detached++;
    else {
      child.tracker = work.tracker;
      if (child.tracker !== undefined) child.tracker.pending++;
      run.active++;
    }
    const stepId = randomUUID();
    child.key = stepKeyOf(run, child.tracker, child.node.id);
    this.durableWaits.set(stepId, { run, work: child });
    (run.remote ??= new Set()).add(stepId);
    try {
      await transport.send({
        stepId,
        originId: this.instanceId,
        runId: run.runId,
        versionId: run.flow.versionId,
        nodeId: child.node.id,
        edgeId: edge.id,
        packet: child.packet,
        meta: run.meta,
        inputMeta: run.inputMeta,
        upstreamTokens: child.tokens ? [...child.tokens] : undefined,
        step,
        stepKey: child.key,
      });
    } catch (error) {
      if (!this.durableWaits.delete(stepId)) return;
      run.remote?.delete(stepId);
      if (!child.ephemeral) {
        await this.finish(run, 'failed', {
          error: { code: 'DURABLE_SEND_FAILED', message: `sending the durable step of edge ${JSON.stringify(edge.id)} failed: ${describeThrown(error).message}`, nodeId: edge.from.id },
        });
      }
      this.settle(run, child);
    }
  }

  /** A durable step's result reached its origin (possibly twice: the first one counts). */
  private async onResult(result: DurableStepResult): Promise<void> {
    if (result.originId !== this.instanceId) return;
    const wait = this.durableWaits.get(result.stepId);
    if (!wait) return;
    this.durableWaits.delete(result.stepId);
    const { run, work } = wait;
    run.remote?.delete(result.stepId);
    try {
      if (!run.accepts(work.ephemeral)) return;
      for (const e of result.events ?? []) run.emit(e.type, e.data, e.time);
      await this.apply(run, work, result.outcome);
    } catch (error) {
      if (!work.ephemeral) await this.finish(run, 'failed', { error: { code: 'ENGINE_ERROR', message: describeThrown(error).message, nodeId: work.node.id } });
    } finally {
      this.settle(run, work);
    }
  }

  /** Runs a durable step sent by any engine. Rejecting leaves it unacknowledged (redelivered). */
  private async onStep(message: DurableStepMessage): Promise<void> {
    if (this.closed) throw new EngineClosedError();
    const flow = await this.version(message.versionId);
    if (!flow) throw new Error(`flow version ${message.versionId} is not known to engine ${this.instanceId}`);
    const node = flow.nodes.get(message.nodeId);
    const host = new RemoteHost(message.runId, message.meta ?? NO_META, message.inputMeta);
    let outcome: StepOutcome;
    if (!node) {
      outcome = { kind: 'failed', error: { code: 'UNKNOWN_NODE', message: `node ${JSON.stringify(message.nodeId)} is not in version ${message.versionId}`, nodeId: message.nodeId } };
    } else {
      this.remoteHosts.add(host);
      try {
        outcome = await this.runNode(host, { node, packet: message.packet, ephemeral: false, tokens: message.upstreamTokens, key: message.stepKey ?? message.stepId }, message.step);
      } finally {
        this.remoteHosts.delete(host);
      }
    }
    if (outcome.kind === 'aborted' || this.closed) throw new EngineClosedError();
    await this.options.durable!.sendResult({
      stepId: message.stepId,
      originId: message.originId,
      runId: message.runId,
      consumerId: this.instanceId,
      events: host.events,
      outcome,
    });
  }

  /**
   * Runs one node: events, config (profiles merged), handler with timeout and abort, Error port.
   * Shared by local steps and durable steps run for another engine. Never rejects.
   */
  private async runNode(host: StepHost, work: Work, stepNo: number): Promise<StepOutcome> {
    const node = work.node;
    const nodeId = node.id;
    host.emit('node.started', { nodeId, name: node.info.name, kind: node.kind, actionRef: node.actionRef, step: stepNo });
    const warnings = node.configWarnings;
    for (let i = 0; i < warnings.length; i++) host.emit('node.warning', { nodeId, code: warnings[i].code, message: warnings[i].message, key: warnings[i].key });
    const started = performance.now();
    const definition = node.definition;
    if (node.broken || definition === undefined) {
      if (node.broken) {
        const error: RunError = { code: 'BROKEN_NODE', message: `node ${JSON.stringify(nodeId)}: action_ref ${JSON.stringify(node.actionRef)} is not registered`, nodeId };
        host.emit('node.failed', { nodeId, error, durationMs: performance.now() - started });
        return { kind: 'failed', error };
      }
      // A node without action_ref passes its packet through.
      if (node.kind === 'end') {
        host.emit('node.completed', { nodeId, ports: [], durationMs: performance.now() - started });
        return { kind: 'end', status: node.endStatus ?? 'completed', packet: work.packet };
      }
      host.emit('node.completed', { nodeId, port: DEFAULT_PORT, ports: [DEFAULT_PORT], durationMs: performance.now() - started });
      return { kind: 'outputs', outputs: [{ port: DEFAULT_PORT, packet: work.packet }] };
    }

    const step = new StepState(work.ephemeral, node.streamsDownstream);
    host.add(step);
    try {
      const timeoutMs = node.timeoutMs ?? this.nodeTimeoutMs;
      let config = node.selectors.length > 0 ? await this.profileConfig(host, node, step, timeoutMs) : node.staticConfig;
      if (node.settingRefs.length > 0) config = await this.settingConfig(host, node, step, config, timeoutMs);
      if (node.selectors.length > 0) {
        // The stored config was checked at save and publish; what the profiles brought is checked here.
        const problems = mergedConfigProblems(definition.manifest.settingsSchema, config);
        if (problems.length > 0) {
          const error = invalidMergedConfig(node, problems);
          host.emit('node.failed', { nodeId, error, durationMs: performance.now() - started });
          return { kind: 'failed', error };
        }
      }
      const ctx = new StepContext(work.packet, config, node.info, work.tokens, host, step, work.key ?? `${host.runId}:run:${nodeId}`);
      const outputs = await this.invoke(definition.handler, ctx, step, timeoutMs, nodeId);
      const durationMs = performance.now() - started;
      if (node.kind === 'end') {
        host.emit('node.completed', { nodeId, port: outputs[0]?.port, ports: outputs.map((o) => o.port), durationMs });
        return { kind: 'end', status: node.endStatus ?? 'completed', packet: outputs.length > 0 ? outputs[0].packet : work.packet };
      }
      const ports = outputs.length === 1 ? [outputs[0].port] : outputs.map((o) => o.port);
      host.emit('node.completed', { nodeId, port: ports[0], ports, durationMs });
      return { kind: 'outputs', outputs, tokens: step.tokens };
    } catch (thrown) {
      const durationMs = performance.now() - started;
      const reason = step.reason;
      if (reason instanceof RunAbortedError || reason instanceof EngineClosedError) return { kind: 'aborted' };
      if (thrown instanceof RunRejectedError) {
        host.emit('node.completed', { nodeId, ports: [], durationMs });
        return { kind: 'rejected', packet: thrown.packet === undefined ? work.packet : thrown.packet, reason: thrown.reason };
      }
      const { code, message } = describeThrown(thrown);
      const error: RunError = { code, message, nodeId };
      const packet = { error: message };
      if (node.hasErrorPort && errorRouteFires(node.route(ERROR_PORT), { port: ERROR_PORT, output: packet, input: work.packet, meta: host.inputMeta })) {
        host.emit('node.failed', { nodeId, error, durationMs, routedTo: ERROR_PORT });
        host.emit('node.completed', { nodeId, port: ERROR_PORT, ports: [ERROR_PORT], durationMs });
        return { kind: 'outputs', outputs: [{ port: ERROR_PORT, packet }] };
      }
      host.emit('node.failed', { nodeId, error, durationMs });
      return { kind: 'failed', error };
    } finally {
      step.finish();
      host.remove(step);
    }
  }

  /** Calls the handler and collects its outputs, under the step's timeout and abort. */
  private async invoke(handler: NodeHandler, ctx: StepContext, step: StepState, timeoutMs: number, nodeId: string): Promise<NodeOutput[]> {
    if (step.reason) throw step.reason;
    const result = handler(ctx);
    if (result === undefined || result === null) return [];
    if (isPromiseLike(result)) {
      armTimeout(step, timeoutMs, nodeId);
      return toOutputs(await step.race(result));
    }
    if (isAsyncIterable(result)) {
      armTimeout(step, timeoutMs, nodeId);
      const outputs: NodeOutput[] = [];
      const iterator = result[Symbol.asyncIterator]();
      let finished = false;
      try {
        for (;;) {
          const next = await step.race(iterator.next());
          if (next.done) {
            finished = true;
            break;
          }
          const item = next.value;
          if (isNodeToken(item)) ctx.emitToken(item.token);
          else outputs.push(asOutput(item));
        }
      } finally {
        if (!finished && typeof iterator.return === 'function') {
          // Let the generator run its finally blocks; never wait for it.
          Promise.resolve()
            .then(() => iterator.return!())
            .catch(() => undefined);
        }
      }
      return outputs;
    }
    return toOutputs(result);
  }

  /** The config with its `$setting:` references replaced by the settings' current values. */
  private async settingConfig(host: StepHost, node: CompiledNode, step: StepState, config: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<Record<string, unknown>> {
    const reader = this.options.settings;
    const out: Record<string, unknown> = { ...config };
    for (const ref of node.settingRefs) {
      // A profile may have replaced the value: resolve only what is still the reference.
      if (out[ref.key] !== node.staticConfig[ref.key]) continue;
      if (!reader) {
        host.emit('node.warning', { nodeId: node.id, code: 'NO_SETTINGS_READER', key: ref.key, message: `config key ${JSON.stringify(ref.key)} names a module setting but the engine has no settings reader; literal fallbacks only` });
        out[ref.key] = await resolveSettingRef(ref.alternatives, { get: async () => undefined });
        continue;
      }
      // Reading settings counts toward the step's timeout, like the handler.
      armTimeout(step, timeoutMs, node.id);
      out[ref.key] = await step.race(resolveSettingRef(ref.alternatives, reader));
    }
    return out;
  }

  /** The node config with each selected profile merged underneath, then settings defaults. */
  private async profileConfig(host: StepHost, node: CompiledNode, step: StepState, timeoutMs: number): Promise<Record<string, unknown>> {
    const resolver = this.options.profiles;
    let merged: Record<string, unknown> = { ...node.ownConfig };
    for (const selector of node.selectors) {
      const raw = node.staticConfig[selector.key];
      const id = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
      if (id === '') continue;
      if (!resolver) {
        host.emit('node.warning', {
          nodeId: node.id,
          code: 'NO_PROFILE_RESOLVER',
          key: selector.key,
          message: `profile ${selector.module}/${selector.kind}/${id} not merged: the engine has no profile resolver`,
        });
        continue;
      }
      let profile = resolver.resolveCached?.(selector.module, selector.kind, id);
      if (profile === undefined) {
        // Resolving counts toward the step's timeout, like the handler.
        armTimeout(step, timeoutMs, node.id);
        profile = await step.race(resolver.resolve(selector.module, selector.kind, id));
      }
      // Refuses (the step fails with PROFILE_ENDPOINT_OVERRIDE) when the values on top would send
      // the profile's secret to another endpoint, whatever the version was saved with.
      merged = mergeProfile(profile.config, merged, { overridable: node.overridable, profileRef: { module: selector.module, kind: selector.kind, profileId: id } });
    }
    const defaults = node.defaults;
    for (const key in defaults) if (merged[key] === undefined) merged[key] = defaults[key];
    return merged;
  }

  // --- ending runs ------------------------------------------------------------------------------

  private async finish(
    run: RunState,
    status: FinalRunStatus,
    fields: { output?: unknown; error?: RunError; reason?: string; endNodeId?: string; nodeId?: string },
  ): Promise<void> {
    if (run.status !== 'running') return;
    run.status = status;
    if (status === 'cancelled') run.halted = true;
    const result = this.result(run, status, fields);
    const durationMs = result.durationMs;
    switch (status) {
      case 'completed':
        run.emitAlways('run.completed', { output: fields.output, endNodeId: fields.endNodeId, durationMs });
        break;
      case 'rejected':
        run.emitAlways('run.rejected', { output: fields.output, reason: fields.reason, nodeId: fields.nodeId, durationMs });
        break;
      case 'failed':
        run.emitAlways('run.failed', { error: fields.error ?? { code: 'FAILED', message: 'run failed' }, durationMs });
        break;
      case 'cancelled':
        run.emitAlways('run.cancelled', { reason: fields.reason, durationMs });
        break;
    }
    result.lastSeq = run.seq;
    // The reason is built only when a step is in flight: an Error captures a stack, which would
    // otherwise be the most expensive part of finishing an ordinary run.
    this.release(run, () =>
      new RunAbortedError(status === 'cancelled' ? `run cancelled${fields.reason ? `: ${fields.reason}` : ''}` : `run ${status}`),
    );
    const store = this.options.checkpoints;
    if (store && run.checkpointed) {
      try {
        await store.finish(run.runId, status);
      } catch (error) {
        this.warn('recording the end of a checkpointed run failed (it may be resumed again)', { runId: run.runId, error: describeThrown(error).message });
      }
    }
    run.resolve(result);
  }

  /** Abort in-flight steps (ephemeral ones only when the run halts) and forget the run. */
  private release(run: RunState, reason: () => Error): void {
    if (run.inflight.size > 0) {
      const error = reason();
      for (const step of [...run.inflight]) if (run.halted || !step.ephemeral) step.abort(error);
    }
    if (run.remote) {
      for (const id of run.remote) {
        const w = this.durableWaits.get(id);
        if (w && (run.halted || !w.work.ephemeral)) this.durableWaits.delete(id);
      }
    }
    run.detachSignal?.();
    if (this.runs.get(run.runId) === run) this.runs.delete(run.runId);
  }

  private interrupt(run: RunState, reason: EngineClosedError): void {
    if (run.status !== 'running') return;
    run.status = 'failed';
    run.halted = true;
    run.interrupted = true;
    const result = this.result(run, 'failed', { error: { code: reason.code, message: reason.message } });
    result.interrupted = true;
    this.release(run, () => reason);
    run.resolve(result);
  }

  private result(
    run: RunState,
    status: FinalRunStatus,
    fields: { output?: unknown; error?: RunError; reason?: string; endNodeId?: string },
  ): RunResult {
    const finishedAt = Date.now();
    const result: RunResult = {
      runId: run.runId,
      versionId: run.flow.versionId,
      status,
      steps: run.steps,
      lastSeq: run.seq,
      startedAt: run.startedAt,
      finishedAt,
      durationMs: finishedAt - run.startedAt,
    };
    if (fields.output !== undefined) result.output = fields.output;
    if (fields.error) result.error = fields.error;
    if (fields.reason !== undefined) result.reason = fields.reason;
    if (fields.endNodeId !== undefined) result.endNodeId = fields.endNodeId;
    return result;
  }

  private async version(versionId: string): Promise<CompiledFlow | undefined> {
    const known = this.versions.get(versionId);
    if (known) return known;
    const loaded = await this.options.loadVersion?.(versionId);
    if (loaded) this.addVersion(loaded);
    return loaded;
  }

  private warn(message: string, meta: Record<string, unknown>): void {
    try {
      this.options.logger?.warn(message, meta);
    } catch {
      /* ignored */
    }
  }
}

/** Stand-in flow of a resumed run whose version is gone (it only carries the id into the result). */
function placeholderFlow(versionId: string): CompiledFlow {
  return {
    versionId,
    document: { nodes: [], edges: [] },
    nodes: new Map(),
    edges: new Map(),
    starts: [],
    broken: [],
    warnings: [],
    hasCheckpoints: true,
  };
}

/**
 * The run error of a step whose merged config (profiles included) its settings schema refuses:
 * code INVALID_NODE_CONFIG, the node, the first field and every reason. The run fails, whatever
 * the node's Error port: the flow cannot handle a configuration it was never given.
 */
function invalidMergedConfig(node: CompiledNode, problems: readonly SettingsProblem[]): RunError {
  const profiles = node.selectors
    .map((s) => ({ s, id: node.staticConfig[s.key] }))
    .filter(({ id }) => typeof id === 'string' || typeof id === 'number')
    .map(({ s, id }) => `${s.module}/${s.kind}/${String(id)}`);
  const reasons = problems.map((p) => `config${p.path ? ` ${p.path}` : ''} ${p.message}`);
  return {
    code: 'INVALID_NODE_CONFIG',
    message: `node ${JSON.stringify(node.id)} (${node.actionRef ?? 'no action_ref'}): ${reasons.join('; ')}${profiles.length ? ` (with profile ${profiles.join(', ')} merged)` : ''}`,
    nodeId: node.id,
    field: problems[0].path,
  };
}
