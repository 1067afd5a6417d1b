import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { errorBody, REQUEST_ID_HEADER, requestIdOf, securityHeaderList } from '@flowplane/platform/http';
import { type UpstreamService, UPSTREAM_SERVICES } from './gateway.env';
import type { EdgeCache } from './edge-cache';
import { DEFAULT_FORWARD_LIMITS, type ForwardLimits, HttpForwarder } from './http-forwarder';
import { ROOT_ALIASES, serviceForApiPath, serviceForTopLevelPath, TOP_LEVEL_MOUNTS, type TopLevelMounts } from './route-table';
import { UpgradeProxy } from './upgrade-proxy';
import { isWidgetApiPath } from './widget-assets';

/** Paths under /api/v1 the gateway answers itself (never proxied). */
const OWN_PATHS = new Set(['/api/v1/health', '/api/v1/openapi.json', '/api/v1/asyncapi.yaml', '/api/v1/admin/system', '/api/v1/admin/system/bus-probe', '/api/v1/auth/me']);
const SERVICE_PROBE = new RegExp(`^/api/v1/(${UPSTREAM_SERVICES.join('|')})/(healthz|readyz)$`);

export interface ProxyOptions {
  upstreams: Record<UpstreamService, string>;
  timeoutMs: number;
  bodyLimitBytes: number;
  /** Requests per minute per client; 0 disables. */
  rateLimit: number;
  trustProxy: boolean;
  /** Records the request in the service's HTTP metrics. */
  observe?: (req: IncomingMessage, res: ServerResponse) => void;
  /** CORS handler (the `cors` middleware) when cross-origin access is configured. */
  cors?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  /** CORS handler of the chat widget's public API routes (`isWidgetApiPath`), when any origin may embed it. */
  widgetCors?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  /** Paths outside /api/v1 forwarded as they are (default: the hub at `/ws`). */
  mounts?: TopLevelMounts;
  /** Connection, stream and body limits (defaults as in GatewayEnv). */
  limits?: Partial<ForwardLimits>;
  /** Origins allowed to frame pages (security headers); empty: none. */
  frameAncestors?: readonly string[];
  /** The shared cache of public answers; absent: every request is forwarded. */
  cache?: EdgeCache;
}

const API_PREFIX_LENGTH = '/api/v1'.length;

type ProxiedRequest = IncomingMessage & { flowplaneService?: UpstreamService };

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** The body of a rate-limit refusal. */
function rateLimited(waitSeconds: number, requestId: string): object {
  return errorBody(429, `rate limit exceeded; retry in ${waitSeconds} s`, { code: 'RATE_LIMITED', requestId });
}

/** Parses `1mb`, `512kb` or a byte count. */
export function parseByteSize(size: string): number {
  const m = /^(\d+)(b|kb|mb)?$/i.exec(size.trim());
  if (!m) throw new Error(`invalid size: ${size}`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'b').toLowerCase();
  return unit === 'mb' ? n * 1024 * 1024 : unit === 'kb' ? n * 1024 : n;
}

/** The gateway's reverse proxy: prefix routing, body limit, rate limit, timeouts, WebSocket upgrades. */
export class GatewayProxy {
  private readonly limiter?: RateLimiterMemory;
  private readonly http: HttpForwarder;
  /** Security headers for every proxied answer; the upstream's own values take precedence. */
  private readonly securityHeaders: ReadonlyArray<readonly [string, string]>;
  /** WebSocket upgrades to the hub: both sockets of every proxied connection, cut when the gateway stops. */
  readonly upgrades: UpgradeProxy;

  constructor(private readonly o: ProxyOptions) {
    if (o.rateLimit > 0) this.limiter = new RateLimiterMemory({ points: o.rateLimit, duration: 60 });
    this.securityHeaders = securityHeaderList(o.frameAncestors);
    this.http = new HttpForwarder({
      upstreams: o.upstreams,
      timeoutMs: o.timeoutMs,
      bodyLimitBytes: o.bodyLimitBytes,
      limits: { ...DEFAULT_FORWARD_LIMITS, ...o.limits },
      clientKey: (req) => this.clientKey(req),
      cache: o.cache,
    });
    this.upgrades = new UpgradeProxy({
      target: o.upstreams.hub,
      accepts: (path) => serviceForTopLevelPath(path, o.mounts ?? TOP_LEVEL_MOUNTS) === 'hub',
      overLimit: this.limiter ? (req) => this.overLimit(req) : undefined,
      timeoutMs: o.timeoutMs,
    });
  }

