import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ProfileResolver } from '@flowplane/contracts';
import { boundToReplacedNode, BusDurableTransport, type CompiledFlow, compileFlow, FlowEngine, type NodeRegistry, type RunEvent, type RunHandle, type RunResult } from '@flowplane/flow/engine';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, STORE } from '@flowplane/platform/service';
import type { Store } from '@flowplane/platform/store';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import type { FlowVersion, PublishVariant } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { NODE_REGISTRY } from '../nodes/nodes.module';
import { ModuleSettingsReader } from '../settings/module-settings.reader';
import { type RunCursor, type RunQuery, RunRepository, type RunRecord } from './run.repository';
import { StoreCheckpointStore } from './store-checkpoint.store';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.rejected', 'run.cancelled']);

/** A run whose events could not be stored is stopped with this error. */
const EVENTS_NOT_PERSISTED = { code: 'RUN_EVENTS_NOT_PERSISTED', message: 'the events of the run could not be stored, so the run was stopped' } as const;
/** A run whose end (its output) could not be stored is recorded as failed with this error. */
const RESULT_NOT_PERSISTED = { code: 'RUN_RESULT_NOT_PERSISTED', message: 'the result of the run could not be stored' } as const;

/** Longest an event of a running run waits before it is written (the run's end writes at once). */
const EVENT_FLUSH_DELAY_MS = 50;

/**
 * The live side of a run: every event so far, listeners, and a persistence queue that keeps order.
 * Live readers (SSE, GET /runs/{id}) are served from memory, so events are written in batches: at
 * most EVENT_FLUSH_DELAY_MS after they happen, and all remaining ones when the run ends (a short
 * run is one write).
 */
class RunChannel {
  readonly events: RunEvent[] = [];
  readonly listeners = new Set<(e: RunEvent) => void>();
  private pending: RunEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  ended = false;
  /** The first write of events that failed: the stored timeline has a gap, so the run cannot count as done. */
  persistError?: unknown;

  constructor(
    private readonly persist: (events: RunEvent[]) => Promise<void>,
    private readonly onPersistError: (err: unknown) => void = () => undefined,
  ) {}

  push(e: RunEvent): void {
    this.events.push(e);
    if (TERMINAL.has(e.type)) this.ended = true;
    for (const l of this.listeners) l(e);
    this.pending.push(e);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flushing = this.flushing.then(() => this.flush());
      }, EVENT_FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Never rejects: a failed write is recorded and reported once, and later batches are still tried. */
  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return;
    try {
      await this.persist(batch);
    } catch (e) {
      if (this.persistError !== undefined) return;
      this.persistError = e ?? new Error('unknown error');
      this.onPersistError(this.persistError);
    }
  }

  /** Writes what is pending now; resolves once every event pushed so far is stored. */
  settled(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flushing = this.flushing.then(() => this.flush());
    return this.flushing;
  }
}

export interface StartRunInput {
  input?: unknown;
  meta?: Record<string, unknown>;
  versionId?: string;
  variant?: string;
  /**
   * The label of the deployment variant that chose this flow (the assistant's, a route's or a
   * subscriber's selection). Recorded as the run's `variant`, which the usage ledger stamps on the
   * run's LLM calls, so cost can be split by the variant that served it.
   */
  deploymentVariant?: string;
}

