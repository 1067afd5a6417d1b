import type { CloudEvent } from '@flowplane/contracts';
import { assertHeaders, assertTopic, buildEnvelope, describeError } from './cloud-event.util';
import { checkSubscription, deliver, newCounters, type Delivery, type RetryPolicy } from './delivery.util';
import {
  BusClosedError,
  DLQ_HEADERS,
  dlqTopic,
  type BusCounters,
  type BusLogger,
  type BusStats,
  type ConsumeContext,
  type ConsumerLag,
  type EventBus,
  type EventHandler,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from './event-bus.port';

export interface MemoryEventBusOptions {
  /** Partitions of a topic created on first use (default 4, Kafka's auto-create default here). */
  partitions?: number;
  /** Per-topic partition counts, for topics that need more (or fewer) than the default. */
  topicPartitions?: Record<string, number>;
  /** Envelope `source` when a publish does not name one. */
  source?: string;
  /**
   * Retention: the most events a partition keeps. Events every known group has committed are
   * dropped as soon as a whole segment is behind all of them; this cap additionally bounds the log
   * when a group lags or no group reads the topic (the oldest segment goes, like Kafka's
   * `retention.bytes`, and a group that had not read it skips ahead, with a warning). Default 100,000.
   */
  maxMessagesPerPartition?: number;
  /** Events per log segment, the unit of retention (default 1024). */
  segmentSize?: number;
  /** Events one member processes from one partition before letting other partitions have a turn (default 1000). */
  maxBatch?: number;
  /** Defaults for subscriptions that do not set them. */
  maxAttempts?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  logger?: BusLogger;
}

interface LogEntry {
  offset: number;
  key: string | undefined;
  /** The whole envelope as JSON: every delivery parses a fresh copy, as a Kafka consumer would. */
  value: string;
  headers: Readonly<Record<string, string>>;
}

/** One partition: an append-only log kept as fixed-size segments so retention drops whole arrays. */
class PartitionLog {
  /** Every group's position on this partition (kept after members leave, like Kafka's committed offsets). */
  readonly cursors: Cursor[] = [];
  base = 0;
  end = 0;
  private segments: LogEntry[][] = [[]];

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly segmentSize: number,
  ) {}

  append(key: string | undefined, value: string, headers: Readonly<Record<string, string>>): LogEntry {
    let last = this.segments[this.segments.length - 1];
    if (last.length === this.segmentSize) {
      last = [];
      this.segments.push(last);
    }
    const entry: LogEntry = { offset: this.end, key, value, headers };
    last.push(entry);
    this.end++;
    return entry;
  }

  at(offset: number): LogEntry {
    const i = offset - this.base;
    return this.segments[Math.floor(i / this.segmentSize)][i % this.segmentSize];
  }

  /** Drops whole segments lying entirely below `offset`; returns how many events went. */
  trimBelow(offset: number): number {
    let dropped = 0;
    while (this.segments.length > 1 && this.base + this.segmentSize <= offset) {
      this.segments.shift();
      this.base += this.segmentSize;
      dropped += this.segmentSize;
    }
    return dropped;
  }
}

interface Topic {
  name: string;
  logs: PartitionLog[];
  /** Next partition for a keyless event (round robin, as Kafka's default partitioner did before sticky batching). */
  next: number;
}

/** A group's position on one partition. In memory the committed offset IS the read position. */
class Cursor {
  busy = false;
  queued = false;
  owner: Member | null = null;
  constructor(
    readonly group: Group,
    readonly log: PartitionLog,
    public committed: number,
  ) {}
}

class Group {
  readonly members: Member[] = [];
  readonly cursors = new Map<string, Cursor[]>();
  constructor(readonly id: string) {}
}

interface Sleeper {
  timer: NodeJS.Timeout;
  resolve(proceed: boolean): void;
}

class Member {
  active = 0;
  stopping = false;
  readonly waiting = new Set<Cursor>();
  readonly sleepers = new Map<Cursor, Sleeper>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly group: Group,
    readonly topics: readonly string[],
    readonly handler: EventHandler,
    readonly policy: RetryPolicy,
    readonly concurrency: number,
  ) {}

  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  wake(cursor: Cursor): void {
    const s = this.sleepers.get(cursor);
    if (!s) return;
    this.sleepers.delete(cursor);
    clearTimeout(s.timer);
    s.resolve(false);
  }
}

