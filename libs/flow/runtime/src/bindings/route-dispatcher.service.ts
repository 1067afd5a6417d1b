import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import createRouter from 'find-my-way';
import { type RouteSpec, stableVariantOf, stickyValueOf, VariantSelector } from '@flowplane/contracts';
import type { Principal } from '@flowplane/platform/auth';
import { DomainException, errorBody } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { FlowsService } from '../flows/flows.service';
import { RunsService } from '../runs/runs.service';
import type { BoundDeployment } from './deployments.client';
import { DeploymentTable } from './deployment-table.service';
import { stableVersionOf } from '../flows/flow.entities';

/** A route deployment ready to dispatch. */
interface BoundRoute {
  deployment: BoundDeployment;
  selector: VariantSelector<BoundDeployment['variants'][number]>;
}

type Router = ReturnType<typeof createRouter>;
type RouterMethod = Parameters<Router['find']>[0];

/** Longest path parameter the dispatcher matches (find-my-way's default of 100 is short for ids that carry a slash). */
const MAX_PARAM_LENGTH = 2000;

/**
 * Route deployments in find-my-way's radix tree, so a request goes to the most specific route
 * whatever the order they were created in: a static segment beats a parameter (`/orders/special`
 * before `/orders/{id}`), as in every HTTP router. Trailing and repeated slashes are ignored, like
 * the route keys that make routes unique.
 */
export function buildRouter(routes: Array<{ route: RouteSpec; store: BoundRoute }>): Router {
  const router = createRouter({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH });
  for (const { route, store } of routes) {
    // `{name}` parameters become `:name`; a `:` inside a literal segment is escaped as `::`.
    const path = route.path
      .split('/')
      .map((s) => (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(s) ? `:${s.slice(1, -1)}` : s.replace(/:/g, '::')))
      .join('/');
    try {
      router.on(route.method.toUpperCase() as RouterMethod, path || '/', () => undefined, store);
    } catch {
      // Same route under another parameter name: unique route claims prevent it; keep the first.
    }
  }
  return router;
}

/** What the dispatcher answers. */
export interface DispatchResult {
  status: number;
  body: unknown;
  runId?: string;
  deploymentId?: string;
  variant?: string;
}

/** The request as a dispatched flow receives it. */
export interface DispatchRequest {
  method: string;
  /** Path relative to /api/v1, without the query. */
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  principal?: Principal;
  /** Whether a bearer token was sent (to tell "missing" from "invalid"). */
  tokenSent: boolean;
}

/** Headers a flow may see; credentials and hop-by-hop headers never reach it. */
const SAFE_HEADERS = ['accept', 'accept-language', 'content-type', 'user-agent', 'x-request-id', 'x-session-id', 'x-forwarded-for'];

/**
 * The route dispatcher (issue 6 item 8): the gateway sends every /api/v1 path no service owns to
 * flow-runtime, where enabled route deployments are matched by (method, path). The caller is
 * authorised per the deployment's `auth`, a variant is chosen (sticky by `stickyBy` over the
 * request meta: `X-Session-Id` as `session_id`, plus the body's `meta` object), and the variant's
 * flow runs with `{method, path, params, query, headers, body, meta}`. Completed: the output with
 * the route's `success_status`; rejected: 422 with the run's message; failed: 500 with an errorId;
 * over ROUTE_TIMEOUT_MS: 504 (the run is cancelled). No match: 404.
 */
@Injectable()
export class RouteDispatcher {
  private readonly log = new Logger('RouteDispatcher');
  private routes: BoundRoute[] = [];
  private router: Router = buildRouter([]);
  private readonly successStatus = new Map<string, number>();
  private readonly timeoutMs: number;

  constructor(
    private readonly table: DeploymentTable,
    private readonly runs: RunsService,
    private readonly flows: FlowsService,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.timeoutMs = (config as ServiceConfig & FlowRuntimeEnv).ROUTE_TIMEOUT_MS ?? 30_000;
    table.onChange(() => this.rebuild());
  }

  /** Enabled route deployments currently bound. */
  bound(): Array<{ id: string; method: string; path: string }> {
    return this.routes.map((r) => ({ id: r.deployment.id, method: r.deployment.route!.method.toUpperCase(), path: r.deployment.route!.path }));
  }

  private rebuild(): void {
    // Ordered by id so that a clash (which route claims prevent) resolves the same on every replica.
    this.routes = this.table
      .all()
      .filter((d) => d.kind === 'route' && !d.disabled && d.route)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((d) => ({ deployment: d, selector: new VariantSelector(d.variants) }));
    this.router = buildRouter(this.routes.map((r) => ({ route: r.deployment.route!, store: r })));
  }

