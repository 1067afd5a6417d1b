import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { InvalidTokenError, type Principal, type TokenVerifier } from '@flowplane/platform/auth';
import { errorBody, requestIdOf } from '@flowplane/platform/http';
import { encodeFrame, parseClientFrame, roomNameProblem } from './hub-envelope';
import type { HubConnection } from './hub-connection';
import type { HubMetrics } from './hub.metrics';
import type { HubService } from './hub.service';
import type { PolicyDecision, RoomPolicy } from './room-policy';

/** How long a refused client may keep its half of the connection open after the answer. */
const REFUSED_LINGER_MS = 5000;

const log = new Logger('HubSockets');

/**
 * Refuses an upgrade with a JSON error body before any WebSocket exists. The server's sockets allow
 * half-open connections, so after the answer the client's input is read and dropped (to see its
 * FIN) and a client that never closes its half is cut after REFUSED_LINGER_MS.
 */
function refuse(socket: Duplex, status: number, message: string, code: string | undefined, requestId: string): void {
  let errorId: string | undefined;
  if (status >= 500) {
    errorId = randomUUID();
    log.warn({ errorId, requestId, code }, `WebSocket upgrade refused: ${message}`);
  }
  const body = JSON.stringify(errorBody(status, message, { code, requestId, ...(errorId ? { errorId } : {}) }));
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim();
}

/**
 * True when the handshake's Origin may connect: no Origin header (a non-browser client, which no
 * page can make send this request), an origin on the allow-list (`*` for any), or the same origin
 * as the request's host, which is always allowed (the gateway keeps the Host header when it proxies).
 */
export function originAllowed(req: IncomingMessage, allowed: string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const normalised = origin.replace(/\/$/, '').toLowerCase();
  if (allowed.includes('*') || allowed.some((a) => a.replace(/\/$/, '').toLowerCase() === normalised)) return true;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  const hosts = [firstHeader(req.headers.host), firstHeader(req.headers['x-forwarded-host'])].filter(Boolean).map((h) => h!.toLowerCase());
  return hosts.includes(host);
}

/** Frames that may wait behind a room-policy lookup before the socket is paused. */
const MAX_WAITING_FRAMES = 64;

function isPromiseLike<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/**
 * The rooms an upgrade pre-joins: `session_id` and `room`, each at most once. Given together, both
 * are joined (once when they name the same room); a repeated, invalid or over-limit room refuses
 * the whole upgrade, so an upgrade is never half applied.
 */
export function preJoinRooms(query: URLSearchParams, maxRooms: number): { rooms: string[] } | { problem: string } {
  const rooms: string[] = [];
  for (const param of ['session_id', 'room']) {
    const values = query.getAll(param);
    if (values.length > 1) return { problem: `${param} may be given once` };
    if (values.length === 0) continue;
    const problem = roomNameProblem(values[0]);
    if (problem) return { problem: `${param}: ${problem}` };
    if (!rooms.includes(values[0])) rooms.push(values[0]);
  }
  if (rooms.length > maxRooms) return { problem: `a connection may be in at most ${maxRooms} rooms` };
  return { rooms };
}

/**
 * The hub's WebSocket endpoints on the HTTP server: `<mount>/connect` (rooms and broadcasts) and
 * `<mount>/health` (a reachability socket: `health` on connect, `pong` to a ping). Every check of
 * the upgrade (path, origin, token, pre-joined room) runs before the handshake, so a refused
 * client gets a plain HTTP status and no socket ever exists for it.
 */
export class HubSockets {
  private readonly wss: WebSocketServer;
  private readonly healthSockets = new Set<WebSocket>();
  /** Frames of a connection waiting behind one whose room-policy lookup is still running. */
  private readonly inboxes = new WeakMap<HubConnection, Array<{ data: RawData; isBinary: boolean }>>();
  /** The request id of each upgrade (the gateway's, when it forwarded one), for refusals. */
  private readonly requestIds = new WeakMap<Duplex, string>();
  private readonly connectPath: string;
  private readonly healthPath: string;
  private stopping?: Promise<void>;

