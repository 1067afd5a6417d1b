import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type ClientRequest, type IncomingMessage, request as httpRequest, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type Duplex, pipeline } from 'node:stream';
import { errorBody, REQUEST_ID_HEADER, requestIdOf } from '@flowplane/platform/http';
import { forwardedRequestHeaders, HOP_BY_HOP } from './forwarded-headers';

export interface UpgradeProxyOptions {
  /** Base URL of the upstream that takes the upgrades (the hub). */
  target: string;
  /** Whether a path belongs to the target; any other upgrade is refused with 404. */
  accepts: (path: string) => boolean;
  /** Rate limit: resolves the seconds to wait when the client is over its budget. */
  overLimit?: (req: IncomingMessage) => Promise<number | undefined>;
  /** Deadline for the upstream to answer the handshake (connect included). */
  timeoutMs: number;
  /**
   * After one side of a connection ends, how long the other may keep its half open before both are
   * cut. A WebSocket close handshake finishes well within it; a peer that never closes does not.
   */
  halfOpenMs?: number;
}

const DEFAULT_HALF_OPEN_MS = 5000;

const log = new Logger('UpgradeProxy');

const proxies = new WeakMap<Server, UpgradeProxy>();

/** The upgrade proxy listening on a server (for health checks and tests). */
export function upgradeProxyOf(server: Server): UpgradeProxy | undefined {
  return proxies.get(server);
}

function rawHead(statusLine: string, headers: Record<string, string | string[] | number | undefined>): string {
  let out = `${statusLine}\r\n`;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out += `${k}: ${one}\r\n`;
  }
  return `${out}\r\n`;
}

function tuneSocket(socket: Duplex): void {
  const s = socket as Partial<Socket>;
  s.setNoDelay?.(true);
  // Lets the kernel find peers that vanished without a FIN or RST.
  s.setKeepAlive?.(true, 30_000);
}

/**
 * WebSocket upgrades through the gateway: the handshake is forwarded to the upstream over a fresh
 * connection and, once it answers 101, the two sockets are spliced together. Anything else the
 * upstream answers (a refusal) is passed to the client as is.
 *
 * Both sockets are the proxy's to guard: Node removes the HTTP server's own error listener from a
 * socket before it emits `upgrade`, so each socket gets an error listener before anything is
 * awaited or written, and a reset on either side (at any stage) destroys the pair quietly. Sockets
 * are tracked until closed, so shutdown can cut them and nothing outlives its peer.
 */
export class UpgradeProxy {
  private readonly sockets = new Set<Duplex>();
  private readonly halfOpenMs: number;
  private readonly target: URL;

  constructor(private readonly o: UpgradeProxyOptions) {
    this.halfOpenMs = o.halfOpenMs ?? DEFAULT_HALF_OPEN_MS;
    this.target = new URL(o.target);
  }

  /** Open sockets on both sides (client and upstream) of upgrades in progress or established. */
  get openSockets(): number {
    return this.sockets.size;
  }

