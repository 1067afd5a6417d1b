import { Controller, Get, Header, HttpCode, Inject, Logger, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { AdminRoute, Public } from '@flowplane/platform/auth';
import { errorBody } from '@flowplane/platform/http';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { PLATFORM_PROBE_ACK_TOPIC, PLATFORM_PROBE_TOPIC } from '@flowplane/platform/service';
import { stringify } from 'yaml';
import { buildAsyncApi } from './asyncapi';
import { type Descriptions, DeploymentDescriptions, withDeployedEvents } from './deployment-descriptions';
import { OpenApiAggregator } from './openapi-aggregator';
import { type UpstreamAnswer, UpstreamClient } from './upstream-client';
import { UPSTREAM_SERVICES } from './gateway.env';

/**
 * Why a service is not ready, in a few words: the failing checks of its /readyz (`seeding` while its
 * start-up seeding runs, `store: <reason>` for a dependency), or why it could not be asked.
 */
function notReadyReason(a: UpstreamAnswer): string {
  if (a.error) return a.error;
  const failed = (a.body as { failing?: Record<string, { message?: unknown }> } | undefined)?.failing;
  if (failed && typeof failed === 'object') {
    const reasons = Object.entries(failed).map(([check, v]) => {
      const message = typeof v?.message === 'string' ? v.message : 'down';
      return message === check ? check : `${check}: ${message}`;
    });
    if (reasons.length) return reasons.join('; ');
  }
  return `status ${a.status ?? 'unknown'}`;
}

/** The gateway's own routes: aggregated health and API documents, and the operators' system view. */
@ApiTags('gateway')
@Controller()
export class GatewayController {
  private readonly log = new Logger('Gateway');
  private asyncapiBase?: Record<string, unknown>;
  private asyncapiFor?: { source: Descriptions; yaml: string };

  constructor(
    private readonly upstreams: UpstreamClient,
    private readonly docs: OpenApiAggregator,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly deployments: DeploymentDescriptions,
  ) {}

  /** Readiness of every service: 200 when all are ready, 503 naming the failing ones. */
  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Aggregated readiness of every service' })
  @ApiOkResponse({ description: '`{status: "ok", services: {<name>: {status: "up", checks}}}`' })
  @ApiServiceUnavailableResponse({
    description: 'The standard error body with code `NOT_READY`, plus `failing: [<service>...]` and `services: {<name>: {status: "down", reason}}`; `reason` is `seeding` while a service is still seeding at start-up.',
  })
  async health(@Res({ passthrough: true }) res: Response) {
    const answers = await this.upstreams.all('/readyz', 3000);
    const services: Record<string, unknown> = { gateway: { status: 'up' } };
    const failing: string[] = [];
    for (const a of answers) {
      if (!a.ok) failing.push(a.service);
      services[a.service] = a.ok ? { status: 'up', checks: (a.body as { info?: unknown })?.info } : { status: 'down', reason: notReadyReason(a), checks: (a.body as { checks?: unknown } | undefined)?.checks };
    }
    if (failing.length) {
      res.status(503);
      const errorId = randomUUID();
      this.log.warn({ errorId, failing }, `not ready: ${failing.join(', ')}`);
      const which = failing.map((s) => `${s} (${(services[s] as { reason: string }).reason})`).join(', ');
      return errorBody(503, `not ready: ${which}`, { code: 'NOT_READY', status: 'error', failing, services, errorId });
    }
    return { status: 'ok', services };
  }

  /** The merged OpenAPI 3.0 document of the whole API. */
  @Get('openapi.json')
  @Public()
  @ApiOperation({ summary: 'The merged OpenAPI 3.0 document of every public route (this document)' })
  @ApiOkResponse({ description: 'OpenAPI 3.0 document; `x-unavailable-services` lists services that did not answer.' })
  openapi() {
    return this.docs.merged();
  }

  /** The AsyncAPI 2.6 description of every platform topic. */
  @Get('asyncapi.yaml')
  @Public()
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @ApiOperation({ summary: 'AsyncAPI 2.6 description of every bus topic (YAML)' })
  async asyncapi(): Promise<string> {
    this.asyncapiBase ??= buildAsyncApi(process.env.npm_package_version ?? '0.1.0');
    const deployed = await this.deployments.get();
    if (!deployed) return stringify({ ...this.asyncapiBase, 'x-unavailable-services': ['deployments'] });
    if (deployed !== this.asyncapiFor?.source) this.asyncapiFor = { source: deployed, yaml: stringify(withDeployedEvents(this.asyncapiBase, deployed)) };
    return this.asyncapiFor.yaml;
  }

  /** Services with their version, uptime and adapters (admin). */
  @Get('admin/system')
  @AdminRoute()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Every service with version, uptime, adapters and consumer groups (admin:access)',
    description:
      'Per service: `version`, `uptimeSeconds`, `adapters` {bus, store, vector}, and `consumers`: each consumer group of the service with its topic, `lag` (events published but not yet processed) and per partition `committed` (null before the first commit), `end` and `lag`. On Kafka the offsets come from the admin API. `consumersError` replaces `consumers` when the bus did not answer within 2 s; a service that does not answer is `status: down` with a `reason`.',
  })
  async system() {
    const answers = await this.upstreams.all('/internal/info', 3000);
    return {
      services: answers.map((a) => (a.ok ? { status: 'up', ...(a.body as object) } : { service: a.service, status: 'down', reason: a.error ?? `status ${a.status}` })),
    };
  }

  /**
   * Publishes a probe event on the bus and reports which services consumed it and answered,
   * proving the event path end to end (admin).
   */
  @Post('admin/system/bus-probe')
  @HttpCode(200)
  @AdminRoute()
  @ApiBearerAuth()
  @ApiQuery({ name: 'timeoutMs', required: false, description: 'How long to wait for answers (default 5000, max 30000).' })
  @ApiOperation({ summary: 'Round trip of a probe event through every service (admin:access)' })
  async busProbe(@Query('timeoutMs') timeoutParam?: string) {
    const timeoutMs = Math.min(Math.max(Number(timeoutParam) || 5000, 100), 30000);
    const probeId = randomUUID();
    const expected = UPSTREAM_SERVICES as readonly string[];
    const seen = new Map<string, number>();
    const started = Date.now();
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const sub = await this.bus.subscribe([PLATFORM_PROBE_ACK_TOPIC], { groupId: `gateway-probe-${hostname()}-${process.pid}-${probeId}`, fromBeginning: false }, async (event) => {
      const data = event.data as { probeId?: string; service?: string };
      if (data.probeId !== probeId || !data.service) return;
      if (!seen.has(data.service)) seen.set(data.service, Date.now() - started);
      if (expected.every((s) => seen.has(s))) done();
    });
    try {
      await this.bus.publish(PLATFORM_PROBE_TOPIC, { probeId, from: 'gateway' }, { key: probeId });
      await Promise.race([all, new Promise((r) => setTimeout(r, timeoutMs))]);
    } finally {
      await sub.stop();
    }
    const missing = expected.filter((s) => !seen.has(s));
    return { probeId, ok: missing.length === 0, acknowledged: Object.fromEntries(seen), missing, elapsedMs: Date.now() - started };
  }
}
