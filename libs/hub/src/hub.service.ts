import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Principal } from '@flowplane/platform/auth';
import type { BridgeMessage, BridgeStatus, HubBridge } from './bridge/hub-bridge.port';
import { encodeFrame } from './hub-envelope';
import { type ConnectionOwner, type EvictionReason, HubCloseCode, HubConnection } from './hub-connection';
import type { HubEnv } from './hub.env';
import type { HubMetrics } from './hub.metrics';

/** The settings the hub core needs, in milliseconds and counts. */
export interface HubSettings {
  replicaId: string;
  pingIntervalMs: number;
  writeTimeoutMs: number;
  sendBuffer: number;
  sendBufferBytes: number;
  maxFrameBytes: number;
  maxRoomsPerConnection: number;
  allowedOrigins: string[];
  requireAuth: boolean;
  mountPath: string;
}

export function hubSettingsFrom(c: HubEnv): HubSettings {
  return {
    replicaId: c.HUB_REPLICA_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    pingIntervalMs: Math.round(c.WS_PING_INTERVAL_SECONDS * 1000),
    writeTimeoutMs: Math.round(c.WS_WRITE_TIMEOUT_SECONDS * 1000),
    sendBuffer: c.WS_SEND_BUFFER,
    sendBufferBytes: c.WS_SEND_BUFFER_BYTES,
    maxFrameBytes: c.WS_MAX_FRAME_BYTES,
    maxRoomsPerConnection: c.WS_MAX_ROOMS_PER_CONNECTION,
    allowedOrigins: c.WS_ALLOWED_ORIGINS,
    requireAuth: c.WS_REQUIRE_AUTH,
    mountPath: c.WS_MOUNT_PATH.replace(/\/$/, ''),
  };
}

export interface BroadcastResult {
  room: string;
  /** Local members the message was handed to (queued or written). */
  delivered: number;
  /** Present and true when the message was also published to the coordinator. */
  bridged?: true;
}

/**
 * Rooms, members and delivery of one hub replica. Local delivery is synchronous and never touches
 * the bridge; a broadcast is published to the bridge after local delivery, fire and forget, and
 * messages from other replicas are delivered exactly like local ones. Our own echo is ignored.
 */
export class HubService implements ConnectionOwner {
  private readonly connections = new Set<HubConnection>();
  private readonly rooms = new Map<string, Set<HubConnection>>();
  private readonly bySub = new Map<string, number>();
  private readonly backpressure = new Set<HubConnection>();
  private pingTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private stopping?: Promise<void>;
  readonly startedAt = new Date();

  constructor(
    readonly settings: HubSettings,
    readonly bridge: HubBridge,
    private readonly metrics: HubMetrics,
  ) {
    metrics.bind(this);
    this.bridge.start(
      (m) => this.onBridgeMessage(m),
      (s) => this.metrics.bridgeState(s),
    );
    this.pingTimer = setInterval(() => this.pingAll(), settings.pingIntervalMs);
    this.pingTimer.unref();
    // Write timeouts are checked at a quarter of the timeout (at most once a second), only over
    // connections with a write in flight.
    this.sweepTimer = setInterval(() => this.sweepWrites(), Math.min(1000, Math.max(10, settings.writeTimeoutMs / 4)));
    this.sweepTimer.unref();
  }

  get shuttingDown(): boolean {
    return this.stopping !== undefined;
  }

  /** Registers an accepted socket. */
  add(ws: WebSocket, principal: Principal | undefined): HubConnection {
    const conn = new HubConnection(ws, principal, { maxQueue: this.settings.sendBuffer, maxQueueBytes: this.settings.sendBufferBytes }, this);
    this.connections.add(conn);
    if (principal) this.bySub.set(principal.sub, (this.bySub.get(principal.sub) ?? 0) + 1);
    ws.on('pong', () => {
      conn.awaitingPong = false;
      conn.missedPongs = 0;
    });
    ws.once('close', () => this.remove(conn));
    return conn;
  }

  /** Joins a room; false when the connection is already in the room limit. */
  join(conn: HubConnection, room: string): boolean {
    if (conn.rooms.has(room)) return true;
    if (conn.rooms.size >= this.settings.maxRoomsPerConnection) return false;
    let members = this.rooms.get(room);
    if (!members) this.rooms.set(room, (members = new Set()));
    members.add(conn);
    conn.rooms.add(room);
    return true;
  }

  leave(conn: HubConnection, room: string): void {
    if (!conn.rooms.delete(room)) return;
    const members = this.rooms.get(room);
    if (!members) return;
    members.delete(conn);
    if (members.size === 0) this.rooms.delete(room);
  }

