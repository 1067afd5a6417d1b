import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { normalizeRoute, type RouteSpec, ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { DomainException } from '@flowplane/platform/http';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { EVENT_SOURCE_REF, eventSourceOf } from '../event-sources/event-sources.service';
import { stableVersionOf } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { TemplateRegistry } from '../templates/template.registry';
import { DeploymentTable } from './deployment-table.service';
import { DeploymentsClient, type FlowDeploymentAnswer } from './deployments.client';

/** Marker of the one-time backfill of deployments for flows published before rule 5 was kept. */
const BACKFILL = 'flow-deployments-backfill';

/** How often flows whose deployment could not be ensured (deployments unreachable) are tried again. */
export const FLOW_DEPLOYMENT_RETRY_MS = 2000;

/**
 * One deployment per published flow (rule 5): after every publish commits, the deployments
 * service is told what the published version asks for (its `meta.route`, its event source), and
 * keeps, creates or replaces the flow's deployment. A publish never fails for it: when the
 * deployments service cannot be reached the flow is tried again every FLOW_DEPLOYMENT_RETRY_MS.
 */
@Injectable()
export class FlowDeployments implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('FlowDeployments');
  private readonly pending = new Set<string>();
  /** Ensures under way after a publish on this replica, by flow. */
  private readonly inflight = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private backfillTimer?: NodeJS.Timeout;
  private readonly migrations: Collection<StoreDocument & { at: Date }>;
  /** The flows each deployment named when the table last changed, to see which ones a change left without. */
  private readonly named = new Map<string, string[]>();

  constructor(
    private readonly flows: FlowsService,
    private readonly templates: TemplateRegistry,
    private readonly client: DeploymentsClient,
    private readonly table: DeploymentTable,
    @Inject(STORE) store: Store,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {
    this.migrations = store.collection('flow_runtime_migrations');
    flows.onPublished((flowId) => this.track(flowId));
    table.onChange((changed) => this.orphans(changed));
  }

  private track(flowId: string): Promise<void> {
    const done = this.afterPublish(flowId).finally(() => {
      if (this.inflight.get(flowId) === done) this.inflight.delete(flowId);
    });
    this.inflight.set(flowId, done);
    return done;
  }

  /**
   * A published flow left without a deployment (its deployment deleted, or removed from the
   * variants of the one that had it) gets its auto-managed one back at once, so a flow is never
   * published and unreachable until someone publishes it again. Every replica hears the change;
   * ensuring is idempotent on the deployments side.
   */
  private async orphans(changed: ReadonlySet<string>): Promise<void> {
    const candidates = new Set<string>();
    for (const id of changed) {
      const now = this.table.get(id)?.variants.map((v) => v.flowId) ?? [];
      for (const flowId of this.named.get(id) ?? []) if (!now.includes(flowId)) candidates.add(flowId);
      if (now.length) this.named.set(id, [...new Set(now)]);
      else this.named.delete(id);
    }
    if (!candidates.size || !this.table.ready) return;
    const stillNamed = new Set(this.table.all().flatMap((d) => d.variants.map((v) => v.flowId)));
    for (const flowId of candidates) {
      if (stillNamed.has(flowId) || this.inflight.has(flowId)) continue;
      const flow = await this.flows.get(flowId).catch(() => undefined);
      if (flow?.published) void this.track(flowId);
    }
  }

  /** Resolves once the deployment of a flow published on this replica has been ensured (or failed to be). */
  settled(flowId: string): Promise<void> {
    return this.inflight.get(flowId) ?? Promise.resolve();
  }

  /**
   * Once per store: flows published before every published flow had a deployment get theirs, as
   * soon as the deployments are read. Later, a published flow a deployment change leaves without
   * one gets it back at once (see `orphans`).
   */
  onApplicationBootstrap(): void {
    // Start-up seeding: the service is not ready before published flows have their deployments.
    const seeded = this.readiness?.beginSeeding('flow deployments');
    this.backfillTimer = setInterval(() => {
      if (!this.table.ready) return;
      clearInterval(this.backfillTimer);
      this.backfillTimer = undefined;
      void this.backfill()
        .catch((e: Error) => this.log.error(`deployments of published flows not backfilled: ${e.message}`))
        .finally(() => seeded?.());
    }, 250);
    this.backfillTimer.unref();
  }

  private async backfill(): Promise<void> {
    if (await this.migrations.findOne({ _id: BACKFILL })) return;
    const named = new Set(this.table.all().flatMap((d) => d.variants.map((v) => v.flowId)));
    for (const flow of await this.flows.list()) if (flow.published && !named.has(flow.id)) await this.afterPublish(flow.id);
    await this.migrations.replaceOne({ _id: BACKFILL }, { at: new Date() }, { upsert: true });
  }

  beforeApplicationShutdown(): void {
    if (this.backfillTimer) clearInterval(this.backfillTimer);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /**
   * Ensures the deployment of a published flow; refusals keep their status and body (409 keeps
   * the spec fields), an unreachable deployments service is a 503.
   */
  async ensure(flowId: string, options: { activation?: boolean } = {}): Promise<FlowDeploymentAnswer | undefined> {
    const flow = await this.flows.get(flowId);
    if (!flow.published) return undefined;
    const version = await this.flows.getVersion(flowId, stableVersionOf(flow.published));
    const source = eventSourceOf(version);
    const filter = version.document.nodes.find((n) => n.action_ref === EVENT_SOURCE_REF)?.config?.eventFilter;
    const template = flow.templateId ? this.templates.get(flow.templateId) : undefined;
    const answer = await this.call(() =>
      this.client.ensureForFlow(flowId, {
        name: flow.name,
        route: routeOf(version.document.meta?.route),
        event: source ? { name: source.topic, ...(typeof filter === 'string' && filter.trim() ? { filter } : {}) } : undefined,
        templateId: flow.templateId,
        source: template?.source,
        ...(options.activation ? { activation: true } : {}),
      }),
    );
    const d = answer.deployment;
    if (d) {
      // Bind it here at once: the flow is consumed or routed through it, never on its own meanwhile.
      this.table.put({ id: d.id, name: d.name, kind: d.kind, disabled: d.disabled, labels: d.labels, stickyBy: d.stickyBy, variants: d.variants, route: d.route, auth: d.auth, revision: d.revision });
    }
    if (answer.reason) this.log.log(`flow ${flowId}: deployment ${answer.deployment?.id ?? '(none)'} (${answer.deployment?.kind ?? 'none'}): ${answer.reason}`);
    return answer;
  }

  private async afterPublish(flowId: string): Promise<void> {
    try {
      await this.ensure(flowId);
      this.pending.delete(flowId);
    } catch (e) {
      if (e instanceof DomainException && e.status === 503) {
        this.pending.add(flowId);
        this.timer ??= setInterval(() => void this.retry(), FLOW_DEPLOYMENT_RETRY_MS);
        this.timer.unref();
        this.log.warn(`flow ${flowId} is published but its deployment is not ensured yet (${e.message}); retrying`);
      } else {
        this.log.error(`flow ${flowId} is published but its deployment was refused: ${(e as Error).message}`);
      }
    }
  }

  private async retry(): Promise<void> {
    for (const flowId of [...this.pending]) {
      try {
        await this.ensure(flowId);
        this.pending.delete(flowId);
      } catch (e) {
        if (!(e instanceof DomainException && e.status === 503)) this.pending.delete(flowId);
      }
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Deployments errors as this service's: a refusal keeps its status, code and spec fields; unreachable is 503. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ServiceUnavailableError) throw new DomainException('DEPLOYMENTS_UNAVAILABLE', 503, 'the deployments service is unavailable; try again');
      if (e instanceof ServiceCallError && e.status !== undefined && e.status < 500) {
        const body = (e.body ?? {}) as Record<string, unknown>;
        const { statusCode: _s, error: _e, message, requestId: _r, ...rest } = body;
        void _s;
        void _e;
        void _r;
        throw new DomainException(typeof body.code === 'string' ? body.code : 'DEPLOYMENT_REFUSED', e.status, typeof message === 'string' ? message : e.message, rest);
      }
      if (e instanceof ServiceCallError) throw new DomainException('DEPLOYMENTS_UNAVAILABLE', 503, 'the deployments service failed; try again');
      throw e;
    }
  }
}

/** A version's `meta.route` when it names a method and a path. */
function routeOf(route: unknown): RouteSpec | undefined {
  const r = route as { method?: unknown; path?: unknown } | undefined;
  return r && typeof r.method === 'string' && typeof r.path === 'string' ? normalizeRoute({ method: r.method, path: r.path }) : undefined;
}