  constructor(
    private readonly hub: HubService,
    private readonly verifier: TokenVerifier,
    private readonly policy: RoomPolicy,
    private readonly metrics: HubMetrics,
  ) {
    const s = hub.settings;
    // Frames up to 4x the cap are read and answered with an error envelope; beyond that ws closes
    // the socket with 1009 before buffering more.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: s.maxFrameBytes * 4, perMessageDeflate: false, clientTracking: false });
    this.connectPath = `${s.mountPath}/connect`;
    this.healthPath = `${s.mountPath}/health`;
  }

  /** The server's `upgrade` listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    this.requestIds.set(socket, requestIdOf(req));
    // An exception here would escape the server's 'upgrade' event and end the process.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://hub.invalid');
    } catch {
      return this.refuse(socket, 400, 'invalid request target', 'INVALID_REQUEST_TARGET');
    }
    if (this.stopping) return this.refuse(socket, 503, 'hub is shutting down; reconnect', 'HUB_SHUTTING_DOWN');
    if (url.pathname === this.healthPath) {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onHealthSocket(ws));
      return;
    }
    if (url.pathname !== this.connectPath) return this.refuse(socket, 404, `no WebSocket endpoint at ${url.pathname}; connect to ${this.connectPath}`, 'ROUTE_NOT_FOUND');
    if (this.hub.shuttingDown) return this.refuse(socket, 503, 'hub is shutting down; reconnect', 'HUB_SHUTTING_DOWN');
    if (!originAllowed(req, this.hub.settings.allowedOrigins)) return this.refuse(socket, 403, 'origin not allowed', 'ORIGIN_NOT_ALLOWED');
    const rooms = preJoinRooms(url.searchParams, this.hub.settings.maxRoomsPerConnection);
    if ('problem' in rooms) return this.refuse(socket, 400, rooms.problem, 'HUB_INVALID_ROOM');
    const token = url.searchParams.get('token') ?? undefined;
    // Last resort: whatever fails while admitting costs this socket, not the process.
    this.admit(req, socket, head, token, rooms.rooms).catch(() => socket.destroy());
  }

  private async admit(req: IncomingMessage, socket: Duplex, head: Buffer, token: string | undefined, rooms: string[]): Promise<void> {
    let principal: Principal | undefined;
    if (token) {
      try {
        principal = await this.verifier.verify(token);
      } catch (e) {
        return this.refuse(socket, 401, e instanceof InvalidTokenError ? e.message : 'token is invalid', 'UNAUTHORIZED');
      }
      if (!principal.active) return this.refuse(socket, 403, 'user is inactive', 'FORBIDDEN');
    } else if (this.hub.settings.requireAuth) {
      return this.refuse(socket, 401, 'missing token: pass it in the token query parameter', 'UNAUTHORIZED');
    }
    // Every pre-joined room passes before the socket exists: all of them are joined, or none is.
    for (const room of rooms) {
      let decision: PolicyDecision;
      try {
        decision = await this.policy.canJoin(principal, room);
      } catch {
        return this.refuse(socket, 503, 'room policy is unavailable; retry', 'ROOM_POLICY_UNAVAILABLE');
      }
      if (decision !== true) return this.refuse(socket, 403, decision, 'HUB_FORBIDDEN');
    }
    if (socket.destroyed) return;
    if (this.hub.shuttingDown) return this.refuse(socket, 503, 'hub is shutting down; reconnect', 'HUB_SHUTTING_DOWN');
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = this.hub.add(ws, principal);
      ws.on('message', (data, isBinary) => this.received(conn, data, isBinary));
      ws.on('error', () => ws.terminate());
      for (const room of rooms) {
        this.hub.join(conn, room);
        this.hub.reply(conn, 'subscribed', room);
      }
    });
  }

  /**
   * Handles a client's frames one at a time, in the order they came: a frame that waits for an
   * async room-policy lookup holds the frames behind it, so every answer (ack, pong, error) goes
   * out in the order of the frames it answers, and an unsubscribe sent after a subscribe is applied
   * after it. While too many frames wait, the socket is paused (backpressure rather than an
   * unbounded inbox) and resumed once they are handled.
   */
  private received(conn: HubConnection, data: RawData, isBinary: boolean): void {
    const inbox = this.inboxes.get(conn);
    if (inbox) {
      inbox.push({ data, isBinary });
      if (inbox.length >= MAX_WAITING_FRAMES && !conn.ws.isPaused) conn.ws.pause();
      return;
    }
    this.handleInOrder(conn, [{ data, isBinary }]);
  }

