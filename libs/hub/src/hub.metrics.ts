import { Counter, Gauge, type Registry } from 'prom-client';
import type { BridgeStatus } from './bridge/hub-bridge.port';
import type { EvictionReason } from './hub-connection';

interface Counts {
  connectionCount(): number;
  roomCount(): number;
  queuedMessages(): number;
}

/** The hub's Prometheus metrics, in the service registry (`GET /metrics`). */
export class HubMetrics {
  private hub?: Counts;
  private readonly evictions: Counter<'reason'>;
  private readonly broadcasts: Counter<'origin'>;
  private readonly deliveries: Counter;
  private readonly pingTimeouts: Counter;
  private readonly bridgePublished: Counter<'result'>;
  private readonly bridgeUp: Gauge;
  private readonly refused: Counter<'status'>;

  constructor(registry: Registry) {
    const registers = [registry];
    // The gauges read the hub when scraped, so delivery pays nothing for them.
    const read = (pick: (hub: Counts) => number) => () => (this.hub ? pick(this.hub) : 0);
    const gauge = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value());
        },
      });
    gauge('hub_connections', 'Open WebSocket connections on this replica', read((h) => h.connectionCount()));
    gauge('hub_send_queue_messages', 'Messages waiting in client send queues (clients whose sockets are backed up)', read((h) => h.queuedMessages()));
    gauge('hub_rooms', 'Rooms with at least one local member', read((h) => h.roomCount()));
    this.evictions = new Counter({ name: 'hub_slow_consumer_evictions_total', help: 'Clients closed with 4008: send queue full (queue, bytes) or a write past WS_WRITE_TIMEOUT_SECONDS', labelNames: ['reason'], registers });
    for (const reason of ['queue', 'bytes', 'write_timeout']) this.evictions.inc({ reason }, 0);
    this.broadcasts = new Counter({ name: 'hub_broadcasts_total', help: 'Broadcasts fanned out here, by origin (local: this replica; remote: another replica via the bridge)', labelNames: ['origin'], registers });
    this.deliveries = new Counter({ name: 'hub_messages_delivered_total', help: 'Broadcast messages handed to local clients', registers });
    this.pingTimeouts = new Counter({ name: 'hub_ping_timeouts_total', help: 'Clients closed after missing two pongs', registers });
    this.bridgePublished = new Counter({ name: 'hub_bridge_publish_total', help: 'Broadcasts offered to the coordinator (sent, or dropped while it was unreachable)', labelNames: ['result'], registers });
    this.bridgeUp = new Gauge({ name: 'hub_bridge_connected', help: '1 when the cross-replica bridge is connected', registers });
    this.refused = new Counter({ name: 'hub_upgrades_refused_total', help: 'WebSocket upgrades refused, by HTTP status', labelNames: ['status'], registers });
  }

  bind(hub: Counts): void {
    this.hub = hub;
  }
  evicted(reason: EvictionReason): void {
    this.evictions.inc({ reason });
  }
  broadcast(origin: 'local' | 'remote'): void {
    this.broadcasts.inc({ origin });
  }
  delivered(n: number): void {
    if (n > 0) this.deliveries.inc(n);
  }
  pingTimeout(): void {
    this.pingTimeouts.inc();
  }
  bridgePublish(sent: boolean): void {
    this.bridgePublished.inc({ result: sent ? 'sent' : 'dropped' });
  }
  bridgeState(s: BridgeStatus): void {
    this.bridgeUp.set(s.state === 'connected' ? 1 : 0);
  }
  upgradeRefused(status: number): void {
    this.refused.inc({ status: String(status) });
  }
}
