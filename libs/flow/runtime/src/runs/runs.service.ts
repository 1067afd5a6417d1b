import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type CompiledFlow, compileFlow, FlowEngine, type NodeRegistry, type RunEvent, type RunResult } from '@flowplane/flow/engine';
import { DomainException } from '@flowplane/platform/http';
import type { FlowVersion, PublishVariant } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { NODE_REGISTRY } from '../nodes/nodes.module';
import { RunRepository, type RunRecord } from './run.repository';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.rejected', 'run.cancelled']);

/** The live side of a run: every event so far, listeners, and a persistence queue that keeps order. */
class RunChannel {
  readonly events: RunEvent[] = [];
  readonly listeners = new Set<(e: RunEvent) => void>();
  private pending: RunEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  ended = false;

  constructor(private readonly persist: (events: RunEvent[]) => Promise<void>) {}

  push(e: RunEvent): void {
    this.events.push(e);
    if (TERMINAL.has(e.type)) this.ended = true;
    for (const l of this.listeners) l(e);
    this.pending.push(e);
    if (this.pending.length === 1) this.flushing = this.flushing.then(() => Promise.resolve()).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length) await this.persist(batch);
  }

  /** Resolves once every event pushed so far is stored. */
  settled(): Promise<void> {
    return this.flushing.then(() => (this.pending.length ? this.flush() : undefined));
  }
}

export interface StartRunInput {
  input?: unknown;
  meta?: Record<string, unknown>;
  versionId?: string;
  variant?: string;
}

/** Starts runs of published (or given) versions, records their events, and streams them (issue 4 item 9). */
@Injectable()
export class RunsService implements OnApplicationShutdown {
  private readonly log = new Logger('Runs');
  private readonly engine: FlowEngine;
  private readonly compiled = new Map<string, CompiledFlow>();
  /** Versions are immutable: once read, a version is served from memory. */
  private readonly versions = new Map<string, FlowVersion>();
  private readonly channels = new Map<string, RunChannel>();

  constructor(
    private readonly flows: FlowsService,
    private readonly repo: RunRepository,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
  ) {
    this.engine = new FlowEngine({ logger: { warn: (m, meta) => this.log.warn({ ...meta }, m) } });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engine.close();
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
    const flow = await this.flows.get(flowId);
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
  async start(flowId: string, req: StartRunInput, startedBy: string): Promise<{ runId: string; versionId: string; done: Promise<RunResult> }> {
    const { version, variant } = await this.pickVersion(flowId, req);
    const flow = this.compile(version);
    const runId = randomUUID();
    const channel = new RunChannel((events) => this.repo.appendEvents(events));
    this.channels.set(runId, channel);
    await this.repo.insert({ runId, flowId, versionId: version.versionId, variant, status: 'running', startedBy, startedAt: new Date(), lastSeq: 0 });
    const handle = this.engine.start(flow, req.input ?? {}, { ...(req.meta ?? {}) }, { runId, onEvent: (e) => channel.push(e) });
    const done = handle.done.then(async (result) => {
      await channel.settled();
      await this.repo.finish(runId, { status: result.status, output: result.output, error: result.error, finishedAt: new Date(result.finishedAt), durationMs: result.durationMs, lastSeq: result.lastSeq });
      // Keep the channel briefly so a client that connects right after the end still streams from memory.
      setTimeout(() => this.channels.delete(runId), 30_000).unref();
      return result;
    });
    return { runId, versionId: version.versionId, done };
  }

  async get(runId: string): Promise<{ run: RunRecord; timeline: RunEvent[] }> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    const live = this.channels.get(runId);
    const timeline = live ? [...live.events] : await this.repo.eventsAfter(runId, 0);
    return { run, timeline };
  }

  /** Cancels a running run; 404 for an unknown run, 409 when it already ended. */
  async cancel(runId: string): Promise<void> {
    const run = await this.repo.get(runId);
    if (!run) throw new DomainException('RUN_NOT_FOUND', 404, `no run ${runId}`);
    if (!this.engine.cancel(runId, 'cancelled through the API')) throw new DomainException('RUN_ENDED', 409, `run ${runId} is not running (status ${run.status})`);
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
    const forward = (e: RunEvent) => {
      if (e.seq <= last) return;
      last = e.seq;
      listener(e);
      if (TERMINAL.has(e.type)) onEnd();
    };
    for (const e of live.events) forward(e);
    if (live.ended) return () => undefined;
    live.listeners.add(forward);
    return () => live.listeners.delete(forward);
  }
}