  private handleInOrder(conn: HubConnection, inbox: Array<{ data: RawData; isBinary: boolean }>): void {
    while (inbox.length > 0) {
      const { data, isBinary } = inbox.shift()!;
      let pending: Promise<void> | void;
      try {
        pending = this.onFrame(conn, data, isBinary);
      } catch (err) {
        pending = Promise.reject(err);
      }
      if (pending) {
        this.inboxes.set(conn, inbox);
        pending
          // A room policy may look rooms up: its failure answers the frame, it never goes unhandled.
          .catch(() => this.hub.reply(conn, 'error', undefined, { code: 'unavailable', message: 'the hub could not handle this frame; retry' }))
          .finally(() => {
            this.inboxes.delete(conn);
            this.handleInOrder(conn, inbox);
          });
        return;
      }
    }
    // Also after an eviction: the close handshake needs the client's close frame read.
    if (conn.ws.isPaused) conn.ws.resume();
  }

  /** Answers one frame; returns a promise only while an async room policy decides a subscribe. */
  private onFrame(conn: HubConnection, data: RawData, isBinary: boolean): Promise<void> | void {
    if (conn.closed) return;
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
    if (size > this.hub.settings.maxFrameBytes) {
      return this.hub.reply(conn, 'error', undefined, { code: 'frame_too_large', message: `frame is larger than ${this.hub.settings.maxFrameBytes} bytes` });
    }
    if (isBinary) return this.hub.reply(conn, 'error', undefined, { code: 'invalid_frame', message: 'binary frames are not accepted; send JSON text' });
    const frame = parseClientFrame(data.toString());
    if ('error' in frame) return this.hub.reply(conn, 'error', frame.room, { code: 'invalid_frame', message: frame.error });
    if (frame.action === 'ping') return this.hub.reply(conn, 'pong');
    if (frame.action === 'unsubscribe') {
      this.hub.leave(conn, frame.room);
      return this.hub.reply(conn, 'unsubscribed', frame.room);
    }
    const room = frame.room;
    const decision = this.policy.canJoin(conn.principal, room);
    // A synchronous policy (the default) answers at once; only a lookup makes later frames wait.
    if (isPromiseLike(decision)) return Promise.resolve(decision).then((d) => this.subscribe(conn, room, d));
    this.subscribe(conn, room, decision);
  }

  /** Joins and acks in one step, so no broadcast to the room can come between them. */
  private subscribe(conn: HubConnection, room: string, decision: PolicyDecision): void {
    if (conn.closed) return;
    if (decision !== true) return this.hub.reply(conn, 'error', room, { code: 'forbidden', message: decision });
    if (!this.hub.join(conn, room)) {
      return this.hub.reply(conn, 'error', room, { code: 'too_many_rooms', message: `a connection may be in at most ${this.hub.settings.maxRoomsPerConnection} rooms` });
    }
    this.hub.reply(conn, 'subscribed', room);
  }

  private onHealthSocket(ws: WebSocket): void {
    this.healthSockets.add(ws);
    ws.once('close', () => this.healthSockets.delete(ws));
    ws.on('error', () => ws.terminate());
    ws.send(encodeFrame('health', undefined, { status: 'ok' }));
    ws.on('message', (raw) => {
      const frame = parseClientFrame(raw.toString());
      if ('action' in frame && frame.action === 'ping') ws.send(encodeFrame('pong'));
      else ws.send(encodeFrame('error', undefined, { code: 'invalid_frame', message: 'unsupported action; use {"action":"ping"}' }));
    });
  }

  private refuse(socket: Duplex, status: number, message: string, code?: string): void {
    this.metrics.upgradeRefused(status);
    refuse(socket, status, message, code, this.requestIds.get(socket) ?? randomUUID());
  }

  /** Closes every socket with 1001, cutting those that have not closed after `graceMs`. Idempotent. */
  shutdown(graceMs: number): Promise<void> {
    return (this.stopping ??= (async () => {
      const health = [...this.healthSockets].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            const cut = setTimeout(() => ws.terminate(), graceMs);
            cut.unref();
            ws.once('close', () => clearTimeout(cut));
            ws.close(1001, 'server shutting down');
          }),
      );
      await Promise.all([this.hub.shutdown(graceMs), ...health]);
      this.wss.close();
    })());
  }
}
