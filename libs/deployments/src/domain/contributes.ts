import { normalizeRoute, type RouteSpec } from '@flowplane/contracts';
import { type Deployment, Labels } from './deployment';

/** The flow document fields contributions are computed from (IR workflow, libs/flow/ir). */
export interface FlowDocumentLike {
  nodes?: Array<{ id: string; kind?: string; action_ref?: string; config?: Record<string, unknown> }>;
  meta?: { route?: unknown; packets?: Record<string, unknown>; [key: string]: unknown };
}

export interface ContributedRoute {
  method: string;
  path: string;
  success_status: number;
  summary: string;
}

export interface ContributedEvent {
  name: string;
  filter?: string;
  direction: 'subscribe' | 'publish';
}

export interface ContributedPacket {
  name: string;
  $ref: string;
}

/** What a deployment adds to the published OpenAPI and AsyncAPI descriptions (rule 16). */
export interface Contributes {
  routes: ContributedRoute[];
  events: ContributedEvent[];
  packets: ContributedPacket[];
}

/** `meta.route` of a registration template: `{method, path, success_status?, summary?}`. */
export function metaRouteOf(doc: FlowDocumentLike | undefined): (RouteSpec & { success_status?: number; summary?: string }) | undefined {
  const r = doc?.meta?.route as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object' || typeof r.method !== 'string' || typeof r.path !== 'string') return undefined;
  return {
    ...normalizeRoute({ method: r.method, path: r.path }),
    success_status: typeof r.success_status === 'number' ? r.success_status : undefined,
    summary: typeof r.summary === 'string' ? r.summary : undefined,
  };
}

/**
 * The summary a contributed route is published with: the flow's `meta.route.summary`, else one
 * naming the deployment and the route, so every operation of the OpenAPI description has one and
 * `contributes` shows the very text the description does.
 */
export function routeSummary(d: { name?: string; route?: RouteSpec }, declared: string | undefined): string {
  if (declared && declared.trim()) return declared;
  const route = d.route ? `${d.route.method} ${d.route.path}` : '';
  return d.name ? `${d.name} (${route})` : route;
}

/** The event a subscriber deployment consumes: its `x-event` label, else the flow's event-source `eventName`. */
export function subscribedEventOf(labels: Readonly<Record<string, string>>, doc: FlowDocumentLike | undefined): string | undefined {
  if (labels[Labels.event]) return labels[Labels.event];
  const source = doc?.nodes?.find((n) => n.action_ref === 'svc/event-source');
  const name = source?.config?.eventName;
  return typeof name === 'string' && name ? name : undefined;
}

/**
 * Contributions of a deployment, computed from the stable variant's flow document (rule 16):
 * a route deployment contributes its route; a subscriber its consumed event (with the
 * `x-event-filter`); both the events their flow publishes (`svc/emit-event` topics, `email.send`)
 * and the packets of `meta.packets`.
 */
export function computeContributes(d: Pick<Deployment, 'kind' | 'labels' | 'route'> & { name?: string }, doc: FlowDocumentLike | undefined): Contributes {
  const routes: ContributedRoute[] = [];
  const events: ContributedEvent[] = [];
  if (d.kind === 'route' && d.route) {
    const meta = metaRouteOf(doc);
    routes.push({ method: d.route.method, path: d.route.path, success_status: meta?.success_status ?? 200, summary: routeSummary(d, meta?.summary) });
  }
  if (d.kind === 'subscriber') {
    const name = subscribedEventOf(d.labels, doc);
    if (name) events.push({ name, filter: d.labels[Labels.eventFilter] || undefined, direction: 'subscribe' });
  }
  const published = new Set<string>();
  for (const n of doc?.nodes ?? []) {
    if (n.action_ref === 'svc/emit-event' && typeof n.config?.topic === 'string' && n.config.topic) published.add(n.config.topic);
    if (n.action_ref === 'svc/email-send') published.add('email.send');
  }
  for (const name of [...published].sort()) events.push({ name, direction: 'publish' });
  const packets = Object.keys(doc?.meta?.packets ?? {})
    .sort()
    .map((name) => ({ name, $ref: `#/components/schemas/${name}` }));
  return { routes, events, packets };
}
