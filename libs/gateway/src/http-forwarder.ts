import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { type Dispatcher, Pool } from 'undici';
import { errorBody, isJsonContentType, JsonDepthScanner } from '@flowplane/platform/http';
import { Admission, callerKey, isEventStream, isRefusal, type Refusal, type Release, wantsEventStream } from './admission';
import { type BodyFailure, BodyMeter } from './body-meter';
import { EdgeCache, TeeToCache } from './edge-cache';
import { forwardedRequestHeaders, HOP_BY_HOP, mergeVary } from './forwarded-headers';
import type { UpstreamService } from './gateway.env';

/** Connection, stream and body limits of the HTTP path (defaults as in GatewayEnv). */
export interface ForwardLimits {
  /** Upstream connections per service for ordinary requests. */
  connections: number;
  /** Of those, how many long occupants (bodies still arriving, stream responses) may never take. */
  reserve: number;
  /** Upstream connections per service for event streams. */
  streamConnections: number;
  streamsPerCaller: number;
  streamsPerClient: number;
  pendingPerClient: number;
  bodyIdleTimeoutMs: number;
  requestTimeoutMs: number;
  maxJsonDepth: number;
}

export const DEFAULT_FORWARD_LIMITS: ForwardLimits = {
  connections: 256,
  reserve: 64,
  streamConnections: 1024,
  streamsPerCaller: 16,
  streamsPerClient: 64,
  pendingPerClient: 64,
  bodyIdleTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxJsonDepth: 64,
};

export interface ForwarderOptions {
  upstreams: Record<UpstreamService, string>;
  timeoutMs: number;
  bodyLimitBytes: number;
  limits: ForwardLimits;
  /** The client address used for per-client caps (honours GATEWAY_TRUST_PROXY). */
  clientKey: (req: IncomingMessage) => string;
  /** The shared cache of public answers (disabled when absent). */
  cache?: EdgeCache;
}

/** Headers meant for the gateway alone (see EdgeCache): never passed on to the client. */
const SURROGATE_HEADERS = new Set(['surrogate-control', 'surrogate-key']);

/** The upstream's response headers minus hop-by-hop ones. */
function responseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !SURROGATE_HEADERS.has(k)) out[k] = v;
  return out;
}

/** One proxied request: whether the gateway already answered it and what it holds until it ends. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  service: UpstreamService;
  path: string;
  /** Set once the gateway answered by itself (a limit, a refusal): upstream outcomes are ignored. */
  answered: boolean;
  /** Counted as an open event stream already (asked for one, so it went to the stream pool). */
  streaming: boolean;
  releases: Release[];
  /** The cache's generation when a request it may fill was sent upstream (undefined: not such a request). */
  cacheGeneration?: number;
}

class StreamRefused extends Error {}

const log = new Logger('Gateway');

/** How long a body may take to arrive whole when its address is already at the cap on unfinished requests. */
const PENDING_GRACE_MS = 500;

/**
 * Forwards HTTP requests to the upstream services over undici pools. Bodies pass through a
 * `BodyMeter` (byte limit, JSON depth, idle and total timeouts); JSON bodies, and bodies of slow
 * clients when only the reserve is left, are collected first and sent whole, so a client that
 * trickles its body never holds an upstream connection. Event streams use a pool of their own.
 */
export class HttpForwarder {
  private readonly pools = new Map<string, Pool>();
  private readonly admission: Admission;

  constructor(private readonly o: ForwarderOptions) {
    const l = o.limits;
    this.admission = new Admission({
      longSlots: Math.max(0, l.connections - l.reserve),
      streamConnections: l.streamConnections,
      streamsPerCaller: l.streamsPerCaller,
      streamsPerClient: l.streamsPerClient,
      pendingPerClient: l.pendingPerClient,
      retryAfterSeconds: Math.max(1, Math.ceil(l.bodyIdleTimeoutMs / 1000)),
    });
  }

