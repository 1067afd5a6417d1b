import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { normalizeRoute, type RouteSpec, ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';
import { EVENT_SOURCE_REF, eventSourceOf } from '../event-sources/event-sources.service';
import { stableVersionOf } from '../flows/flow.entities';
import { FlowsService } from '../flows/flows.service';
import { TemplateRegistry } from '../templates/template.registry';
import { DeploymentsClient, type FlowDeploymentAnswer } from './deployments.client';

/** How often flows whose deployment could not be ensured (deployments unreachable) are tried again. */
export const FLOW_DEPLOYMENT_RETRY_MS = 2000;

/**
 * One deployment per published flow (rule 5): after every publish commits, the deployments
 * service is told what the published version asks for (its `meta.route`, its event source), and
 * keeps, creates or replaces the flow's deployment. A publish never fails for it: when the
 * deployments service cannot be reached the flow is tried again every FLOW_DEPLOYMENT_RETRY_MS.
 */
@Injectable()
export class FlowDeployments implements BeforeApplicationShutdown {
  private readonly log = new Logger('FlowDeployments');
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly flows: FlowsService,
    private readonly templates: TemplateRegistry,
    private readonly client: DeploymentsClient,
  ) {
    flows.onPublished((flowId) => this.afterPublish(flowId));
  }

  beforeApplicationShutdown(): void {
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
