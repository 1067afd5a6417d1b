import type { CloudEvent } from '@flowplane/contracts';

/**
 * The EventBus port (ARCHITECTURE §2, §3). Domain code publishes and consumes through it; the
 * in-memory partitioned log and the Kafka adapter both implement it and pass the same contract
 * suite (event-bus.contract.ts).
 *
 * Semantics every adapter guarantees:
 * - payloads round-trip through JSON (a Date arrives as an ISO string);
 * - delivery is asynchronous, at-least-once, once per consumer group, ordered per key;
 * - an offset is committed only after its handler resolved (or the message was dead-lettered);
 * - a throwing handler is retried with exponential backoff, then the message is parked on
 *   `<topic>.dlq` with the error in the `dlq-*` headers.
 */

export interface PublishOptions {
  /** Partition key (the aggregate id). Events with the same key are delivered in publish order. */
  key?: string;
  /** Extra string headers; travel beside the envelope and reach consumers in `ctx.headers`. */
  headers?: Record<string, string>;
  /** CloudEvents extension: the kind of aggregate (for example `profile`). */
  entitytype?: string;
  /** CloudEvents extension: what happened (for example `created`). */
  action?: string;
  /** Envelope id; a fresh uuid when absent. The outbox passes its stored id so retries keep it. */
  id?: string;
  /** Envelope source; defaults to the bus' configured source. */
  source?: string;
  /** Envelope time (RFC 3339); defaults to now. The outbox passes the time of the state change. */
  time?: string;
}

export interface SubscribeOptions {
  /** Consumer group: each group receives every event once; members of a group share partitions. */
  groupId: string;
  /** Where a group with no committed offset starts: the oldest retained event, or (default) the log end. */
  fromBeginning?: boolean;
  /** Deliveries of one message before it is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Partitions this member processes in parallel (default 1, like kafkajs). */
  concurrency?: number;
  /** First retry delay; doubles per attempt up to `maxRetryDelayMs` (adapter default when absent). */
  retryDelayMs?: number;
  /** Cap on the retry delay. */
  maxRetryDelayMs?: number;
}

/** Where a delivered event came from; handlers use it for logs, dedup keys and DLQ inspection. */
export interface ConsumeContext {
  topic: string;
  partition: number;
  /** Offset within the partition, as a decimal string (Kafka offsets are int64). */
  offset: string;
  groupId: string;
  /** 1 on first delivery, incremented on every redelivery of the same message by this member. */
  attempt: number;
  key?: string;
  /** User headers (and `dlq-*` headers on a dead-letter topic); `ce_*` attributes are in the envelope. */
  headers: Record<string, string>;
}

export type EventHandler<T = unknown> = (event: CloudEvent<T>, ctx: ConsumeContext) => Promise<void>;

/** A running consumer. */
export interface Subscription {
  readonly groupId: string;
  readonly topics: readonly string[];
  /**
   * Times this member joined its group again after its first join (a rebalance, or a restart
   * after a crash); undefined where the adapter does not report it. Each may redeliver events
   * whose offsets were not committed yet (at-least-once).
   */
  readonly rebalances?: number;
  /**
   * Leaves the group: lets the in-flight handler finish and commits it, abandons a message that
   * is waiting for a retry (it stays uncommitted and is redelivered), never commits anything unprocessed.
   */
  stop(): Promise<void>;
}

export interface PartitionLag {
  partition: number;
  /** Next offset the group will process; null when the group has not committed on this partition. */
  committed: number | null;
  /** Offset the next published event will get (the high watermark). */
  end: number;
  lag: number;
}

export interface ConsumerLag {
  groupId: string;
  topic: string;
  /** Events published but not yet processed by the group, summed over partitions. */
  lag: number;
  partitions: PartitionLag[];
}

export interface BusCounters {
  published: number;
  /** Handler invocations that resolved. */
  delivered: number;
  /** Handler invocations that threw (each retry counts). */
  failed: number;
  deadLettered: number;
}

export interface BusStats {
  kind: 'memory' | 'kafka';
  consumers: ConsumerLag[];
  counters: BusCounters;
}

export interface EventBus {
  readonly kind: 'memory' | 'kafka';
  /** Appends one event; resolves with its envelope once the log (or the Kafka broker) accepted it. */
  publish<T>(topic: string, data: T, options?: PublishOptions): Promise<CloudEvent<T>>;
  /** Joins `options.groupId` on `topics`; resolves once the member is assigned and positioned. */
  subscribe<T = unknown>(
    topics: string[],
    options: SubscribeOptions,
    handler: EventHandler<T>,
  ): Promise<Subscription>;
  /** Resolves when the bus can publish and consume; rejects with the reason otherwise (for /readyz). */
  ping(): Promise<void>;
  /** Consumer lag per group and topic plus counters (for /readyz and /metrics). */
  stats(): Promise<BusStats>;
  /** Stops every subscription of this bus and releases connections; later calls reject. */
  close(): Promise<void>;
  /**
   * Makes sure `topics` exist with the configured partitions, replication and retention (Kafka:
   * through the admin API; idempotent, existing topics are left as they are). Adapters whose log
   * needs no provisioning leave it out. Rejects with the broker's reason when it refuses.
   */
  provision?(topics: readonly string[]): Promise<ProvisionResult>;
}

export interface ProvisionResult {
  /** Topics this call created. */
  created: string[];
  /** Topics that already existed. */
  existing: string[];
}

/** How the Kafka adapter creates topics (partitions, replication, retention), with per-topic overrides. */
export interface TopicSettings {
  partitions?: number;
  /** Copies of each partition; default min(3, brokers in the cluster). */
  replicationFactor?: number;
  /** `retention.ms`; the broker's default when absent. */
  retentionMs?: number;
  /** `min.insync.replicas`; the broker's default when absent. */
  minInSyncReplicas?: number;
}

/** Thrown when the broker refuses to create a topic (policy, replication, authorization). */
export class TopicProvisioningError extends Error {
  constructor(
    readonly topics: string[],
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Kafka refused to create topic${topics.length > 1 ? 's' : ''} ${topics.join(', ')}: ${reason}`, options);
    this.name = 'TopicProvisioningError';
  }
}

/** Minimal logger the adapters report to (pino and Nest's Logger both fit through a small adapter). */
export interface BusLogger {
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/** Headers added to a dead-lettered message (next to the original headers). */
export const DLQ_HEADERS = {
  error: 'dlq-error',
  topic: 'dlq-topic',
  partition: 'dlq-partition',
  offset: 'dlq-offset',
  group: 'dlq-group',
  attempts: 'dlq-attempts',
} as const;

/** Suffix of the dead-letter topic of a topic. */
export const DLQ_SUFFIX = '.dlq';

/** The dead-letter topic of `topic`. */
export function dlqTopic(topic: string): string {
  return topic + DLQ_SUFFIX;
}

/**
 * Thrown by a handler for a message that can never succeed (for example an invalid payload):
 * the bus skips the retries and dead-letters it at once.
 */
export class NonRetriableEventError extends Error {
  readonly retriable = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetriableEventError';
  }
}

/** Rejection of every call made after `close()`. */
export class BusClosedError extends Error {
  constructor() {
    super('event bus is closed');
    this.name = 'BusClosedError';
  }
}