  forward(req: IncomingMessage, res: ServerResponse, service: UpstreamService, rewritePath?: string): void {
    const declared = Number(req.headers['content-length'] ?? 0);
    const x: Exchange = { req, res, service, path: rewritePath ?? req.url ?? '/', answered: false, streaming: false, releases: [] };
    if (declared > this.o.bodyLimitBytes) {
      this.answer(x, 413, 'BODY_TOO_LARGE', `request body is larger than the limit of ${this.o.bodyLimitBytes} bytes`);
      return;
    }
    const hasBody = req.headers['transfer-encoding'] !== undefined || declared > 0;
    const cache = this.o.cache;
    if (cache?.accepts(req)) {
      const hit = EdgeCache.bypasses(req) ? undefined : cache.lookup(service, req);
      if (hit) {
        cache.serve(hit, req, res);
        return;
      }
      x.cacheGeneration = cache.generation;
    }
    if (wantsEventStream(req)) {
      const lease = this.admission.openStream(service, this.o.clientKey(req), callerKey(req), 'stream');
      if (isRefusal(lease)) {
        this.answer(x, lease.status, lease.code, lease.message, lease.retryAfter);
        return;
      }
      x.streaming = true;
      this.hold(x, lease);
    }
    if (!hasBody) {
      this.dispatch(x, undefined);
      return;
    }
    // After this tick the parser has handed over whatever body came with the headers: a body that is
    // complete by then is a short request and never counts against the caps on unfinished ones.
    process.nextTick(() => this.receiveBody(x));
  }

  private receiveBody(x: Exchange): void {
    const { req, res, service } = x;
    if (res.destroyed) return;
    const json = isJsonContentType(req.headers['content-type']);
    const arrived = req.complete;
    // A JSON body that came whole with the headers (the usual short request) is checked and sent at
    // once: the pass-through meter, its two timers and the pipe cost more than the checks themselves.
    if (json && arrived) {
      const body = this.arrivedJson(x);
      if (body) this.dispatch(x, body);
      return;
    }
    // Over the address's cap on unfinished requests, a body still gets a moment to arrive whole
    // (clients often send it right after the headers); only one still unfinished then is refused.
    let graceFor: Refusal | undefined;
    if (!arrived) {
      const pending = this.admission.beginPending(this.o.clientKey(req));
      if (isRefusal(pending)) {
        graceFor = pending;
      } else {
        this.hold(x, pending);
        req.once('end', pending);
      }
    }
    // JSON is checked for depth before the service sees any of it; a slow body of another type holds
    // a short-pool connection only while one is free beyond the reserve, else it is collected first
    // (event streams have their own pool, bounded by the stream caps).
    let whole = json || graceFor !== undefined;
    if (!whole && !arrived && !x.streaming) {
      const slot = this.admission.takeLongSlot(service);
      if (slot) {
        this.hold(x, slot);
        req.once('end', slot);
      } else {
        whole = true;
      }
    }
    const l = this.o.limits;
    const meter = new BodyMeter({ maxBytes: this.o.bodyLimitBytes, idleMs: l.bodyIdleTimeoutMs, deadlineMs: l.requestTimeoutMs, maxJsonDepth: l.maxJsonDepth }, json, (f) => this.refuseBody(x, meter, f));
    meter.on('error', () => undefined);
    req.once('close', () => {
      if (!req.complete) meter.destroy();
    });
    if (graceFor) {
      const refusal = graceFor;
      const grace = setTimeout(() => {
        if (req.complete || x.answered) return;
        req.unpipe(meter);
        meter.destroy();
        this.answer(x, refusal.status, refusal.code, refusal.message, refusal.retryAfter);
      }, PENDING_GRACE_MS).unref();
      meter.once('close', () => clearTimeout(grace));
    }
    req.pipe(meter);
    if (!whole) {
      this.dispatch(x, meter);
      return;
    }
    const chunks: Buffer[] = [];
    meter.on('data', (c: Buffer) => chunks.push(c));
    meter.once('end', () => this.dispatch(x, Buffer.concat(chunks, meter.bytes)));
  }

  /** The whole body of a JSON request that has arrived, checked as BodyMeter checks it; undefined once refused. */
  private arrivedJson(x: Exchange): Buffer | undefined {
    const chunks: Buffer[] = [];
    let size = 0;
    for (let c = x.req.read() as Buffer | null; c !== null; c = x.req.read() as Buffer | null) {
      chunks.push(c);
      size += c.length;
    }
    const { bodyLimitBytes } = this.o;
    if (size > bodyLimitBytes) {
      this.answer(x, 413, 'BODY_TOO_LARGE', `request body is larger than the limit of ${bodyLimitBytes} bytes`);
      return undefined;
    }
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    const depth = this.o.limits.maxJsonDepth;
    if (new JsonDepthScanner(depth).push(body)) {
      this.answer(x, 400, 'JSON_TOO_DEEP', `JSON body is nested deeper than ${depth} levels`);
      return undefined;
    }
    return body;
  }

  private refuseBody(x: Exchange, meter: BodyMeter, f: BodyFailure): void {
    x.req.unpipe(meter);
    this.answer(x, f.status, f.code, f.message);
  }