  async dispatch(req: DispatchRequest): Promise<DispatchResult> {
    const method = req.method.toUpperCase();
    const found = this.router.find(method as RouterMethod, req.path);
    const hit = found ? { route: found.store as BoundRoute, params: { ...found.params } as Record<string, string> } : undefined;
    if (!hit) throw new DomainException('ROUTE_NOT_FOUND', 404, `no route ${method} ${req.path}`);
    const d = hit.route.deployment;
    authorise(d, req);

    const bodyMeta = isRecord(req.body) && isRecord(req.body.meta) ? req.body.meta : {};
    const sessionHeader = req.headers['x-session-id'];
    const meta: Record<string, unknown> = { ...(typeof sessionHeader === 'string' && sessionHeader ? { session_id: sessionHeader } : {}), ...bodyMeta, deploymentId: d.id };
    if (req.principal) meta.user = req.principal.sub;
    const variant = hit.route.selector.select(stickyValueOf(meta, d.stickyBy));
    // The deployment's state, like the deployments service's select answers it: a retry cannot help.
    if (!variant) throw new DomainException('NO_ELIGIBLE_VARIANT', 409, `deployment ${d.id} has no eligible variant: every variant has weight 0; give at least one a weight above 0 (PATCH /deployments/${d.id})`, { deploymentId: d.id });
    meta.variant = variant.label;

    const headers: Record<string, string> = {};
    for (const h of SAFE_HEADERS) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const input = { method, path: req.path, params: hit.params, query: req.query, headers, body: req.body ?? null, meta };
    const started = await this.runs.start(variant.flowId, { input, meta, versionId: variant.versionId, deploymentVariant: variant.label }, req.principal?.sub ?? `route:${d.id}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), this.timeoutMs)));
    const outcome = await Promise.race([started.done, timeout]);
    clearTimeout(timer);
    const base = { runId: started.runId, deploymentId: d.id, variant: variant.label };
    if (outcome === 'timeout') {
      await this.runs.cancel(started.runId).catch(() => undefined);
      const errorId = randomUUID();
      this.log.warn({ errorId, runId: started.runId, deploymentId: d.id }, `dispatched run timed out after ${this.timeoutMs} ms`);
      return { ...base, status: 504, body: errorBody(504, `the flow did not answer within ${this.timeoutMs} ms`, { code: 'FLOW_TIMEOUT', runId: started.runId, errorId }) };
    }
    if (outcome.status === 'completed') return { ...base, status: await this.successStatusOf(d, started.versionId), body: outcome.output ?? null };
    if (outcome.status === 'rejected') {
      const message = outcome.reason ?? messageOf(outcome.output) ?? 'the flow rejected the request';
      return { ...base, status: 422, body: errorBody(422, message, { code: 'FLOW_REJECTED', runId: started.runId }) };
    }
    const errorId = randomUUID();
    this.log.error({ errorId, runId: started.runId, deploymentId: d.id, error: outcome.error }, `dispatched run ${outcome.status}`);
    return { ...base, status: 500, body: errorBody(500, 'the flow failed', { code: 'FLOW_FAILED', errorId, runId: started.runId }) };
  }

  /** `meta.route.success_status` of the stable flow's published version (default 200); versions are immutable, so cached. */
  private async successStatusOf(d: BoundDeployment, versionId: string): Promise<number> {
    const stable = stableVariantOf(d.variants);
    let key = versionId;
    if (stable) {
      if (stable.versionId) key = stable.versionId;
      else {
        const flow = await this.flows.getCached(stable.flowId).catch(() => undefined);
        if (flow?.published) key = stableVersionOf(flow.published);
      }
    }
    const cached = this.successStatus.get(key);
    if (cached !== undefined) return cached;
    const at = key.lastIndexOf('@v');
    const version = at > 0 ? await this.flows.getVersion(key.slice(0, at), key).catch(() => undefined) : undefined;
    const route = version?.document.meta?.route as { success_status?: unknown } | undefined;
    const status = typeof route?.success_status === 'number' && route.success_status >= 200 && route.success_status < 300 ? route.success_status : 200;
    if (this.successStatus.size > 1000) this.successStatus.clear();
    this.successStatus.set(key, status);
    return status;
  }
}

function authorise(d: BoundDeployment, req: DispatchRequest): void {
  const auth = d.auth ?? { mode: 'authenticated' };
  if (auth.mode === 'public') return;
  const p = req.principal;
  if (!p) throw new DomainException('UNAUTHENTICATED', 401, req.tokenSent ? 'token is invalid' : 'missing bearer token');
  if (!p.active) throw new DomainException('FORBIDDEN', 403, 'user is inactive');
  if (auth.mode === 'perms' && !p.superuser) {
    const missing = (auth.perms ?? []).filter((perm) => !p.perms.includes(perm));
    if (missing.length) throw new DomainException('FORBIDDEN', 403, `missing permission: ${missing.join(', ')}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function messageOf(output: unknown): string | undefined {
  if (isRecord(output)) for (const k of ['message', 'reason', 'error']) if (typeof output[k] === 'string') return output[k] as string;
  return typeof output === 'string' ? output : undefined;
}
