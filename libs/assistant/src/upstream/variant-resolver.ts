import { hostname } from 'node:os';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type DeploymentsChangedPayload, stickyValueOf, Topics, VariantSelector } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../assistant.env';
import { type DeploymentRef, UpstreamClients, type VariantRef } from './upstream.clients';

interface Cached {
  stickyBy?: string;
  selector: VariantSelector<VariantRef & { weight: number }>;
  expiresAt: number;
}

/**
 * The chat path's variant selection (rules 7 and 13) without a call per message: the assistant's
 * deployment record is cached and the sticky selection computed here with the contract's
 * `VariantSelector`, the very function the deployments service's select route runs, so a session
 * lands in the same bucket either way. Every `deployments.changed` of the deployment drops the
 * record at once (a consumer group per process, so every replica hears it), and a short TTL
 * (ASSISTANT_DEPLOYMENT_CACHE_MS) bounds staleness should an event be lost. While the cache is
 * cold, or the record has no eligible variant, the remote select answers (and its errors stay
 * the route's errors).
 */
@Injectable()
export class VariantResolver implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('AssistantVariants');
  private cached?: Cached;
  /** Bumped by every invalidation: a read that started before it must not fill the cache. */
  private generation = 0;
  private refreshing?: Promise<void>;
  private sub?: Subscription;

  constructor(
    private readonly upstream: UpstreamClients,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  private get env(): ServiceConfig & AssistantEnv {
    return this.config as ServiceConfig & AssistantEnv;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.env.ASSISTANT_DEPLOYMENT_CACHE_MS <= 0) return;
    this.sub = await this.bus.subscribe<DeploymentsChangedPayload>(
      [Topics.DeploymentsChanged],
      { groupId: `assistant-deployments-${hostname()}-${process.pid}`, fromBeginning: false },
      async (event) => {
        if (event.data?.deploymentId === this.env.ASSISTANT_DEPLOYMENT_ID) this.invalidate();
      },
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sub?.stop();
  }

  /** Forgets the record; the next selection asks the deployments service and reads it again. */
  invalidate(): void {
    this.generation++;
    this.cached = undefined;
  }

  /** The variant for this selection meta: local when the record is cached, else the remote select. */
  async select(meta: Record<string, unknown>): Promise<VariantRef> {
    const c = this.cached;
    if (c && c.expiresAt > Date.now()) {
      const local = c.selector.select(stickyValueOf(meta, c.stickyBy));
      if (local) return local;
    } else if (this.env.ASSISTANT_DEPLOYMENT_CACHE_MS > 0) {
      this.refresh();
    }
    return this.upstream.select(this.env.ASSISTANT_DEPLOYMENT_ID, meta);
  }

  /** Reads the record in the background (one read at a time); a failure leaves the cache cold. */
  private refresh(): void {
    if (this.refreshing) return;
    const gen = this.generation;
    this.refreshing = this.upstream
      .deployment(this.env.ASSISTANT_DEPLOYMENT_ID)
      .then((d) => {
        if (gen === this.generation) this.cached = usable(d, Date.now() + this.env.ASSISTANT_DEPLOYMENT_CACHE_MS);
      })
      .catch((e: unknown) => this.log.debug(`deployment read failed, selecting remotely: ${(e as Error).message}`))
      .finally(() => (this.refreshing = undefined));
  }
}

/** A record the local selection can serve, or undefined (absent, no variants, none eligible). */
function usable(d: DeploymentRef | undefined, expiresAt: number): Cached | undefined {
  if (!d || !Array.isArray(d.variants)) return undefined;
  const variants = d.variants.map((v) => ({ label: v.label, flowId: v.flowId, weight: v.weight ?? 0, ...(v.versionId ? { versionId: v.versionId } : {}) }));
  const selector = new VariantSelector<VariantRef & { weight: number }>(variants);
  return selector.hasEligible ? { stickyBy: d.stickyBy, selector, expiresAt } : undefined;
}
