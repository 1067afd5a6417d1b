import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { hostname } from 'node:os';
import { type FlowsPublishedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { type FlowVersion, stableVersionOf } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { RunsService } from '../runs/runs.service';

/** The node that makes a flow an event-source flow. */
export const EVENT_SOURCE_REF = 'svc/event-source';

/** The live state of one flow's topic subscription, as GET /flows/{id}/subscriptions shows it. */
export interface EventSourceState {
  flowId: string;
  versionId: string;
  topic: string;
  groupId: string;
  state: 'subscribing' | 'active' | 'stopped' | 'failed';
  processed: number;
  failedRuns: number;
  lastError?: string;
  lastEventAt?: string;
  lag?: number;
  /** Times this replica's consumer re-joined its group (Kafka); each may redeliver uncommitted events. */
  rebalances?: number;
}

/**
 * Subscriber deployments consume event-source flows (rule 5: every published flow has one
 * deployment): once the bindings module attaches this, a flow is consumed through its deployment
 * only, and a flow whose deployment was deleted or disabled consumes nothing.
 */
export interface ManagedBindings {
  /** The deployment bindings of a flow, for GET /flows/{id}/subscriptions. */
  states(flowId: string): Promise<Array<EventSourceState & { deploymentId: string }>>;
  /** The flow's publish pointer moved: re-binds the deployments running it (an unpublished flow consumes nothing). */
  published(flowId: string): Promise<void>;
}

interface Active {
  state: EventSourceState;
  sub?: Subscription;
}

/** The event-source settings of a version's start node, if it has one. */
export function eventSourceOf(version: FlowVersion): { topic: string; groupId: string } | undefined {
  const node = version.document.nodes.find((n) => n.kind === 'start' && n.action_ref === EVENT_SOURCE_REF);
  const cfg = (node?.config ?? {}) as { eventName?: unknown; groupID?: unknown };
  if (!node || typeof cfg.eventName !== 'string' || !cfg.eventName) return undefined;
  const groupId = typeof cfg.groupID === 'string' && cfg.groupID ? cfg.groupID : `flow-${version.flowId}`;
  return { topic: cfg.eventName, groupId };
}

/**
 * Binds published event-source flows to their topic (issue 4 item 10): publishing subscribes at once,
 * a new publish re-binds, no restart needed. Each event runs the flow; the offset is committed only
 * after the run completes, a failed run is retried with backoff by the bus and finally parked on
 * `<topic>.dlq` with the error. Every replica learns of publishes through `flows.published`.
 */
@Injectable()
export class EventSourcesService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('EventSources');
  private readonly active = new Map<string, Active>();
  private publishes?: Subscription;
  private syncing = Promise.resolve();
  private managed?: ManagedBindings;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly flows: FlowsService,
    private readonly runs: RunsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Fan-out: every replica hears every publish (its own group), then binds or re-binds.
    this.publishes = await this.bus.subscribe([Topics.FlowsPublished], { groupId: `flow-runtime-sources-${hostname()}-${process.pid}`, fromBeginning: false }, async (event) => {
      const flowId = (event.data as FlowsPublishedPayload).flowId;
      this.flows.forget(flowId);
      await this.managed?.published(flowId);
      await this.sync(flowId);
    });
    for (const flow of await this.flows.list()) if (flow.published) await this.sync(flow.id);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.publishes?.stop();
    await Promise.all([...this.active.values()].map((a) => a.sub?.stop()));
    this.active.clear();
  }

  /** Hands flows consumed by subscriber deployments over to those bindings. */
  attach(managed: ManagedBindings): void {
    this.managed = managed;
  }

  /** Subscriptions of a flow with their consumer lag: its own, and those of deployments running it. */
  async states(flowId: string): Promise<Array<EventSourceState & { deploymentId?: string }>> {
    await this.flows.get(flowId);
    const out: Array<EventSourceState & { deploymentId?: string }> = [];
    const a = this.active.get(flowId);
    if (a) {
      const stats = await this.bus.stats().catch(() => undefined);
      const lag = stats?.consumers.find((c) => c.groupId === a.state.groupId && c.topic === a.state.topic)?.lag;
      out.push({ ...a.state, lag, rebalances: a.sub?.rebalances });
    }
    if (this.managed) out.push(...(await this.managed.states(flowId)));
    return out;
  }

  /** Brings a flow's binding in line with its publish pointer. Serialised: publishes apply in order. */
  sync(flowId: string): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow(flowId)).catch((e: Error) => this.log.error(`sync of ${flowId} failed: ${e.message}`));
    return this.syncing;
  }

  private async syncNow(flowId: string): Promise<void> {
    const flow = await this.flows.get(flowId).catch(() => undefined);
    const current = this.active.get(flowId);
    let wanted: { version: FlowVersion; topic: string; groupId: string } | undefined;
    // Without the bindings module (a bare runtime), a published flow binds its own event source.
    if (flow?.published && !this.managed) {
      const target = flow.published;
      const versionId = stableVersionOf(target);
      const version = await this.flows.getVersion(flowId, versionId);
      const source = eventSourceOf(version);
      if (source) wanted = { version, ...source };
    }
    const same = current && wanted && current.state.versionId === wanted.version.versionId && current.state.topic === wanted.topic && current.state.groupId === wanted.groupId && current.state.state === 'active';
    if (same) return;
    if (current) {
      await current.sub?.stop();
      current.state.state = 'stopped';
      this.active.delete(flowId);
    }
    if (!wanted) return;
    const state: EventSourceState = { flowId, versionId: wanted.version.versionId, topic: wanted.topic, groupId: wanted.groupId, state: 'subscribing', processed: 0, failedRuns: 0 };
    const entry: Active = { state };
    this.active.set(flowId, entry);
    try {
      entry.sub = await this.bus.subscribe([wanted.topic], { groupId: wanted.groupId, fromBeginning: false }, async (event) => {
        state.lastEventAt = new Date().toISOString();
        const started = await this.runs.start(flowId, { input: event.data, meta: { event: { id: event.id, type: event.type, source: event.source, subject: event.subject } }, versionId: state.versionId }, `event:${event.type}`);
        const result = await started.done;
        if (result.status === 'failed') {
          state.failedRuns++;
          state.lastError = result.error?.message ?? 'run failed';
          // Throwing leaves the offset uncommitted: the bus retries with backoff, then parks it on the DLQ.
          throw new Error(`run ${result.runId} of ${flowId} failed: ${state.lastError}`);
        }
        state.processed++;
      });
      state.state = 'active';
      this.log.log(`${flowId} subscribed to ${wanted.topic} as ${wanted.groupId}`);
    } catch (e) {
      state.state = 'failed';
      state.lastError = (e as Error).message;
    }
  }
}