  /** Sends a control envelope (ack, error) to one connection, through its queue. */
  reply(conn: HubConnection, type: string, room?: string, data?: unknown): void {
    const frame = encodeFrame(type, room, data);
    conn.send(Buffer.from(frame));
  }

  /** Fans a message out to the room here, then hands it to the bridge for the other replicas. */
  broadcast(room: string, type: string, data: unknown): BroadcastResult {
    const frame = encodeFrame(type, room, data);
    const delivered = this.deliver(room, frame);
    this.metrics.broadcast('local');
    const bridged = this.bridge.kind !== 'noop' && this.bridge.publish({ origin: this.settings.replicaId, room, frame });
    if (this.bridge.kind !== 'noop') this.metrics.bridgePublish(bridged);
    return bridged ? { room, delivered, bridged: true } : { room, delivered };
  }

  /** Serialised size of what a broadcast would send (for the size check before it). */
  frameBytes(room: string, type: string, data: unknown): number {
    return Buffer.byteLength(encodeFrame(type, room, data));
  }

  private onBridgeMessage(m: BridgeMessage): void {
    if (m.origin === this.settings.replicaId) return;
    this.metrics.broadcast('remote');
    this.deliver(m.room, m.frame);
  }

  private deliver(room: string, frame: string): number {
    const members = this.rooms.get(room);
    if (!members) return 0;
    const encoded = Buffer.from(frame);
    let delivered = 0;
    // Evicting a member deletes it from this set mid-iteration, which Set iteration tolerates.
    for (const m of members) if (m.send(encoded)) delivered++;
    this.metrics.delivered(delivered);
    return delivered;
  }

  evicted(conn: HubConnection, reason: EvictionReason): void {
    this.metrics.evicted(reason);
    this.detach(conn);
  }

  backpressured(conn: HubConnection): void {
    this.backpressure.add(conn);
  }

  private remove(conn: HubConnection): void {
    conn.closed = true;
    this.detach(conn);
    if (!this.connections.delete(conn)) return;
    const sub = conn.principal?.sub;
    if (sub !== undefined) {
      const n = (this.bySub.get(sub) ?? 1) - 1;
      if (n <= 0) this.bySub.delete(sub);
      else this.bySub.set(sub, n);
    }
  }

  private detach(conn: HubConnection): void {
    for (const room of [...conn.rooms]) this.leave(conn, room);
    this.backpressure.delete(conn);
  }

  private pingAll(): void {
    for (const conn of this.connections) {
      if (conn.closed) continue;
      if (conn.awaitingPong) {
        conn.missedPongs++;
        if (conn.missedPongs >= 2) {
          this.metrics.pingTimeout();
          this.detach(conn);
          conn.closeThenCut(HubCloseCode.PING_TIMEOUT, 'ping timeout', 1000);
          continue;
        }
      }
      conn.awaitingPong = true;
      try {
        conn.ws.ping();
      } catch {
        // closing socket; its close event cleans up
      }
    }
  }

  private sweepWrites(): void {
    if (this.backpressure.size === 0) return;
    const now = Date.now();
    for (const conn of this.backpressure) {
      if (conn.closed) this.backpressure.delete(conn);
      else if (conn.pendingSince === 0) this.backpressure.delete(conn);
      else if (now - conn.pendingSince > this.settings.writeTimeoutMs) conn.evict('write_timeout');
    }
  }

  /** Counts for /ws/health and /ws/info. */
  summary(): { connections: number; rooms: number; distributed: boolean; replicaId: string; coord: BridgeStatus } {
    const coord = this.bridge.status();
    return { connections: this.connections.size, rooms: this.rooms.size, distributed: coord.state === 'connected', replicaId: this.settings.replicaId, coord };
  }

  connectionsOf(sub: string): number {
    return this.bySub.get(sub) ?? 0;
  }

  roomCount(): number {
    return this.rooms.size;
  }

  /** Messages waiting in send queues; only backed-up connections can have any. */
  queuedMessages(): number {
    let n = 0;
    for (const c of this.backpressure) n += c.queueLength;
    return n;
  }

  connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Graceful shutdown: every client gets 1001 `server shutting down` (so it reconnects, to another
   * replica), sockets still open after `graceMs` are cut, then the bridge closes.
   */
  shutdown(graceMs: number): Promise<void> {
    return (this.stopping ??= (async () => {
      clearInterval(this.pingTimer);
      clearInterval(this.sweepTimer);
      const open = [...this.connections];
      const closed = open.map((c) => new Promise<void>((resolve) => (c.ws.readyState === c.ws.CLOSED ? resolve() : c.ws.once('close', () => resolve()))));
      for (const c of open) {
        this.detach(c);
        c.closeThenCut(HubCloseCode.GOING_AWAY, 'server shutting down', graceMs);
      }
      await Promise.all(closed);
      await this.bridge.close();
    })());
  }
}
