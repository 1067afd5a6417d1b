import type { BusLogger, EventBus } from './event-bus.port';
import { KafkaEventBus, type KafkaEventBusOptions } from './kafka-event-bus.adapter';
import { MemoryEventBus, type MemoryEventBusOptions } from './memory-event-bus.adapter';

/** Options both adapters understand. */
interface CommonBusOptions {
  /** Envelope `source` when a publish does not name one (for example `/services/profiles`). */
  source?: string;
  maxAttempts?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  logger?: BusLogger;
}

export interface CreateEventBusOptions extends CommonBusOptions {
  bus: 'memory' | 'kafka';
  /** Memory adapter settings (partitions, retention); ignored for kafka. */
  memory?: Omit<MemoryEventBusOptions, keyof CommonBusOptions>;
  /** Kafka adapter settings; `brokers` is required when `bus` is kafka. */
  kafka?: Omit<KafkaEventBusOptions, keyof CommonBusOptions>;
}

/** Creates the adapter named by `options.bus` (`memory` embedded default, `kafka` production). */
export function createEventBus(options: CreateEventBusOptions): EventBus {
  const { bus, memory, kafka, ...common } = options;
  const defined = Object.fromEntries(
    Object.entries(common).filter(([, v]) => v !== undefined),
  ) as CommonBusOptions;
  switch (bus) {
    case 'memory':
      return new MemoryEventBus({ ...memory, ...defined });
    case 'kafka':
      if (!kafka?.brokers?.length) throw new TypeError('bus kafka needs kafka.brokers');
      return new KafkaEventBus({ ...kafka, ...defined });
    default:
      throw new TypeError(`unknown bus ${JSON.stringify(bus)} (expected memory or kafka)`);
  }
}

/**
 * Bus options from the environment (ARCHITECTURE §2): `BUS=memory|kafka` (default memory),
 * `KAFKA_BROKERS` (comma-separated, required for kafka), `KAFKA_CLIENT_ID`, `KAFKA_IDEMPOTENT=1|true`.
 */
export function eventBusOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  defaults: CommonBusOptions & { clientId?: string } = {},
): CreateEventBusOptions {
  const { clientId, ...common } = defaults;
  const bus = (env.BUS ?? 'memory').trim().toLowerCase();
  if (bus === 'memory') return { ...common, bus: 'memory' };
  if (bus !== 'kafka') throw new TypeError(`BUS must be memory or kafka, got ${JSON.stringify(env.BUS)}`);
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new TypeError('BUS=kafka needs KAFKA_BROKERS (host:port[,host:port...])');
  return {
    ...common,
    bus: 'kafka',
    kafka: {
      brokers,
      clientId: env.KAFKA_CLIENT_ID || clientId,
      idempotent: /^(1|true|yes)$/i.test(env.KAFKA_IDEMPOTENT ?? ''),
    },
  };
}