  /** The client key for rate limiting. */
  private clientKey(req: IncomingMessage): string {
    if (this.o.trustProxy) {
      const fwd = req.headers['x-forwarded-for'];
      const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return req.socket.remoteAddress ?? 'unknown';
  }

  /** Consumes one request from the client's budget; returns seconds to wait when over it. */
  private async overLimit(req: IncomingMessage): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    try {
      await this.limiter.consume(this.clientKey(req));
      return undefined;
    } catch (r) {
      return Math.max(1, Math.ceil(((r as { msBeforeNext?: number }).msBeforeNext ?? 1000) / 1000));
    }
  }

  /**
   * Fast path in front of Express for every proxied request: request id, metrics, CORS, rate limit,
   * body limit, forwarding. Returns false for what the gateway answers itself (its own routes, docs,
   * probes), which then goes through Nest as usual.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const alias = ROOT_ALIASES.get(path);
    const topLevel = alias?.[0] ?? serviceForTopLevelPath(path, this.o.mounts ?? TOP_LEVEL_MOUNTS);
    if (!topLevel && (!path.startsWith('/api/v1/') || OWN_PATHS.has(path))) return false;
    const probe = topLevel ? null : SERVICE_PROBE.exec(path);
    const service = topLevel ?? (probe ? (probe[1] as UpstreamService) : serviceForApiPath(path.slice(API_PREFIX_LENGTH)));
    const id = requestIdOf(req);
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of this.securityHeaders) res.setHeader(name, value);
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: `proxy:${service}` };
    this.o.observe?.(req, res);
    const rewrite = probe ? `/${probe[2]}` : alias ? alias[1] + (q === -1 ? '' : url.slice(q)) : undefined;
    const go = () => {
      if (!this.limiter) return this.forward(req as ProxiedRequest, res, service, rewrite);
      void this.overLimit(req).then((wait) => {
        if (wait !== undefined) sendJson(res, 429, rateLimited(wait, id), { 'Retry-After': String(wait) });
        else this.forward(req as ProxiedRequest, res, service, rewrite);
      });
    };
    const cors = this.o.widgetCors && isWidgetApiPath(path) ? this.o.widgetCors : this.o.cors;
    if (cors && req.headers.origin) cors(req, res, go);
    else go();
    return true;
  }

  /** Express middleware for the gateway's own /api/v1 routes: the same per-client rate limit. */
  middleware() {
    return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
      if (!this.limiter) return next();
      void this.overLimit(req).then((wait) => {
        if (wait === undefined) return next();
        const id = res.getHeader('x-request-id');
        sendJson(res, 429, rateLimited(wait, typeof id === 'string' ? id : requestIdOf(req)), { 'Retry-After': String(wait) });
      }, next);
    };
  }

  private forward(req: ProxiedRequest, res: ServerResponse, service: UpstreamService, rewritePath?: string): void {
    req.flowplaneService = service;
    this.http.forward(req, res, service, rewritePath);
  }

  /** Takes the server's upgrades: `<WS_MOUNT_PATH>/*` goes to the hub; anything else is refused with JSON. */
  attachUpgrades(server: Server): void {
    this.upgrades.attach(server);
  }

  /** HTTP upgrade handler (see `UpgradeProxy`). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgrades.handle(req, socket, head);
  }

  /**
   * Cuts the proxied WebSocket connections: the listener's close waits for every connection to end,
   * and these only end when a side closes them. Clients reconnect (in production to another replica).
   */
  closeUpgrades(): void {
    this.upgrades.closeAll();
  }

  close(): void {
    this.closeUpgrades();
    void this.http.close();
  }
}
