import httpProxy from 'http-proxy';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { errorBody, REQUEST_ID_HEADER, requestIdOf } from '@flowplane/platform/http';
import { type UpstreamService, UPSTREAM_SERVICES } from './gateway.env';
import { serviceForApiPath } from './route-table';

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
}

const API_PREFIX_LENGTH = '/api/v1'.length;

type ProxiedRequest = IncomingMessage & { flowplaneService?: UpstreamService; flowplaneTimedOut?: boolean; flowplaneTooLarge?: boolean };

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function rawReject(socket: Duplex, status: number, reason: string, body: object, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n${extra}Connection: close\r\n\r\n${payload}`);
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
  private readonly proxy = httpProxy.createProxyServer({ xfwd: true, ws: true, changeOrigin: false, agent: new Agent({ keepAlive: true, maxSockets: 512 }) });
  private readonly limiter?: RateLimiterMemory;

  constructor(private readonly o: ProxyOptions) {
    if (o.rateLimit > 0) this.limiter = new RateLimiterMemory({ points: o.rateLimit, duration: 60 });
    this.proxy.on('proxyReq', (proxyReq, req: ProxiedRequest) => {
      proxyReq.setTimeout(o.timeoutMs, () => {
        req.flowplaneTimedOut = true;
        proxyReq.destroy(new Error('upstream timeout'));
      });
    });
    this.proxy.on('error', (err, req: ProxiedRequest, res) => {
      const service = req.flowplaneService ?? 'upstream';
      if (req.flowplaneTooLarge) return;
      // Upgrades hand a socket, requests a ServerResponse (duck-typed: instanceof breaks across realms).
      if (typeof (res as ServerResponse).writeHead !== 'function') {
        (res as Duplex).destroy();
        return;
      }
      if (req.flowplaneTimedOut) {
        sendJson(res as ServerResponse, 504, errorBody(504, `service ${service} did not answer within ${o.timeoutMs} ms`, { service }));
      } else {
        sendJson(res as ServerResponse, 503, errorBody(503, `service ${service} is unavailable`, { service, reason: (err as NodeJS.ErrnoException).code ?? 'ERROR' }));
      }
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
    if (!path.startsWith('/api/v1/') || OWN_PATHS.has(path)) return false;
    const probe = SERVICE_PROBE.exec(path);
    const service = probe ? (probe[1] as UpstreamService) : serviceForApiPath(path.slice(API_PREFIX_LENGTH));
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
    if (req.headers['transfer-encoding']) this.guardStreamedBody(req, res);
    if (rewritePath) req.url = rewritePath;
    this.proxy.web(req, res, { target: this.o.upstreams[service] });
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

  /** HTTP upgrade handler: `/ws/*` goes to the hub; anything else is refused with JSON. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (!path.startsWith('/ws/') && path !== '/ws') {
      rawReject(socket, 404, 'Not Found', errorBody(404, `no WebSocket endpoint at ${path}`));
      return;
    }
    void this.overLimit(req).then((wait) => {
      if (wait !== undefined) {
        rawReject(socket, 429, 'Too Many Requests', errorBody(429, `rate limit exceeded; retry in ${wait} s`), { 'Retry-After': String(wait) });
        return;
      }
      (req as ProxiedRequest).flowplaneService = 'hub';
      this.proxy.ws(req, socket, head, { target: this.o.upstreams.hub }, (err) => {
        rawReject(socket, 503, 'Service Unavailable', errorBody(503, 'service hub is unavailable', { service: 'hub', reason: (err as NodeJS.ErrnoException).code ?? 'ERROR' }));
      });
    });
  }

  close(): void {
    this.proxy.close();
  }
}
