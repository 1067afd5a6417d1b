import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { hostname } from 'node:os';
import { Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { UpstreamClient } from './upstream-client';
import type { OperationObject, ParameterObject } from '@nestjs/swagger';
import { addErrorResponses } from '@flowplane/platform/service';

type Schema = Record<string, unknown>;

/** What enabled deployments contribute (deployments' `GET /internal/deployments/descriptions`). */
export interface Descriptions {
  routes: Array<{ method: string; path: string; success_status: number; summary?: string; deploymentId: string; deploymentName: string; auth: { mode: string; perms?: string[] } }>;
  events: Array<{ name: string; filter?: string; direction: 'subscribe' | 'publish'; deploymentId: string }>;
  /** Packet schemas of route deployments (OpenAPI `components.schemas`). */
  packets: Record<string, Schema>;
  /** Packet schemas of subscriber deployments (AsyncAPI `components.schemas`); absent from older deployments services. */
  eventPackets?: Record<string, Schema>;
}

/** Longest a description is served without a change event (a safety net; events drop it at once). */
const TTL_MS = 30_000;

/**
 * The routes, events and packets of enabled deployments, for the gateway's openapi.json and
 * asyncapi.yaml (issue 6 item 12). Cached, and dropped on every `deployments.changed` and
 * `flows.published` (a fan-out group per gateway process), so a PATCH shows within the event delay.
 */
@Injectable()
export class DeploymentDescriptions implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('DeploymentDescriptions');
  private cache?: { at: number; value: Descriptions };
  private generation = 0;
  private sub?: Subscription;

  constructor(
    private readonly upstreams: UpstreamClient,
    @Optional() @Inject(EVENT_BUS) private readonly bus?: EventBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.bus) return;
    this.sub = await this.bus.subscribe([Topics.DeploymentsChanged, Topics.FlowsPublished], { groupId: `gateway-descriptions-${hostname()}-${process.pid}`, fromBeginning: false }, async () => {
      this.invalidate();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sub?.stop();
  }

  invalidate(): void {
    this.cache = undefined;
    this.generation++;
  }

  /** The current contributions; undefined when the deployments service did not answer. */
  async get(): Promise<Descriptions | undefined> {
    if (this.cache && Date.now() - this.cache.at < TTL_MS) return this.cache.value;
    const generation = this.generation;
    const answer = await this.upstreams.get('deployments', '/internal/deployments/descriptions', 3000);
    if (!answer.ok || typeof answer.body !== 'object' || answer.body === null) {
      this.log.warn(`deployment descriptions unavailable: ${answer.error ?? `status ${answer.status}`}`);
      return undefined;
    }
    const value = answer.body as Descriptions;
    // A change that arrived while we were reading makes this answer stale: do not keep it.
    if (generation === this.generation) this.cache = { at: Date.now(), value };
    return value;
  }
}

/** OpenAPI 3.0 with the routes and packets of enabled route deployments added (a new object). */
export function withDeployedRoutes(doc: Schema, d: Descriptions): Schema {
  const paths = { ...((doc.paths as Record<string, Schema>) ?? {}) };
  const components = { ...((doc.components as Schema) ?? {}) };
  const schemas = { ...((components.schemas as Record<string, Schema>) ?? {}) };
  for (const r of d.routes) {
    const path = `/api/v1${r.path}`;
    const method = r.method.toLowerCase();
    const params = [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const isPublic = r.auth.mode === 'public';
    const responses: Record<string, Schema> = {
      [String(r.success_status)]: { description: 'The flow run output.', content: { 'application/json': { schema: {} } } },
      '404': { description: 'No route (the deployment was disabled or removed).' },
      '422': { description: 'The run was rejected; `message` says why.' },
      '500': { description: 'The run failed; `errorId` identifies the logged error.' },
      '504': { description: 'The run did not answer within ROUTE_TIMEOUT_MS.' },
    };
    if (!isPublic) {
      responses['401'] = { description: 'Missing or invalid bearer token.' };
      responses['403'] = { description: r.auth.mode === 'perms' ? `Missing one of: ${(r.auth.perms ?? []).join(', ')}` : 'Inactive user.' };
    }
    const operation: Schema = {
      operationId: `deployment_${r.deploymentId.replace(/[^A-Za-z0-9_]/g, '_')}_${method}`,
      summary: r.summary ?? `${r.deploymentName} (${r.method} ${r.path})`,
      tags: ['deployed routes'],
      'x-deployment-id': r.deploymentId,
      ...(params.length ? { parameters: params } : {}),
      ...(method === 'get' || method === 'delete' ? {} : { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } }),
      responses,
      security: isPublic ? [] : [{ bearer: [] }],
    };
    addErrorResponses(operation as unknown as OperationObject, params as ParameterObject[], isPublic ? undefined : { active: true, ...(r.auth.mode === 'perms' ? { allPerms: r.auth.perms ?? [] } : {}) });
    const existing = paths[path] ?? {};
    if (!(method in existing)) paths[path] = { ...existing, [method]: operation };
  }
  for (const [name, schema] of Object.entries(d.packets)) if (!(name in schemas)) schemas[name] = schema;
  return { ...doc, paths, components: { ...components, schemas } };
}

/** AsyncAPI 2.6 with the events of enabled subscriber deployments added (a new object). */
export function withDeployedEvents(doc: Schema, d: Descriptions, deploymentKinds?: (id: string) => string | undefined): Schema {
  const channels = { ...((doc.channels as Record<string, Schema>) ?? {}) };
  const bySubscriber = d.events.filter((e) => e.direction === 'subscribe' && (!deploymentKinds || deploymentKinds(e.deploymentId) === 'subscriber'));
  for (const e of bySubscriber) {
    const consumer = { deploymentId: e.deploymentId, ...(e.filter ? { filter: e.filter } : {}) };
    const existing = channels[e.name];
    if (existing) {
      channels[e.name] = { ...existing, 'x-deployments': [...((existing['x-deployments'] as unknown[]) ?? []), consumer] };
      continue;
    }
    channels[e.name] = {
      description: `Consumed by subscriber deployment ${e.deploymentId}${e.filter ? ` (filter: ${e.filter})` : ''}.`,
      publish: {
        operationId: `deployment_${e.deploymentId.replace(/[^A-Za-z0-9_]/g, '_')}_${e.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
        summary: `Events ${e.deploymentId} runs its flows for`,
        message: { messageId: `deployment_${e.deploymentId.replace(/[^A-Za-z0-9_]/g, '_')}_${e.name.replace(/[^A-Za-z0-9_]/g, '_')}`, name: e.name.replace(/[^A-Za-z0-9_]/g, '_'), contentType: 'application/json', payload: {} },
      },
      'x-deployments': [consumer],
    };
  }
  const components = (doc.components as Schema | undefined) ?? {};
  const schemas = { ...((components.schemas as Record<string, Schema>) ?? {}) };
  for (const [name, schema] of Object.entries(d.eventPackets ?? {})) if (!(name in schemas)) schemas[name] = schema;
  return { ...doc, channels, components: { ...components, schemas } };
}
