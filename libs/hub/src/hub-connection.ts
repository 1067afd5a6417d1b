import type { WebSocket } from 'ws';
import type { Principal } from '@flowplane/platform/auth';

/** Close codes the hub uses. */
export const HubCloseCode = {
  /** Server shutting down: reconnect (to another replica). */
  GOING_AWAY: 1001,
  /** Missed two pongs. */
  PING_TIMEOUT: 4000,
  /** Send queue (messages or bytes) full, or a write outlived WS_WRITE_TIMEOUT_SECONDS. */
  SLOW_CONSUMER: 4008,
} as const;

export type EvictionReason = 'queue' | 'bytes' | 'write_timeout';

export interface ConnectionLimits {
  /** Messages queued beyond what the socket took. */
  maxQueue: number;
  /** Bytes queued beyond what the socket took. */
  maxQueueBytes: number;
}

/** What a connection reports back to the hub. */
export interface ConnectionOwner {
  /** The connection was closed for being slow; the hub drops it from its rooms and counts it. */
  evicted(conn: HubConnection, reason: EvictionReason): void;
  /** The socket now has a write in flight that the kernel has not taken (write-timeout tracking). */
  backpressured(conn: HubConnection): void;
}

let nextId = 1;

/**
 * One client socket and its send queue. A message goes straight to the socket while the socket has
 * nothing buffered; otherwise it waits in this queue, which holds at most `maxQueue` messages and
 * `maxQueueBytes` bytes: the message that would overflow it closes the client with 4008
 * `slow consumer` instead. The queue drains as the socket's writes complete, so a slow client never
 * makes the hub buffer more than the caps, and never delays the other members (each send is a
 * non-blocking write or an array push).
 */
export class HubConnection {
  readonly id = nextId++;
  readonly rooms = new Set<string>();
  /** Time (ms) since which a write has been in flight without progress; 0 when the socket is idle. */
  pendingSince = 0;
  awaitingPong = false;
  missedPongs = 0;
  closed = false;
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private readonly onWritten = (err?: Error) => this.written(err);

  constructor(
    readonly ws: WebSocket,
    readonly principal: Principal | undefined,
    private readonly limits: ConnectionLimits,
    private readonly owner: ConnectionOwner,
  ) {}

  get queueLength(): number {
    return this.queue.length;
  }

  /**
   * Sends one serialised frame, encoded once as UTF-8 by the caller (a broadcast shares one buffer
   * among all members). Returns false when the client is gone or this message overflowed its queue
   * and evicted it.
   */
  send(frame: Buffer): boolean {
    const bytes = frame.length;
    if (this.closed) return false;
    if (this.queue.length === 0 && this.ws.bufferedAmount === 0) {
      this.write(frame);
      return true;
    }
    if (this.queue.length >= this.limits.maxQueue) {
      this.evict('queue');
      return false;
    }
    if (this.queuedBytes + bytes > this.limits.maxQueueBytes) {
      this.evict('bytes');
      return false;
    }
    this.queue.push(frame);
    this.queuedBytes += bytes;
    return true;
  }

  /** Closes the client as a slow consumer: drops its queue, sends 4008, and cuts it if it never reads it. */
  evict(reason: EvictionReason): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.owner.evicted(this, reason);
    this.closeThenCut(HubCloseCode.SLOW_CONSUMER, reason === 'write_timeout' ? 'write timeout' : 'slow consumer', 2000);
  }

  /**
   * Sends a close frame, and destroys the socket if the close handshake has not finished within
   * `graceMs` (a client that stopped reading never reads the close frame either).
   */
  closeThenCut(code: number, reason: string, graceMs: number): void {
    this.closed = true;
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
      return;
    }
    const cut = setTimeout(() => this.ws.terminate(), graceMs);
    cut.unref();
    this.ws.once('close', () => clearTimeout(cut));
  }

  private write(frame: Buffer): void {
    // A text frame from the shared buffer: no per-client encoding.
    this.ws.send(frame, { binary: false }, this.onWritten);
    if (this.ws.bufferedAmount > 0 && this.pendingSince === 0) {
      this.pendingSince = Date.now();
      this.owner.backpressured(this);
    }
  }

  /** A write completed: the socket made progress; move queued messages while it takes them at once. */
  private written(err?: Error): void {
    if (err || this.closed) return;
    if (this.ws.bufferedAmount > 0) {
      this.pendingSince = Date.now();
      return;
    }
    this.pendingSince = 0;
    while (this.queue.length > 0 && this.ws.bufferedAmount === 0 && !this.closed) {
      const frame = this.queue.shift()!;
      this.queuedBytes -= frame.length;
      this.write(frame);
    }
  }
}
