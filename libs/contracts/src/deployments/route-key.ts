/**
 * Route identity of route deployments (assistant-deployments-profiles.md rule 15, issue 6 item 4):
 * `(method, path)` with the path relative to `/api/v1` and parameters written `{name}`.
 * Normalised for comparison: method upper-cased, repeated and trailing slashes removed, and every
 * parameter segment replaced by `{}` so parameters compare by position (`/orders/{id}` and
 * `/orders/{orderId}` are the same route).
 */

export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** A route as declared. */
export interface RouteSpec {
  method: string;
  path: string;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
// No `*`: a router reads it as a wildcard.
const LITERAL = /^[A-Za-z0-9._~!$&'()+,;=:@-]+$/;

/** Why a route is not acceptable, or undefined when it is. */
export function routeProblem(route: RouteSpec): string | undefined {
  const method = String(route.method ?? '').toUpperCase();
  if (!(ROUTE_METHODS as readonly string[]).includes(method)) return `method must be one of ${ROUTE_METHODS.join(', ')}`;
  const path = String(route.path ?? '');
  if (!path.startsWith('/')) return 'path must start with /';
  if (path.length > 300) return 'path is longer than 300 characters';
  const names = new Set<string>();
  for (const seg of segments(path)) {
    const m = PARAM.exec(seg);
    if (m) {
      if (names.has(m[1])) return `parameter {${m[1]}} appears twice`;
      names.add(m[1]);
    } else if (!LITERAL.test(seg)) return `invalid path segment "${seg}"`;
  }
  return undefined;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** Display form: method upper-cased, path with single slashes and no trailing slash. */
export function normalizeRoute(route: RouteSpec): RouteSpec {
  return { method: route.method.toUpperCase(), path: '/' + segments(route.path).join('/') };
}

/** Comparison key: `GET /orders/{}`. */
export function routeKey(route: RouteSpec): string {
  return `${route.method.toUpperCase()} /${segments(route.path)
    .map((s) => (PARAM.test(s) ? '{}' : s))
    .join('/')}`;
}

/** Parses an `x-route` label `"<METHOD> <path>"`; undefined when malformed. */
export function parseRouteLabel(label: string | undefined): RouteSpec | undefined {
  if (!label) return undefined;
  const m = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(label);
  return m ? normalizeRoute({ method: m[1], path: m[2] }) : undefined;
}

/** `x-route` label of a route. */
export function routeLabel(route: RouteSpec): string {
  const r = normalizeRoute(route);
  return `${r.method} ${r.path}`;
}

/** Lower case, runs of non-alphanumerics to one `-`, trimmed. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Id of the auto-managed deployment of a route: `POST /orders/{id}/items` gives `route-post-orders-id-items`. */
export function routeDeploymentId(route: RouteSpec): string {
  const r = normalizeRoute(route);
  const slug = slugify(r.path);
  return `route-${r.method.toLowerCase()}${slug ? `-${slug}` : ''}`;
}

/** Id of the auto-managed deployment of a published flow that is neither a route nor an event source. */
export function invokeDeploymentId(flowId: string): string {
  return `flow-${flowId}`;
}

/** Id of the auto-managed subscriber deployment of a flow that came from no template. */
export function flowSubscriberDeploymentId(flowId: string): string {
  return `subscriber-${flowId}`;
}

/** Id of the auto-managed deployment of a subscriber template: `/` to `-` (`i18n/translate` gives `subscriber-i18n-translate`). */
export function subscriberDeploymentId(templateId: string): string {
  return `subscriber-${templateId.replace(/\//g, '-')}`;
}

/**
 * A route compiled for matching request paths: literal segments compare exactly, parameter
 * segments capture one decoded segment each.
 */
export class RouteMatcher {
  readonly method: string;
  readonly key: string;
  private readonly parts: Array<{ literal: string } | { param: string }>;

  constructor(route: RouteSpec) {
    this.method = route.method.toUpperCase();
    this.key = routeKey(route);
    this.parts = segments(route.path).map((s) => {
      const m = PARAM.exec(s);
      return m ? { param: m[1] } : { literal: s };
    });
  }

  /** Path parameters when `path` (relative to /api/v1, no query) matches, else undefined. */
  match(path: string): Record<string, string> | undefined {
    const segs = segments(path);
    if (segs.length !== this.parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segs.length; i++) {
      const part = this.parts[i];
      if ('literal' in part) {
        if (part.literal !== segs[i]) return undefined;
      } else {
        try {
          params[part.param] = decodeURIComponent(segs[i]);
        } catch {
          return undefined;
        }
      }
    }
    return params;
  }
}
