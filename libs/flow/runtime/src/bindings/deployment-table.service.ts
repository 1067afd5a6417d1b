import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { hostname } from 'node:os';
import { type DeploymentsChangedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { ReadinessRegistry, type SeedingDone } from '@flowplane/platform/health';
import { type BoundDeployment, DeploymentsClient } from './deployments.client';

/** How often the whole table is read again: a safety net, `deployments.changed` applies every change at once. */
export const DEPLOYMENT_RESYNC_MS = 30_000;

type Listener = (changed: ReadonlySet<string>) => void | Promise<void>;

/**
 * flow-runtime's copy of the deployments (issue 6 items 8-9): read in full at start (retried until
 * the deployments service answers) and every DEPLOYMENT_RESYNC_MS, and updated at once from each
 * `deployments.changed` (which carries the routing state; `revision` drops late arrivals). Every
 * replica hears every change (fan-out group per process). Listeners (the route dispatcher, the
 * subscriber bindings) re-bind what changed.
 */
@Injectable()
export class DeploymentTable implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('DeploymentTable');
  private readonly byId = new Map<string, BoundDeployment>();
  /** Revisions of deleted deployments, so a late `updated` cannot resurrect them (a `created` starts a new life). */
  private readonly tombstones = new Map<string, number>();
  /** Count of events applied, and when each id last changed by one: a full read never overrides a newer event. */
  private applied = 0;
  private readonly touched = new Map<string, number>();
  private readonly listeners: Listener[] = [];
  private changes?: Subscription;
  private timer?: NodeJS.Timeout;
  private synced = false;
  private notifying: Promise<void> = Promise.resolve();
  /** Ends the start-up seeding readiness waits for: the first full read, bound. */
  private seeded?: SeedingDone;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly client: DeploymentsClient,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.changes = await this.bus.subscribe([Topics.DeploymentsChanged], { groupId: `flow-runtime-deployments-${hostname()}-${process.pid}`, fromBeginning: false }, async (event) => {
      this.apply(event.data as DeploymentsChangedPayload);
    });
    // The deployments service may start after us: the first sync retries on the short timer, and
    // until it succeeds the service is not ready (its routes and subscriptions are not bound yet).
    this.seeded = this.readiness?.beginSeeding('deployments');
    void this.sync();
    this.timer = setInterval(() => void this.sync(), this.synced ? DEPLOYMENT_RESYNC_MS : 1000);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.changes?.stop();
    await this.notifying;
  }

  /** Registers a listener; it gets the ids that changed (all ids after a full sync). */
  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  get(id: string): BoundDeployment | undefined {
    return this.byId.get(id);
  }

  all(): BoundDeployment[] {
    return [...this.byId.values()];
  }

  /** Whether the table has been read at least once. */
  get ready(): boolean {
    return this.synced;
  }

  /** Subscriber deployments naming a flow in any variant. */
  subscribersOf(flowId: string): BoundDeployment[] {
    return this.all().filter((d) => d.kind === 'subscriber' && d.variants.some((v) => v.flowId === flowId));
  }

  /** Reads every deployment again; resolves false when the deployments service did not answer. */
  async sync(): Promise<boolean> {
    const startedAt = this.applied;
    let list: BoundDeployment[];
    try {
      list = await this.client.all();
    } catch (e) {
      if (!this.synced) this.log.debug?.(`deployments not reachable yet: ${(e as Error).message}`);
      else this.log.warn(`deployment resync failed: ${(e as Error).message}`);
      return false;
    }
    const changed = new Set<string>();
    const seen = new Set<string>();
    // The answer may predate events applied while it was read: those ids keep what the events said.
    const newer = (id: string) => (this.touched.get(id) ?? -1) >= startedAt;
    for (const d of list) {
      seen.add(d.id);
      if (newer(d.id)) continue;
      const had = this.byId.get(d.id);
      if (had && had.revision > d.revision) continue; // an event already brought a newer state
      if (!had || JSON.stringify(had) !== JSON.stringify(d)) changed.add(d.id);
      this.byId.set(d.id, d);
    }
    for (const id of [...this.byId.keys()]) {
      if (!seen.has(id) && !newer(id)) {
        this.byId.delete(id);
        changed.add(id);
      }
    }
    if (!this.synced) {
      this.synced = true;
      if (this.timer) clearInterval(this.timer);
      this.timer = setInterval(() => void this.sync(), DEPLOYMENT_RESYNC_MS);
      this.timer.unref();
    }
    if (changed.size) this.notify(changed);
    const seeded = this.seeded;
    this.seeded = undefined;
    if (seeded) void this.notifying.then(seeded);
    return true;
  }

  /**
   * A deployment as the deployments service just answered it (after ensuring a published flow's
   * deployment): bound at once on this replica, before its `deployments.changed` arrives.
   */
  put(d: BoundDeployment): void {
    const had = this.byId.get(d.id);
    if (had && had.revision >= d.revision) return;
    this.tombstones.delete(d.id);
    this.touched.set(d.id, this.applied++);
    this.byId.set(d.id, d);
    this.notify(new Set([d.id]));
  }

  /** Applies one `deployments.changed`. */
  apply(p: DeploymentsChangedPayload): void {
    const had = this.byId.get(p.deploymentId);
    const dead = this.tombstones.get(p.deploymentId);
    // Changes of one deployment arrive in order (keyed by its id): a `created` after a delete is a
    // deployment made again under the same id, whose revisions start over.
    if (had && had.revision >= p.revision) return;
    if (p.action === 'created') this.tombstones.delete(p.deploymentId);
    else if (dead !== undefined && dead >= p.revision) return;
    this.touched.set(p.deploymentId, this.applied++);
    if (p.action === 'deleted') {
      this.byId.delete(p.deploymentId);
      this.tombstones.set(p.deploymentId, p.revision);
    } else {
      this.byId.set(p.deploymentId, {
        id: p.deploymentId,
        name: had?.name ?? p.deploymentId,
        kind: p.kind,
        disabled: p.disabled,
        labels: p.labels ?? {},
        stickyBy: p.stickyBy,
        variants: p.variants ?? [],
        route: p.route,
        auth: p.auth,
        revision: p.revision,
      });
    }
    this.notify(new Set([p.deploymentId]));
  }

  private notify(changed: ReadonlySet<string>): void {
    this.notifying = this.notifying.then(async () => {
      for (const l of this.listeners) {
        try {
          await l(changed);
        } catch (e) {
          this.log.error(`deployment listener failed: ${(e as Error).message}`);
        }
      }
    });
  }

  /** Resolves once listeners handled every change so far (tests, shutdown). */
  settled(): Promise<void> {
    return this.notifying;
  }
}