const silentLogger: BusLogger = { warn: () => undefined, error: () => undefined };
const consoleLogger: BusLogger = {
  warn: (m, meta) => console.warn(m, meta ?? ''),
  error: (m, meta) => console.error(m, meta ?? ''),
};

/** FNV-1a over the key's UTF-16 units: cheap, stable across processes, spreads short ids well. */
function partitionOf(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}

/**
 * The embedded EventBus: an in-process partitioned log with consumer groups and committed
 * offsets that behaves like Kafka where domain code can tell (see the port's semantics).
 *
 * Delivery never runs inside `publish`: a publish appends and queues the partition's cursors,
 * and ONE `setImmediate` per event-loop turn starts a drain per ready (group, partition). A drain
 * processes up to `maxBatch` events back to back with no timer per event, which is what makes
 * 100k+ events/s possible; timers exist only for retry backoff.
 */
export class MemoryEventBus implements EventBus {
  readonly kind = 'memory' as const;
  private readonly topics = new Map<string, Topic>();
  private readonly groups = new Map<string, Group>();
  private readonly members = new Set<Member>();
  private readonly counters: BusCounters = newCounters();
  private pending: Cursor[] = [];
  private tickScheduled = false;
  private closed = false;
  private readonly defaultPartitions: number;
  private readonly segmentSize: number;
  private readonly maxMessages: number;
  private readonly maxBatch: number;
  private readonly source: string;
  private readonly logger: BusLogger;
  private readonly retryDefaults: Partial<RetryPolicy>;
  private readonly tick = (): void => this.runTick();

  constructor(private readonly options: MemoryEventBusOptions = {}) {
    this.defaultPartitions = positiveInt(options.partitions ?? 4, 'partitions');
    this.segmentSize = positiveInt(options.segmentSize ?? 1024, 'segmentSize');
    this.maxMessages = Math.max(
      positiveInt(options.maxMessagesPerPartition ?? 100_000, 'maxMessagesPerPartition'),
      this.segmentSize,
    );
    this.maxBatch = positiveInt(options.maxBatch ?? 1000, 'maxBatch');
    this.source = options.source ?? '/flowplane';
    this.logger = options.logger ?? consoleLogger;
    this.retryDefaults = {
      maxAttempts: options.maxAttempts,
      retryDelayMs: options.retryDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs,
    };
  }

  /** A bus that logs nothing (tests, benchmarks). */
  static silent(options: Omit<MemoryEventBusOptions, 'logger'> = {}): MemoryEventBus {
    return new MemoryEventBus({ ...options, logger: silentLogger });
  }

  async publish<T>(topic: string, data: T, options: PublishOptions = {}): Promise<CloudEvent<T>> {
    if (this.closed) throw new BusClosedError();
    assertTopic(topic);
    if (data === undefined || typeof data === 'function' || typeof data === 'symbol') {
      throw new TypeError('event data must be JSON-serialisable (got undefined, a function or a symbol)');
    }
    assertHeaders(options.headers);
    const envelope = buildEnvelope(topic, data, options, this.source);
    // Serialising here (not at delivery) makes a later mutation of `data` by the publisher
    // invisible to consumers, and surfaces cycles/BigInt as a rejected publish.
    const value = JSON.stringify(envelope);
    const headers = options.headers ? Object.freeze({ ...options.headers }) : EMPTY_HEADERS;
    this.append(topic, options.key, value, headers);
    this.counters.published++;
    return envelope;
  }

