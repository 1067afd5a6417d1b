import { connect, DebugEvents, Events, type NatsConnection, type Subscription } from 'nats';
import { type BridgeMessage, type BridgeStatus, BridgeStateTracker, decodeBridgeMessage, encodeBridgeMessage, errorCode, type HubBridge } from './hub-bridge.port';

export interface NatsBridgeOptions {
  servers: string[];
  subject: string;
  replicaId: string;
  reconnectMs: number;
}

/**
 * HubBridge over NATS core pub/sub: one subject, fire-and-forget publishes. The first connection
 * is retried by us (so a hub starts without NATS); after that the client reconnects by itself and
 * re-subscribes. While disconnected, publishes are dropped rather than buffered: a realtime message
 * delivered to remote replicas minutes late is worse than one missed (ADR 0008).
 */
export class NatsHubBridge implements HubBridge {
  readonly kind = 'nats' as const;
  private readonly tracker = new BridgeStateTracker('nats', 'connecting');
  private nc?: NatsConnection;
  private sub?: Subscription;
  private retry?: NodeJS.Timeout;
  private closing = false;
  private onMessage: (m: BridgeMessage) => void = () => undefined;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(private readonly o: NatsBridgeOptions) {}

  start(onMessage: (msg: BridgeMessage) => void, onState?: (s: BridgeStatus) => void): void {
    this.onMessage = onMessage;
    if (onState) this.tracker.setListener(onState);
    void this.connectLoop();
  }

  publish(msg: BridgeMessage): boolean {
    if (this.tracker.state !== 'connected' || !this.nc) return false;
    try {
      this.nc.publish(this.o.subject, this.encoder.encode(encodeBridgeMessage(msg)));
      return true;
    } catch (e) {
      this.tracker.set('disconnected', errorCode(e));
      return false;
    }
  }

  status(): BridgeStatus {
    return this.tracker.status();
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    const nc = this.nc;
    this.nc = undefined;
    this.tracker.set('closed');
    if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
  }

  private async connectLoop(): Promise<void> {
    if (this.closing) return;
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: this.o.servers,
        name: `flowplane-hub-${this.o.replicaId}`,
        // Our own publishes never come back on this connection; the origin check covers the rest.
        noEcho: true,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: this.o.reconnectMs,
        reconnectJitter: Math.min(100, this.o.reconnectMs),
        timeout: Math.max(1000, this.o.reconnectMs),
        pingInterval: 10_000,
      });
    } catch (e) {
      this.tracker.set('disconnected', errorCode(e));
      if (!this.closing) this.retry = setTimeout(() => void this.connectLoop(), this.o.reconnectMs);
      return;
    }
    if (this.closing) {
      await nc.close().catch(() => undefined);
      return;
    }
    this.nc = nc;
    this.sub = nc.subscribe(this.o.subject, {
      callback: (err, msg) => {
        if (err) return;
        const m = decodeBridgeMessage(this.decoder.decode(msg.data));
        if (m) this.onMessage(m);
      },
    });
    void this.watch(nc);
    // The subscription is registered with the server once a flush round-trips.
    await nc.flush().catch(() => undefined);
    if (!nc.isClosed() && this.nc === nc) this.tracker.set('connected');
    const done = await nc.closed();
    if (this.closing) return;
    // Closed by the client library itself (should not happen with unlimited reconnects): start over.
    this.tracker.set('disconnected', done instanceof Error ? errorCode(done) : 'closed');
    this.nc = undefined;
    this.retry = setTimeout(() => void this.connectLoop(), this.o.reconnectMs);
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (this.closing || this.nc !== nc) return;
      if (s.type === Events.Disconnect || s.type === DebugEvents.Reconnecting || s.type === DebugEvents.StaleConnection) {
        this.tracker.set('disconnected', s.type === Events.Disconnect ? 'DISCONNECTED' : undefined);
      } else if (s.type === Events.Reconnect) {
        // Subscriptions are re-sent on reconnect; a flush confirms the server has them.
        void nc.flush().then(
          () => this.nc === nc && !this.closing && this.tracker.set('connected'),
          () => undefined,
        );
      } else if (s.type === Events.Error) {
        this.tracker.set(this.tracker.state, errorCode(s.data));
      }
    }
  }
}
