import { Gauge, type Registry } from 'prom-client';

/** The part of the EventBus port the metrics read (kept structural so health does not depend on bus). */
export interface BusStatsSource {
  stats(): Promise<{
    consumers: Array<{ groupId: string; topic: string; lag: number }>;
    counters: { published: number; delivered: number; failed: number; deadLettered: number };
  }>;
}

/**
 * Registers bus gauges read at scrape time: consumer lag per group and topic, and the adapter's
 * publish/deliver/fail/dead-letter counts (monotonic, exposed as gauges because the bus owns them).
 */
export function registerBusMetrics(registry: Registry, bus: BusStatsSource): void {
  let pending: ReturnType<BusStatsSource['stats']> | undefined;
  // One stats() call per scrape, shared by both gauges.
  const stats = () => (pending ??= bus.stats().finally(() => setTimeout(() => (pending = undefined), 0)));
  new Gauge({
    name: 'bus_consumer_lag',
    help: 'Events published but not yet processed, per consumer group and topic',
    labelNames: ['group', 'topic'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await stats()).consumers) this.set({ group: c.groupId, topic: c.topic }, c.lag);
    },
  });
  new Gauge({
    name: 'bus_events',
    help: 'Bus event counts since start, by outcome (published, delivered, failed attempts, dead_lettered)',
    labelNames: ['outcome'],
    registers: [registry],
    async collect() {
      const { counters } = await stats();
      this.set({ outcome: 'published' }, counters.published);
      this.set({ outcome: 'delivered' }, counters.delivered);
      this.set({ outcome: 'failed' }, counters.failed);
      this.set({ outcome: 'dead_lettered' }, counters.deadLettered);
    },
  });
}
