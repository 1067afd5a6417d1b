import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { hostname } from 'node:os';
import { type DeploymentsChangedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { type BoundDeployment, DeploymentsClient } from './deployments.client';

/** How often the whole table is read again (besides `deployments.changed`). */
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
  /** Revisions of deleted deployments, so a late `updated` cannot resurrect them. */
  private readonly tombstones = new Map<string, number>();
  private readonly listeners: Listener[] = [];
  private changes?: Subscription;
  private timer?: NodeJS.Timeout;
  private synced = false;
  private notifying: Promise<void> = Promise.resolve();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly client: DeploymentsClient,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.changes = await this.bus.subscribe([Topics.DeploymentsChanged], { groupId: `flow-runtime-deployments-${hostname()}-${process.pid}`, fromBeginning: false }, async (event) => {
      this.apply(event.data as DeploymentsChangedPayload);
    });
    // The deployments service may start after us: the first sync retries on the short timer.
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
    for (const d of list) {
      seen.add(d.id);
      const had = this.byId.get(d.id);
      if (had && had.revision > d.revision) continue; // an event already brought a newer state
      if (!had || JSON.stringify(had) !== JSON.stringify(d)) changed.add(d.id);
      this.byId.set(d.id, d);
    }
    for (const id of [...this.byId.keys()]) {
      if (!seen.has(id)) {
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
    return true;
  }

  /** Applies one `deployments.changed`. */
  apply(p: DeploymentsChangedPayload): void {
    const had = this.byId.get(p.deploymentId);
    const dead = this.tombstones.get(p.deploymentId);
    if ((had && had.revision >= p.revision) || (dead !== undefined && dead >= p.revision)) return;
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