  private dispatch(x: Exchange, body: Readable | Buffer | undefined): void {
    const { req, res, service } = x;
    if (x.answered || res.destroyed) return;
    const headers = forwardedRequestHeaders(req, false);
    // A collected body goes with its length, whatever framing the client used.
    if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
    // No AbortController per request (it costs more than the rest of the hop): when the client goes
    // away, writing into its destroyed response fails and undici drops the upstream request.
    this.pool(service, x.streaming).stream(
      { path: x.path, method: req.method as Dispatcher.HttpMethod, headers, body },
      ({ statusCode, headers: upstream }) => {
        // The gateway answered meanwhile (the body was refused): drop the upstream's answer.
        if (x.answered) throw new StreamRefused('answered by the gateway');
        if (!x.streaming && isEventStream(upstream['content-type'])) this.admitLateStream(x);
        const cache = this.o.cache;
        // A write is taken as done once its answer starts: what the cache holds of that service goes first.
        cache?.wrote(req.method, service, statusCode);
        const headers = responseHeaders(upstream);
        const own = res.getHeader('vary');
        if (own !== undefined && headers.vary !== undefined) headers.vary = mergeVary(own, headers.vary)!;
        res.writeHead(statusCode, headers);
        const generation = x.cacheGeneration;
        const storable = generation === undefined ? undefined : cache?.storable(statusCode, upstream);
        if (!storable) return res;
        return new TeeToCache(res, (body) => cache!.store(service, req, generation!, statusCode, upstream, storable, body));
      },
      (err) => {
        if (!err || x.answered || res.destroyed) return;
        const code = (err as { code?: string }).code ?? '';
        if (res.headersSent) {
          res.destroy();
        } else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
          this.answer(x, 504, 'UPSTREAM_TIMEOUT', `service ${service} did not answer within ${this.o.timeoutMs} ms`, undefined, { service });
        } else {
          const reason = (err as { cause?: { code?: string } }).cause?.code ?? (code || 'ERROR');
          this.answer(x, 503, 'SERVICE_UNAVAILABLE', `service ${service} is unavailable`, undefined, { service, reason });
        }
      },
    );
  }

  /** A response that turned out to be an event stream on the short pool: counted like one, or cut. */
  private admitLateStream(x: Exchange): void {
    const lease = this.admission.openStream(x.service, this.o.clientKey(x.req), callerKey(x.req), 'short');
    if (isRefusal(lease)) {
      this.answer(x, lease.status, lease.code, lease.message, lease.retryAfter);
      // Thrown from undici's header callback: it aborts the upstream request.
      throw new StreamRefused(lease.message);
    }
    x.streaming = true;
    this.hold(x, lease);
  }

  /** Keeps `release` until the response is over (whichever way it ends). */
  private hold(x: Exchange, release: Release): void {
    // `destroyed` turns true as the response emits 'close': nothing would release it after that.
    if (x.res.destroyed) {
      release();
      return;
    }
    if (x.releases.push(release) === 1) {
      x.res.once('close', () => {
        for (const r of x.releases) r();
      });
    }
  }

  /**
   * Answers with the standard error body. When the request body was not read to its end the
   * connection cannot carry another request, so it is closed after the answer.
   */
  private answer(x: Exchange, status: number, code: string, message: string, retryAfter?: number, extra: Record<string, unknown> = {}): void {
    const { req, res } = x;
    x.answered = true;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const id = res.getHeader('x-request-id');
    const requestId = typeof id === 'string' ? id : undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    if (!req.complete) headers.connection = 'close';
    let errorId: string | undefined;
    if (status >= 500) {
      errorId = randomUUID();
      log.warn({ errorId, requestId, service: x.service, code, ...extra }, message);
    }
    res.writeHead(status, headers);
    res.end(JSON.stringify(errorBody(status, message, { code, ...extra, requestId, ...(errorId ? { errorId } : {}) })));
  }

  /** One keep-alive pool per upstream for ordinary requests and one for event streams, made on first use. */
  private pool(service: UpstreamService, streams: boolean): Pool {
    const key = streams ? `${service}:streams` : service;
    let pool = this.pools.get(key);
    if (!pool) {
      const l = this.o.limits;
      pool = new Pool(this.o.upstreams[service], {
        connections: streams ? l.streamConnections : l.connections,
        keepAliveTimeout: 30_000,
        headersTimeout: this.o.timeoutMs,
        // A stream may stay quiet for long; it ends when either side closes it.
        bodyTimeout: streams ? 0 : this.o.timeoutMs,
        connectTimeout: Math.min(this.o.timeoutMs, 10_000),
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((p) => p.close()));
  }
}
