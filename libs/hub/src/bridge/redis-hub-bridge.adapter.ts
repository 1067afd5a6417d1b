import { Redis, type RedisOptions } from 'ioredis';
import { type BridgeMessage, type BridgeStatus, BridgeStateTracker, decodeBridgeMessage, encodeBridgeMessage, errorCode, type HubBridge } from './hub-bridge.port';

export interface RedisBridgeOptions {
  url: string;
  channel: string;
  replicaId: string;
  reconnectMs: number;
}

/**
 * HubBridge over Redis pub/sub: one channel, a publishing and a subscribing connection (a
 * subscribed connection cannot publish). ioredis reconnects both by itself; we subscribe again on
 * every `ready`. No offline queue: while Redis is down, publishes are dropped at once instead of
 * piling up and going out late (ADR 0008).
 */
export class RedisHubBridge implements HubBridge {
  readonly kind = 'redis' as const;
  private readonly tracker = new BridgeStateTracker('redis', 'connecting');
  private pub?: Redis;
  private sub?: Redis;
  private pubReady = false;
  private subReady = false;
  private closing = false;
  /** Set once a connection attempt failed or a connection dropped: from then on, not ready is `disconnected`. */
  private lost = false;

  constructor(private readonly o: RedisBridgeOptions) {}

  start(onMessage: (msg: BridgeMessage) => void, onState?: (s: BridgeStatus) => void): void {
    if (onState) this.tracker.setListener(onState);
    const options: RedisOptions = {
      enableOfflineQueue: false,
      autoResubscribe: false,
      maxRetriesPerRequest: 0,
      connectTimeout: Math.max(1000, this.o.reconnectMs * 2),
      retryStrategy: () => this.o.reconnectMs,
      connectionName: `flowplane-hub-${this.o.replicaId}`,
      lazyConnect: false,
    };
    this.pub = new Redis(this.o.url, options);
    this.sub = new Redis(this.o.url, options);
    const pub = this.pub;
    const sub = this.sub;
    pub.on('ready', () => {
      this.pubReady = true;
      this.update();
    });
    sub.on('ready', () => {
      sub.subscribe(this.o.channel).then(
        () => {
          this.subReady = true;
          this.update();
        },
        (e: unknown) => this.tracker.set(this.tracker.state, errorCode(e)),
      );
    });
    sub.on('message', (_channel: string, raw: string) => {
      const m = decodeBridgeMessage(raw);
      if (m) onMessage(m);
    });
    for (const [conn, which] of [
      [pub, 'pub'],
      [sub, 'sub'],
    ] as const) {
      conn.on('error', (e: unknown) => {
        this.lost = true;
        this.tracker.set(this.tracker.state, errorCode(e));
        this.update();
      });
      conn.on('close', () => {
        this.lost = true;
        if (which === 'pub') this.pubReady = false;
        else this.subReady = false;
        this.update();
      });
    }
  }

  publish(msg: BridgeMessage): boolean {
    if (this.tracker.state !== 'connected' || !this.pub) return false;
    this.pub.publish(this.o.channel, encodeBridgeMessage(msg)).catch((e: unknown) => this.tracker.set(this.tracker.state, errorCode(e)));
    return true;
  }

  status(): BridgeStatus {
    return this.tracker.status();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.tracker.set('closed');
    this.pub?.disconnect();
    this.sub?.disconnect();
  }

  private update(): void {
    if (this.closing) return;
    if (this.pubReady && this.subReady) this.tracker.set('connected');
    else if (this.lost) this.tracker.set('disconnected');
  }
}