  /** Takes the server's upgrades. */
  attach(server: Server): void {
    proxies.set(server, this);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handle(req, socket, head));
  }

  /** The server's `upgrade` listener. */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.guard(socket);
    const id = requestIdOf(req);
    req.headers[REQUEST_ID_HEADER] = id;
    const path = (req.url ?? '').split('?')[0];
    if (!this.o.accepts(path)) return this.refuse(socket, 404, errorBody(404, `no WebSocket endpoint at ${path}`, { code: 'ROUTE_NOT_FOUND', requestId: id }), id);
    if (!this.o.overLimit) return this.forward(req, socket, head, id);
    this.o.overLimit(req).then(
      (wait) => {
        if (socket.destroyed) return;
        if (wait === undefined) return this.forward(req, socket, head, id);
        this.refuse(socket, 429, errorBody(429, `rate limit exceeded; retry in ${wait} s`, { code: 'RATE_LIMITED', requestId: id }), id, { 'Retry-After': String(wait) });
      },
      () => socket.destroy(),
    );
  }

  /** Cuts every proxied socket (shutdown: their connections would otherwise hold the server open). */
  closeAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Error listener and tracking, before anything else touches the socket. */
  private guard(socket: Duplex): void {
    socket.on('error', () => socket.destroy());
    if (socket.destroyed) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private forward(req: IncomingMessage, socket: Duplex, head: Buffer, id: string): void {
    if (socket.destroyed) return;
    let answered = false;
    let upstreamReq: ClientRequest;
    try {
      upstreamReq = httpRequest({
        protocol: this.target.protocol,
        hostname: this.target.hostname,
        port: this.target.port,
        method: 'GET',
        path: req.url,
        headers: this.upstreamHeaders(req),
        // One connection per WebSocket: an upgraded socket never goes back to a pool.
        agent: false,
      });
    } catch {
      // Node refuses to send a target or header it considers invalid; thrown here, it would escape
      // the server's 'upgrade' event and end the process.
      return this.refuse(socket, 400, errorBody(400, 'invalid request target or header', { code: 'INVALID_REQUEST_TARGET', requestId: id }), id);
    }
    const deadline = setTimeout(() => upstreamReq.destroy(Object.assign(new Error('upstream handshake timed out'), { code: 'ETIMEDOUT' })), this.o.timeoutMs);
    deadline.unref();
    const settle = () => {
      answered = true;
      clearTimeout(deadline);
      socket.off('close', abandon);
    };
    // The client left before the upstream answered: drop the upstream request too.
    const abandon = () => {
      clearTimeout(deadline);
      upstreamReq.destroy();
    };
    socket.once('close', abandon);

    upstreamReq.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      if (answered) return;
      answered = true;
      socket.off('close', abandon);
      const code = err.code ?? 'ERROR';
      const errorId = randomUUID();
      log.warn({ errorId, requestId: id, reason: code }, 'WebSocket handshake with the hub failed');
      if (code === 'ETIMEDOUT') this.refuse(socket, 504, errorBody(504, `service hub did not answer within ${this.o.timeoutMs} ms`, { code: 'UPSTREAM_TIMEOUT', service: 'hub', requestId: id, errorId }), id);
      else this.refuse(socket, 503, errorBody(503, 'service hub is unavailable', { code: 'SERVICE_UNAVAILABLE', service: 'hub', reason: code, requestId: id, errorId }), id);
    });

    upstreamReq.on('response', (res: IncomingMessage) => {
      settle();
      res.on('error', () => res.destroy());
      if (socket.destroyed || !socket.writable) {
        res.destroy();
        return;
      }
      // A refusal (or any non-101 answer) ends the exchange: pass it through and close.
      const headers: Record<string, string | string[] | undefined> = {};
      for (const [k, v] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
      headers.connection = 'close';
      socket.write(rawHead(`HTTP/1.1 ${res.statusCode ?? 502} ${res.statusMessage || STATUS_CODES[res.statusCode ?? 502] || ''}`, headers));
      this.drainAndLinger(socket);
      pipeline(res, socket, () => undefined);
    });

    upstreamReq.on('upgrade', (res: IncomingMessage, upstream: Socket, upstreamHead: Buffer) => {
      this.guard(upstream);
      settle();
      if (socket.destroyed || !socket.writable) {
        upstream.destroy();
        return;
      }
      tuneSocket(socket);
      tuneSocket(upstream);
      socket.write(rawHead('HTTP/1.1 101 Switching Protocols', res.headers));
      if (upstreamHead.length) socket.write(upstreamHead);
      if (head.length) upstream.write(head);
      this.splice(socket, upstream);
    });

    upstreamReq.end();
  }

  /** Pipes two sockets both ways; when either closes both are closed, and a half-open pair is cut. */
  private splice(a: Duplex, b: Duplex): void {
    let linger: NodeJS.Timeout | undefined;
    const cut = () => {
      if (linger) clearTimeout(linger);
      a.destroy();
      b.destroy();
    };
    a.once('close', cut);
    b.once('close', cut);
    const ended = () => {
      if (linger) return;
      linger = setTimeout(cut, this.halfOpenMs);
      linger.unref();
    };
    a.once('end', ended);
    b.once('end', ended);
    a.pipe(b);
    b.pipe(a);
  }

  /**
   * After a refusal: reads and drops whatever the client still sends (so its FIN is seen) and cuts
   * the socket if the client keeps its half open.
   */
  private drainAndLinger(socket: Duplex): void {
    socket.resume();
    const linger = setTimeout(() => socket.destroy(), this.halfOpenMs);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  }

  private refuse(socket: Duplex, status: number, body: object, id: string, headers: Record<string, string> = {}): void {
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const payload = JSON.stringify(body);
    this.drainAndLinger(socket);
    socket.end(
      rawHead(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(payload),
        'X-Request-Id': id,
        ...headers,
        Connection: 'close',
      }) + payload,
    );
  }

  /** The handshake's headers for the upstream: end-to-end ones, the upgrade itself, X-Forwarded-*. */
  private upstreamHeaders(req: IncomingMessage): Record<string, string | string[]> {
    // The Host header is kept: the hub compares it with the Origin for same-origin pages.
    const out = forwardedRequestHeaders(req, true);
    out.connection = 'Upgrade';
    out.upgrade = req.headers.upgrade ?? 'websocket';
    return out;
  }
}