/** Starts runs of published (or given) versions, records their events, and streams them. */
@Injectable()
export class RunsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('Runs');
  private readonly engine: FlowEngine;
  private readonly checkpoints: StoreCheckpointStore;
  private maintenance?: NodeJS.Timeout;
  private recovering?: Promise<void>;
  private readonly compiled = new Map<string, CompiledFlow>();
  /** Versions are immutable: once read, a version is served from memory. */
  private readonly versions = new Map<string, FlowVersion>();
  private readonly channels = new Map<string, RunChannel>();
  private readonly stopWatchingNodes: () => void;

  constructor(
    private readonly flows: FlowsService,
    private readonly repo: RunRepository,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Inject(STORE) store: Store,
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    @Optional() profiles?: ProfileResolver,
    @Optional() settings?: ModuleSettingsReader,
  ) {
    const config = ctx.config as ServiceConfig & FlowRuntimeEnv;
    const instanceId = config.FLOW_ENGINE_INSTANCE_ID ?? defaultInstanceId(ctx);
    this.checkpoints = new StoreCheckpointStore(store, { owner: instanceId, leaseMs: config.FLOW_CHECKPOINT_LEASE_MS ?? 30_000 });
    this.engine = new FlowEngine({
      instanceId,
      logger: { warn: (m, meta) => this.log.warn({ ...meta }, m) },
      profiles,
      settings,
      checkpoints: this.checkpoints,
      durable: ctx.bus ? new BusDurableTransport(ctx.bus, { instanceId }) : undefined,
      loadVersion: (versionId) => this.loadCompiled(versionId),
      nodeTimeoutMs: config.FLOW_NODE_TIMEOUT_MS,
      maxSteps: config.FLOW_MAX_STEPS,
    });
    this.stopWatchingNodes = registry.onChange(() => this.dropStaleVersions());
  }

  /**
   * A node was registered again (a remote node's new manifest): versions compiled against the old
   * manifest are compiled again on next use, here and for durable steps this engine runs, so new
   * ports and settings apply. Runs already going keep the version they started with.
   */
  private dropStaleVersions(): void {
    for (const [versionId, flow] of this.compiled) {
      if (!boundToReplacedNode(flow, this.registry)) continue;
      this.compiled.delete(versionId);
      this.engine.forgetVersion(versionId);
    }
  }

  /** This replica's engine id (owner of its checkpointed runs). */
  get instanceId(): string {
    return this.engine.instanceId;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.checkpoints.init();
    await this.engine.connect();
    await this.recover();
    await this.failOrphans();
    // Keep our leases alive and adopt runs whose owner died, three times per lease.
    this.maintenance = setInterval(() => void this.maintain(), Math.max(1000, Math.floor(this.checkpoints.leaseMs / 3)));
    this.maintenance.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopWatchingNodes();
    if (this.maintenance) clearInterval(this.maintenance);
    await this.recovering?.catch(() => undefined);
    await this.engine.close();
  }

  private async maintain(): Promise<void> {
    try {
      await this.checkpoints.renew();
      await this.recover();
    } catch (e) {
      this.log.warn(`checkpoint maintenance failed: ${(e as Error).message}`);
    }
  }

  /** Versions ids are `<flowId>@v<n>`: finds and compiles one for resumed runs and durable steps. */
  private async loadCompiled(versionId: string): Promise<CompiledFlow | undefined> {
    const at = versionId.lastIndexOf('@v');
    if (at <= 0) return undefined;
    try {
      return this.compile(await this.version(versionId.slice(0, at), versionId));
    } catch {
      return undefined;
    }
  }

  /**
   * Resumes checkpointed runs this replica may take (its own after a restart, and those whose
   * owner's lease expired) from their last checkpoint; their events continue the stored stream.
   */
  recover(): Promise<void> {
    this.recovering ??= (async () => {
      try {
        for (const runId of await this.checkpoints.pending()) {
          if (this.channels.has(runId) || this.engine.runStatus(runId)) continue;
          const stored = await this.repo.eventsAfter(runId, 0);
          const channel = this.channel(runId);
          channel.events.push(...stored);
          const handle = await this.engine.resume(runId, { nextSeq: (stored.at(-1)?.seq ?? 0) + 1, onEvent: (e) => channel.push(e) });
          if (!handle) continue;
          this.channels.set(runId, channel);
          this.log.log(`resumed run ${runId} from its checkpoints`);
          void this.settle(runId, channel, handle);
        }
      } finally {
        this.recovering = undefined;
      }
    })();
    return this.recovering;
  }

  /**
   * Runs this replica started that are still `running` in the store but neither live here nor
   * checkpointed were cut off by a crash or restart with nothing to resume from: they are marked
   * failed with INTERRUPTED rather than left running forever.
   */
  private async failOrphans(): Promise<void> {
    for (const run of await this.repo.runningOn(this.engine.instanceId)) {
      if (this.channels.has(run.runId) || this.engine.runStatus(run.runId)) continue;
      if (await this.checkpoints.load(run.runId)) continue;
      const now = new Date();
      await this.repo.finish(run.runId, {
        status: 'failed',
        error: { code: 'INTERRUPTED', message: 'the service stopped while the run was in progress and the flow has no checkpoint to resume from' },
        finishedAt: now,
        durationMs: now.getTime() - run.startedAt.getTime(),
        lastSeq: run.lastSeq,
      });
      this.log.warn(`run ${run.runId} was interrupted by a restart and marked failed`);
    }
  }

  /**
   * The event channel of a run. A run whose events cannot be stored is stopped and failed with
   * RUN_EVENTS_NOT_PERSISTED: left going, it would finish with a timeline nobody can read back.
   */
  private channel(runId: string): RunChannel {
    return new RunChannel(
      (events) => this.repo.appendEvents(events),
      (err) => {
        this.log.error({ runId, err }, `storing the events of run ${runId} failed; the run is stopped and marked failed`);
        this.engine.fail(runId, EVENTS_NOT_PERSISTED);
      },
    );
  }

  /**
   * Records the end of a run (started or resumed here). Never rejects: whatever fails while storing
   * the end, the run is recorded as failed with a code rather than left `running`.
   */
  private settle(runId: string, channel: RunChannel, handle: RunHandle): Promise<RunResult> {
    return handle.done.then(async (engineResult) => {
      await channel.settled();
      let result = engineResult;
      // The events failed to be stored after the run ended (its last batch): the run is failed all the same.
      if (channel.persistError !== undefined && !result.interrupted && result.error?.code !== EVENTS_NOT_PERSISTED.code) {
        result = { ...result, status: 'failed', error: EVENTS_NOT_PERSISTED, output: undefined };
      }
      // An engine closing under a run (shutdown) leaves it to be resumed or marked interrupted later.
      if (!result.interrupted) result = await this.recordEnd(runId, result);
      // Keep the channel briefly so a client that connects right after the end still streams from memory.
      setTimeout(() => this.channels.delete(runId), 30_000).unref();
      return result;
    });
  }

  /** Writes the end of a run; when that fails (an output that cannot be stored), writes a failure without the output. */
  private async recordEnd(runId: string, result: RunResult): Promise<RunResult> {
    const end = { finishedAt: new Date(result.finishedAt), durationMs: result.durationMs, lastSeq: result.lastSeq };
    try {
      await this.repo.finish(runId, { status: result.status, output: result.output, error: result.error, ...end });
      return result;
    } catch (err) {
      this.log.error({ runId, err }, `storing the end of run ${runId} failed; recording it as failed without its output`);
    }
    const failed: RunResult = { ...result, status: 'failed', output: undefined, error: RESULT_NOT_PERSISTED };
    try {
      await this.repo.finish(runId, { status: 'failed', error: RESULT_NOT_PERSISTED, ...end });
    } catch (err) {
      // The store itself is down: the record stays `running` until this replica restarts and fails it as INTERRUPTED.
      this.log.error({ runId, err }, `recording the failure of run ${runId} failed too`);
    }
    return failed;
  }

  private async version(flowId: string, versionId: string): Promise<FlowVersion> {
    const cached = this.versions.get(versionId);
    if (cached && cached.flowId === flowId) return cached;
    const v = await this.flows.getVersion(flowId, versionId);
    if (this.versions.size > 1000) this.versions.clear();
    this.versions.set(versionId, v);
    return v;
  }

  /** Picks the version a new run uses: the given one, a named variant, or a weighted draw of the publish. */
  private async pickVersion(flowId: string, req: StartRunInput): Promise<{ version: FlowVersion; variant?: string }> {
    if (req.versionId) return { version: await this.version(flowId, req.versionId) };
    const flow = await this.flows.getCached(flowId);
    if (!flow.published) throw new DomainException('FLOW_NOT_PUBLISHED', 409, `flow ${flowId} is not published; publish a version or pass versionId`);
    if ('versionId' in flow.published) return { version: await this.version(flowId, flow.published.versionId) };
    const variants = flow.published.variants;
    let chosen: PublishVariant | undefined;
    if (req.variant) {
      chosen = variants.find((v) => v.label === req.variant);
      if (!chosen) throw new DomainException('UNKNOWN_VARIANT', 400, `flow ${flowId} has no variant ${req.variant}`);
    } else {
      const total = variants.reduce((n, v) => n + v.weight, 0);
      let x = Math.random() * total;
      chosen = variants.find((v) => v.weight > 0 && (x -= v.weight) < 0) ?? variants.find((v) => v.weight > 0)!;
    }
    return { version: await this.version(flowId, chosen.versionId), variant: chosen.label };
  }

  private compile(version: FlowVersion): CompiledFlow {
    let c = this.compiled.get(version.versionId);
    if (!c) {
      c = compileFlow(version.document, this.registry, { versionId: version.versionId });
      if (c.broken.length) throw new DomainException('BROKEN_NODES', 409, `version ${version.versionId} has unknown nodes: ${c.broken.map((b) => b.nodeId).join(', ')}`);
      this.compiled.set(version.versionId, c);
    }
    return c;
  }

  /** Starts a run; events are recorded and streamed as they happen. */
  async start(flowId: string, req: StartRunInput, startedBy: string): Promise<{ runId: string; versionId: string; versionHash: string; variant?: string; done: Promise<RunResult> }> {
    const picked = await this.pickVersion(flowId, req);
    const { version } = picked;
    const variant = req.deploymentVariant ?? picked.variant;
    const flow = this.compile(version);
    const runId = randomUUID();
    const channel = this.channel(runId);
    this.channels.set(runId, channel);
    await this.repo.insert({ runId, flowId, versionId: version.versionId, variant, status: 'running', startedBy, startedAt: new Date(), lastSeq: 0, engine: this.engine.instanceId });
    const handle = this.engine.start(flow, req.input ?? {}, { ...(req.meta ?? {}) }, { runId, onEvent: (e) => channel.push(e) });
    return { runId, versionId: version.versionId, versionHash: version.hash, variant, done: this.settle(runId, channel, handle) };
  }

  async get(runId: string): Promise<{ run: RunRecord; timeline: RunEvent[] }> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    const live = this.channels.get(runId);
    const timeline = live ? [...live.events] : await this.repo.eventsAfter(runId, 0);
    return { run, timeline };
  }

  /** Runs newest first, filtered and paged (GET /runs). */
  list(q: RunQuery, limit: number, after?: RunCursor): Promise<{ items: RunRecord[]; next?: RunCursor }> {
    return this.repo.list(q, limit, after);
  }

  /** Cancels a running run; 404 for an unknown run, 409 when it already ended. */
  async cancel(runId: string, reason = 'cancelled through the API'): Promise<void> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    if (!this.engine.cancel(runId, reason)) throw new DomainException('RUN_ENDED', 409, `run ${runId} is not running (status ${run.status})`);
  }

  /**
   * The sequence number of the run's final event once it has ended, undefined while it runs; 404
   * for an unknown run. A reader whose Last-Event-ID is at or past it has seen everything.
   */
  async finalSeq(runId: string): Promise<number | undefined> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    const live = this.channels.get(runId);
    if (live) {
      if (!live.ended) return undefined;
      for (let i = live.events.length - 1; i >= 0; i--) if (TERMINAL.has(live.events[i].type)) return live.events[i].seq;
      return undefined;
    }
    return run.status === 'running' ? undefined : run.lastSeq;
  }

  /**
   * Streams a run's events after `afterSeq`: replays what was missed, then follows live events until
   * the run ends. Returns a function that stops listening (the run itself continues).
   */
  async follow(runId: string, afterSeq: number, listener: (e: RunEvent) => void, onEnd: () => void): Promise<() => void> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    const live = this.channels.get(runId);
    if (!live) {
      for (const e of await this.repo.eventsAfter(runId, afterSeq)) listener(e);
      onEnd();
      return () => undefined;
    }
    let last = afterSeq;
    let ended = false;
    const forward = (e: RunEvent) => {
      if (ended) return;
      if (e.seq > last) {
        last = e.seq;
        listener(e);
      }
      // The stream ends with the run even when the reader had already seen the final event (a
      // reconnect whose Last-Event-ID is at or past it): there is nothing left to wait for.
      if (TERMINAL.has(e.type)) {
        ended = true;
        onEnd();
      }
    };
    for (const e of live.events) forward(e);
    if (live.ended) return () => undefined;
    live.listeners.add(forward);
    return () => live.listeners.delete(forward);
  }
}

/** `<hostname>:<port>`: stable across restarts of one replica, distinct between replicas. */
function defaultInstanceId(ctx: ServiceContext): string {
  const port = (ctx.config as ServiceConfig).PORT;
  const host = (ctx.env.HOSTNAME || hostname()).replace(/[^A-Za-z0-9_.-]/g, '-');
  return port ? `${host}:${port}` : `${host}:${randomUUID().slice(0, 8)}`;
}
