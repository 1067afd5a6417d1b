import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { stableVariantOf, stickyValueOf, VariantSelector } from '@flowplane/contracts';
import { compileEventFilter } from '@flowplane/flow/conditions';
import type { CompiledCondition } from '@flowplane/flow/conditions';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { KeyedSerial, SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { type EventSourceState, eventSourceOf, EventSourcesService } from '../event-sources/event-sources.service';
import { FlowsService } from '../flows/flows.service';
import { RunsService } from '../runs/runs.service';
import type { BoundDeployment } from './deployments.client';
import { DeploymentTable } from './deployment-table.service';
import { FlowDeployments } from './flow-deployments.service';
import { stableVersionOf } from '../flows/flow.entities';

type BindingState = EventSourceState & { deploymentId: string; filtered: number; running?: number; runningSince?: string };

interface Binding {
  deployment: BoundDeployment;
  state: BindingState;
  filter?: CompiledCondition;
  selector: VariantSelector<BoundDeployment['variants'][number]>;
  sub?: Subscription;
  /** What the subscription was made for; a change re-binds. */
  signature: string;
  /** Start times of the runs this binding waits for (its events are committed when they end). */
  running: Set<{ since: number }>;
}

/**
 * Subscriber deployments (issue 6 item 9): each enabled one consumes its channel (`x-event`, else
 * the stable flow's event-source `eventName`) with one group id (`deployment-<id>`, or the flow's
 * `groupID` when the deployment has exactly one variant), skips events its `x-event-filter` (the
 * condition language over `payload.<path>`) rejects, picks one variant per event (weighted, sticky
 * by `stickyBy` on the event payload) and runs it at least once: the offset is committed after the
 * run, a failed run is retried by the bus and finally parked on `<topic>.dlq`. Disabled or deleted,
 * or its stable flow unpublished: unsubscribed. Event-source flows are consumed only through a
 * subscriber deployment (publishing gives each one).
 */
@Injectable()
export class SubscriberBindings implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('SubscriberBindings');
  private readonly bindings = new Map<string, Binding>();
  /** Binds of one deployment run one after another. */
  private readonly binds = new KeyedSerial();
  private closed = false;
  /** Partitions of one binding run at once (FLOW_EVENT_CONCURRENCY). */
  private readonly concurrency: number;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly table: DeploymentTable,
    private readonly flows: FlowsService,
    private readonly runs: RunsService,
    private readonly sources: EventSourcesService,
    private readonly flowDeployments: FlowDeployments,
  ) {
    this.concurrency = Number(config.FLOW_EVENT_CONCURRENCY ?? 4);
    table.onChange((ids) => this.reconcile(ids));
    sources.attach({
      states: async (flowId) => this.statesOf(flowId),
      published: async (flowId) => {
        // A publish on this replica ensures the flow's deployment first: wait for it and its binding,
        // so the flow is never consumed on its own in between.
        await this.flowDeployments.settled(flowId);
        await this.table.settled();
        await this.reconcile(new Set(this.table.subscribersOf(flowId).map((d) => d.id)));
      },
    });
  }

  onApplicationBootstrap(): void {
    this.closed = false;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    // A subscription still being made would outlive the stop below: let it finish first.
    await this.binds.idle();
    await Promise.all([...this.bindings.values()].map((b) => b.sub?.stop().catch(() => undefined)));
    this.bindings.clear();
  }

  private async statesOf(flowId: string): Promise<BindingState[]> {
    const mine = [...this.bindings.values()].filter((b) => b.deployment.variants.some((v) => v.flowId === flowId));
    if (!mine.length) return [];
    const stats = await this.bus.stats().catch(() => undefined);
    return mine.map((b) => {
      // A Set keeps insertion order: its first entry is the oldest run still going.
      const oldest = b.running.values().next().value;
      return {
        ...b.state,
        lag: stats?.consumers.find((c) => c.groupId === b.state.groupId && c.topic === b.state.topic)?.lag,
        rebalances: b.sub?.rebalances,
        running: b.running.size,
        ...(oldest ? { runningSince: new Date(oldest.since).toISOString() } : {}),
      };
    });
  }

  /** Re-binds the changed deployments, then lets event sources drop or take back the flows involved. */
  private async reconcile(ids: ReadonlySet<string>): Promise<void> {
    if (this.closed) return;
    const flows = new Set<string>();
    for (const id of ids) {
      for (const v of this.bindings.get(id)?.deployment.variants ?? []) flows.add(v.flowId);
      for (const v of this.table.get(id)?.variants ?? []) flows.add(v.flowId);
      await this.bind(id);
    }
    for (const flowId of flows) await this.sources.sync(flowId);
  }

  /**
   * Binds one deployment after any bind of it still in progress. Two at once (a table change and a
   * publish on this replica) would each see no subscription yet; the second would replace the
   * first's binding while its consumer was still joining, and that consumer, no longer tracked,
   * would consume on (a disable or delete could not stop it) as an extra member of the group.
   */
  private bind(id: string): Promise<void> {
    return this.binds.run(id, () => this.bindNow(id));
  }

  private async bindNow(id: string): Promise<void> {
    if (this.closed) return;
    const d = this.table.get(id);
    const current = this.bindings.get(id);
    const wanted = d && d.kind === 'subscriber' && !d.disabled && d.variants.some((v) => v.weight > 0) ? await this.target(d) : undefined;
    const signature = wanted ? JSON.stringify([wanted, d!.labels['x-event-filter'] ?? '', d!.variants, d!.stickyBy]) : '';
    if (current && current.signature === signature && current.state.state === 'active') {
      current.deployment = d!;
      return;
    }
    if (current) {
      await current.sub?.stop().catch(() => undefined);
      current.state.state = 'stopped';
      this.bindings.delete(id);
      this.log.log(`deployment ${id} unsubscribed from ${current.state.topic}`);
    }
    if (!d || !wanted) return;
    const state: BindingState = { deploymentId: id, flowId: d.variants[0].flowId, versionId: wanted.versionId ?? '', topic: wanted.topic, groupId: wanted.groupId, state: 'subscribing', processed: 0, failedRuns: 0, filtered: 0 };
    const filterSource = d.labels['x-event-filter'];
    const filter = filterSource ? compileEventFilter(filterSource) : undefined;
    if (filter?.parseError) {
      state.state = 'failed';
      state.lastError = `x-event-filter does not parse: ${filter.parseError}`;
      this.bindings.set(id, { deployment: d, state, signature, selector: new VariantSelector(d.variants), running: new Set() });
      return;
    }
    const binding: Binding = { deployment: d, state, filter, selector: new VariantSelector(d.variants), signature, running: new Set() };
    this.bindings.set(id, binding);
    try {
      binding.sub = await this.bus.subscribe([wanted.topic], { groupId: wanted.groupId, fromBeginning: false, concurrency: this.concurrency }, async (event) => {
        state.lastEventAt = new Date().toISOString();
        if (binding.filter && !binding.filter.evaluate({ port: '', output: event.data, input: event.data }).value) {
          state.filtered++;
          return;
        }
        const dep = binding.deployment;
        const variant = binding.selector.select(stickyValueOf(isRecord(event.data) ? event.data : undefined, dep.stickyBy));
        if (!variant) return;
        const meta = { event: { id: event.id, type: event.type, source: event.source, subject: event.subject }, deploymentId: dep.id, variant: variant.label };
        const run = { since: Date.now() };
        binding.running.add(run);
        let result;
        try {
          const started = await this.runs.start(variant.flowId, { input: event.data, meta, versionId: variant.versionId, deploymentVariant: variant.label }, `event:${event.type}`);
          result = await started.done;
        } finally {
          binding.running.delete(run);
        }
        if (result.status === 'failed') {
          state.failedRuns++;
          state.lastError = result.error?.message ?? 'run failed';
          throw new Error(`run ${result.runId} of ${variant.flowId} (deployment ${dep.id}) failed: ${state.lastError}`);
        }
        state.processed++;
      });
      state.state = 'active';
      this.log.log(`deployment ${id} subscribed to ${wanted.topic} as ${wanted.groupId}`);
    } catch (e) {
      state.state = 'failed';
      state.lastError = (e as Error).message;
    }
  }

  /** Topic and group of a subscriber deployment; undefined when no topic can be found. */
  private async target(d: BoundDeployment): Promise<{ topic: string; groupId: string; versionId?: string } | undefined> {
    const stable = stableVariantOf(d.variants)!;
    let source: { topic: string; groupId: string } | undefined;
    let versionId: string | undefined;
    try {
      const flow = await this.flows.get(stable.flowId);
      versionId = stable.versionId ?? (flow.published ? stableVersionOf(flow.published) : undefined);
      // Off the air (unpublished, not pinned): nothing to run, so nothing is consumed (rule 14).
      if (!versionId) return undefined;
      source = eventSourceOf(await this.flows.getVersion(stable.flowId, versionId));
    } catch {
      // The stable flow cannot be read here (not in this replica's store yet, or the store failed):
      // bind on a later sync rather than under a stand-in group that would consume the topic twice.
      return undefined;
    }
    const topic = d.labels['x-event'] || source?.topic;
    if (!topic) {
      this.log.warn(`subscriber deployment ${d.id} has no x-event label and its stable flow no event source: not bound`);
      return undefined;
    }
    const groupId = d.variants.length === 1 && source ? source.groupId : `deployment-${d.id}`;
    return { topic, groupId, versionId };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
