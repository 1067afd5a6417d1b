import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { type Dispatcher, Pool } from 'undici';
import { errorBody, REQUEST_ID_HEADER, requestIdOf } from '@flowplane/platform/http';
import { type UpstreamService, UPSTREAM_SERVICES } from './gateway.env';
import { serviceForApiPath, serviceForTopLevelPath, TOP_LEVEL_MOUNTS, type TopLevelMounts } from './route-table';
import { UpgradeProxy } from './upgrade-proxy';

/** Paths under /api/v1 the gateway answers itself (never proxied). */
const OWN_PATHS = new Set(['/api/v1/health', '/api/v1/openapi.json', '/api/v1/asyncapi.yaml', '/api/v1/admin/system', '/api/v1/admin/system/bus-probe']);
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
  /** Paths outside /api/v1 forwarded as they are (default: the hub at `/ws`). */
  mounts?: TopLevelMounts;
}

const API_PREFIX_LENGTH = '/api/v1'.length;

// RFC 9110 §7.6.1: connection-specific headers are not forwarded by a proxy.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The request headers to send upstream: end-to-end headers plus X-Forwarded-*. */
function forwardHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'host') out[k] = v;
  }
  const client = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${client}` : client;
  if (req.headers.host) out['x-forwarded-host'] = req.headers.host;
  out['x-forwarded-proto'] = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return out;
}

/** The upstream's response headers minus hop-by-hop ones. */
function responseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

type ProxiedRequest = IncomingMessage & { flowplaneService?: UpstreamService; flowplaneTooLarge?: boolean };

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
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
  private readonly pools = new Map<UpstreamService, Pool>();
  /** WebSocket upgrades to the hub: both sockets of every proxied connection, cut when the gateway stops. */
  readonly upgrades: UpgradeProxy;

  constructor(private readonly o: ProxyOptions) {
    if (o.rateLimit > 0) this.limiter = new RateLimiterMemory({ points: o.rateLimit, duration: 60 });
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
    const topLevel = serviceForTopLevelPath(path, this.o.mounts ?? TOP_LEVEL_MOUNTS);
    if (!topLevel && (!path.startsWith('/api/v1/') || OWN_PATHS.has(path))) return false;
    const probe = topLevel ? null : SERVICE_PROBE.exec(path);
    const service = topLevel ?? (probe ? (probe[1] as UpstreamService) : serviceForApiPath(path.slice(API_PREFIX_LENGTH)));
    const id = requestIdOf(req);
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader('X-Request-Id', id);
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: `proxy:${service}` };
    this.o.observe?.(req, res);
    const rewrite = probe ? `/${probe[2]}` : undefined;
    const go = () => {
      if (!this.limiter) return this.forward(req as ProxiedRequest, res, service, rewrite);
      void this.overLimit(req).then((wait) => {
        if (wait !== undefined) sendJson(res, 429, errorBody(429, `rate limit exceeded; retry in ${wait} s`), { 'Retry-After': String(wait) });
        else this.forward(req as ProxiedRequest, res, service, rewrite);
      });
    };
    if (this.o.cors && req.headers.origin) this.o.cors(req, res, go);
    else go();
    return true;
  }

  /** Express middleware for the gateway's own /api/v1 routes: the same per-client rate limit. */
  middleware() {
    return (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
      if (!this.limiter) return next();
      void this.overLimit(req).then((wait) => {
        if (wait === undefined) return next();
        sendJson(res, 429, errorBody(429, `rate limit exceeded; retry in ${wait} s`), { 'Retry-After': String(wait) });
      }, next);
    };
  }

  private forward(req: ProxiedRequest, res: ServerResponse, service: UpstreamService, rewritePath?: string): void {
    req.flowplaneService = service;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.o.bodyLimitBytes) {
      sendJson(res, 413, errorBody(413, `request body is larger than the limit of ${this.o.bodyLimitBytes} bytes`));
      req.resume();
      return;
    }
    const streamed = req.headers['transfer-encoding'] !== undefined;
    if (streamed) this.guardStreamedBody(req, res);
    const hasBody = streamed || declared > 0;
    // No AbortController per request (it costs more than the rest of the hop): when the client goes
    // away, writing into its destroyed response fails and undici drops the upstream request.
    this.pool(service).stream(
      {
        path: rewritePath ?? req.url ?? '/',
        method: req.method as Dispatcher.HttpMethod,
        headers: forwardHeaders(req),
        body: hasBody ? req : undefined,
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, responseHeaders(headers));
        return res;
      },
      (err) => {
        if (!err || req.flowplaneTooLarge || res.destroyed) return;
        const code = (err as { code?: string }).code ?? '';
        if (res.headersSent) {
          res.destroy();
        } else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
          sendJson(res, 504, errorBody(504, `service ${service} did not answer within ${this.o.timeoutMs} ms`, { service }));
        } else {
          const reason = (err as { cause?: { code?: string } }).cause?.code ?? (code || 'ERROR');
          sendJson(res, 503, errorBody(503, `service ${service} is unavailable`, { service, reason }));
        }
      },
    );
  }

  /** One keep-alive connection pool per upstream, created on first use. */
  private pool(service: UpstreamService): Pool {
    let pool = this.pools.get(service);
    if (!pool) {
      pool = new Pool(this.o.upstreams[service], {
        connections: 256,
        keepAliveTimeout: 30_000,
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        connectTimeout: Math.min(this.o.timeoutMs, 10_000),
      });
      this.pools.set(service, pool);
    }
    return pool;
  }

  /** Chunked bodies have no declared length: count bytes as they stream and cut the request at the limit. */
  private guardStreamedBody(req: ProxiedRequest, res: ServerResponse): void {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > this.o.bodyLimitBytes && !req.flowplaneTooLarge) {
        req.flowplaneTooLarge = true;
        sendJson(res, 413, errorBody(413, `request body is larger than the limit of ${this.o.bodyLimitBytes} bytes`));
        req.destroy();
      }
    });
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
    for (const pool of this.pools.values()) void pool.close();
    this.pools.clear();
  }
}