  async subscribe<T = unknown>(
    topics: string[],
    options: SubscribeOptions,
    handler: EventHandler<T>,
  ): Promise<Subscription> {
    if (this.closed) throw new BusClosedError();
    const { topics: unique, policy, concurrency } = checkSubscription(topics, options, handler, this.retryDefaults);

    let group = this.groups.get(options.groupId);
    if (!group) {
      group = new Group(options.groupId);
      this.groups.set(group.id, group);
    }
    for (const name of unique) this.ensureCursors(group, this.topic(name), options.fromBeginning === true);
    const member = new Member(group, unique, handler as EventHandler, policy, concurrency);
    group.members.push(member);
    this.members.add(member);
    this.rebalance(group);

    let stopped: Promise<void> | undefined;
    return {
      groupId: group.id,
      topics: unique,
      stop: () => (stopped ??= this.leave(member)),
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new BusClosedError();
  }

  async stats(): Promise<BusStats> {
    const consumers: ConsumerLag[] = [];
    for (const group of this.groups.values()) {
      for (const [topic, cursors] of group.cursors) {
        const partitions = cursors.map((c) => {
          const end = c.log.end;
          const lag = end - Math.max(c.committed, c.log.base);
          return { partition: c.log.partition, committed: c.committed, end, lag };
        });
        consumers.push({
          groupId: group.id,
          topic,
          lag: partitions.reduce((s, p) => s + p.lag, 0),
          partitions,
        });
      }
    }
    return { kind: 'memory', consumers, counters: { ...this.counters } };
  }

  /** The retained offset range of each partition of `topic` (empty when the topic was never used). */
  retained(topic: string): Array<{ partition: number; start: number; end: number }> {
    return (this.topics.get(topic)?.logs ?? []).map((l) => ({
      partition: l.partition,
      start: l.base,
      end: l.end,
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.members].map((m) => this.leave(m)));
    this.pending = [];
  }

  private topic(name: string): Topic {
    let topic = this.topics.get(name);
    if (!topic) {
      const count = positiveInt(
        this.options.topicPartitions?.[name] ?? this.defaultPartitions,
        `partitions of ${name}`,
      );
      topic = { name, logs: [], next: 0 };
      for (let p = 0; p < count; p++) topic.logs.push(new PartitionLog(name, p, this.segmentSize));
      this.topics.set(name, topic);
    }
    return topic;
  }

  private append(
    topicName: string,
    key: string | undefined,
    value: string,
    headers: Readonly<Record<string, string>>,
  ): void {
    const topic = this.topic(topicName);
    const n = topic.logs.length;
    const log = topic.logs[key === undefined ? topic.next++ % n : partitionOf(key, n)];
    log.append(key, value, headers);
    if (log.end - log.base > this.maxMessages + this.segmentSize) this.enforceCap(log);
    const cursors = log.cursors;
    for (let i = 0; i < cursors.length; i++) this.enqueue(cursors[i]);
  }

  private enforceCap(log: PartitionLog): void {
    log.trimBelow(log.end - this.maxMessages);
    for (const c of log.cursors) {
      if (c.committed < log.base && !c.busy) {
        this.logger.warn('event bus retention dropped events a group had not processed', {
          topic: log.topic,
          partition: log.partition,
          groupId: c.group.id,
          skipped: log.base - c.committed,
        });
        c.committed = log.base;
      }
    }
  }

  /** Drops segments every group has committed past (only when some group reads the partition). */
  private trimCommitted(log: PartitionLog): void {
    const cursors = log.cursors;
    if (cursors.length === 0) return;
    let min = Infinity;
    for (const c of cursors) if (c.committed < min) min = c.committed;
    if (min - log.base >= this.segmentSize) log.trimBelow(min);
  }

  private ensureCursors(group: Group, topic: Topic, fromBeginning: boolean): void {
    if (group.cursors.has(topic.name)) return;
    const cursors = topic.logs.map((log) => {
      const c = new Cursor(group, log, fromBeginning ? log.base : log.end);
      log.cursors.push(c);
      return c;
    });
    group.cursors.set(topic.name, cursors);
  }

  /** Spreads each topic's partitions over the group's live members subscribed to it, in join order. */
  private rebalance(group: Group): void {
    for (const [topic, cursors] of group.cursors) {
      const eligible = group.members.filter((m) => !m.stopping && m.topics.includes(topic));
      cursors.forEach((c, i) => {
        const owner = eligible.length ? eligible[i % eligible.length] : null;
        if (c.owner === owner) return;
        // A member losing a partition while it waits for a retry gives the message up at once;
        // it stays uncommitted and the new owner redelivers it.
        c.owner?.wake(c);
        c.owner?.waiting.delete(c);
        c.owner = owner;
        this.enqueue(c);
      });
    }
  }

  private async leave(member: Member): Promise<void> {
    if (!this.members.has(member)) return member.whenIdle();
    member.stopping = true;
    const group = member.group;
    group.members.splice(group.members.indexOf(member), 1);
    for (const c of [...member.sleepers.keys()]) member.wake(c);
    member.waiting.clear();
    this.rebalance(group);
    await member.whenIdle();
    this.members.delete(member);
  }

  private enqueue(c: Cursor): void {
    if (c.queued || c.busy || c.owner === null || c.committed >= c.log.end) return;
    c.queued = true;
    this.pending.push(c);
    if (!this.tickScheduled) {
      this.tickScheduled = true;
      setImmediate(this.tick);
    }
  }

  private runTick(): void {
    this.tickScheduled = false;
    if (this.closed) return;
    const ready = this.pending;
    this.pending = [];
    for (const c of ready) {
      c.queued = false;
      const m = c.owner;
      if (c.busy || m === null || m.stopping || c.committed >= c.log.end) continue;
      if (m.active >= m.concurrency) {
        m.waiting.add(c);
        continue;
      }
      c.busy = true;
      m.active++;
      void this.drain(c, m);
    }
  }

  private async drain(c: Cursor, m: Member): Promise<void> {
    const log = c.log;
    const groupId = c.group.id;
    try {
      for (let n = 0; n < this.maxBatch && c.owner === m && !m.stopping; n++) {
        if (c.committed < log.base) c.committed = log.base;
        if (c.committed >= log.end) break;
        const entry = log.at(c.committed);
        // Attempt 1 inline: the common path allocates no closures and no timers.
        try {
          await m.handler(JSON.parse(entry.value) as CloudEvent, context(log, entry, groupId, 1));
          this.counters.delivered++;
        } catch (error) {
          this.counters.failed++;
          if (!(await deliver(this.delivery(c, m, entry), { error, attempt: 1 }))) break;
        }
        // Commit only now that the handler succeeded (or the event went to the DLQ).
        c.committed = entry.offset + 1;
      }
    } catch (error) {
      // Only bus bugs land here (handler errors are caught above); never lose the partition over it.
      this.logger.error('event bus drain failed', {
        topic: log.topic,
        partition: log.partition,
        error: describeError(error),
      });
    } finally {
      c.busy = false;
      m.active--;
      if (m.active === 0) m.notifyIdle();
      if (m.waiting.size) {
        const waiting = [...m.waiting];
        m.waiting.clear();
        for (const w of waiting) this.enqueue(w);
      }
      this.trimCommitted(log);
      this.enqueue(c);
    }
  }

  private delivery(c: Cursor, m: Member, entry: LogEntry): Delivery {
    const log = c.log;
    return {
      handler: m.handler,
      policy: m.policy,
      counters: this.counters,
      decode: () => JSON.parse(entry.value) as CloudEvent,
      context: (attempt) => context(log, entry, c.group.id, attempt),
      wait: (ms) => {
        if (m.stopping || c.owner !== m) return Promise.resolve(false);
        return new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => {
            m.sleepers.delete(c);
            resolve(c.owner === m && !m.stopping);
          }, ms);
          m.sleepers.set(c, { timer, resolve });
        });
      },
      deadLetter: async (error, attempts) => {
        const reason = describeError(error);
        this.append(dlqTopic(log.topic), entry.key, entry.value, {
          ...entry.headers,
          [DLQ_HEADERS.error]: reason,
          [DLQ_HEADERS.topic]: log.topic,
          [DLQ_HEADERS.partition]: String(log.partition),
          [DLQ_HEADERS.offset]: String(entry.offset),
          [DLQ_HEADERS.group]: c.group.id,
          [DLQ_HEADERS.attempts]: String(attempts),
        });
        this.counters.deadLettered++;
        this.logger.warn('event dead-lettered', {
          topic: log.topic,
          partition: log.partition,
          offset: entry.offset,
          groupId: c.group.id,
          attempts,
          error: reason,
        });
        return true;
      },
    };
  }
}

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function context(log: PartitionLog, entry: LogEntry, groupId: string, attempt: number): ConsumeContext {
  return {
    topic: log.topic,
    partition: log.partition,
    offset: String(entry.offset),
    groupId,
    attempt,
    key: entry.key,
    // A copy: the stored headers are shared by every group and every redelivery.
    headers: { ...entry.headers },
  };
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1`);
  return value;
}
