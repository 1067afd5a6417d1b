import { setTimeout as sleep } from 'node:timers/promises';
import type { CloudEvent } from '@flowplane/contracts';
import {
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaConfig,
  type KafkaMessage,
  type Message,
  type Producer,
  type RetryOptions,
} from 'kafkajs';
import { assertHeaders, assertTopic, buildEnvelope, describeError, encodeData } from './cloud-event.util';
import { checkSubscription, deliver, newCounters, type RetryPolicy } from './delivery.util';
import {
  BusClosedError,
  DLQ_HEADERS,
  DLQ_SUFFIX,
  dlqTopic,
  type BusCounters,
  type BusLogger,
  type BusStats,
  type ConsumeContext,
  type ConsumerLag,
  type EventBus,
  type EventHandler,
  type ProvisionResult,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
  TopicProvisioningError,
  type TopicSettings,
} from './event-bus.port';

export interface KafkaEventBusOptions {
  brokers: string[];
  /** Kafka client id (default `flowplane`). */
  clientId?: string;
  /** Idempotent producer (exactly-once per partition on retries; needs a broker that reports a controller). */
  idempotent?: boolean;
  ssl?: KafkaConfig['ssl'];
  sasl?: KafkaConfig['sasl'];
  connectionTimeout?: number;
  requestTimeout?: number;
  /** kafkajs client retry policy for requests (not the handler retries). */
  retry?: RetryOptions;
  /** Consumer session timeout (default 30000; the mock broker rejoins after about one of these). */
  sessionTimeout?: number;
  /** Consumer heartbeat interval (default 3000). */
  heartbeatInterval?: number;
  rebalanceTimeout?: number;
  /** Longest a fetch waits for new events (default 1000; lower means less latency on idle topics). */
  maxWaitTimeInMs?: number;
  /** Envelope `source` when a publish does not name one. */
  source?: string;
  /** Handler retry defaults for subscriptions that do not set them. */
  maxAttempts?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Most events per produce request; publishes made in the same tick share one request. Default 500. */
  maxBatchSize?: number;
  /** How long `subscribe` waits to join the group (default 60000). */
  subscribeTimeoutMs?: number;
  /**
   * How long a publish keeps trying through transient broker failures (a dead leader, an election,
   * too few in-sync replicas) before it rejects; default 120000, as Kafka's delivery.timeout.ms.
   */
  deliveryTimeoutMs?: number;
  /** How long `ping` waits for the cluster (default 5000). */
  pingTimeoutMs?: number;
  /**
   * How topics are created before first use (partitions default 6; replication min(3, brokers);
   * retention and min ISR the broker's), with overrides per topic name.
   */
  topics?: TopicSettings & { overrides?: Record<string, TopicSettings> };
  /**
   * Create topics through the admin API before the first publish or subscribe (default true).
   * Off: the broker's auto-creation (with its defaults) or an operator creates them.
   */
  provisionTopics?: boolean;
  /** kafkajs' own log level (default WARN), routed to `logger`. */
  logLevel?: KafkaLogLevel;
  logger?: BusLogger;
}

interface PendingSend {
  topic: string;
  message: Message;
  resolve(): void;
  reject(error: unknown): void;
}

interface KafkaSubscription extends Subscription {
  readonly fromBeginning: boolean;
}

const CE = {
  id: 'ce_id',
  source: 'ce_source',
  type: 'ce_type',
  time: 'ce_time',
  specversion: 'ce_specversion',
  subject: 'ce_subject',
  entitytype: 'ce_entitytype',
  action: 'ce_action',
} as const;

const consoleLogger: BusLogger = {
  warn: (m, meta) => console.warn(m, meta ?? ''),
  error: (m, meta) => console.error(m, meta ?? ''),
};

/** Failed tries of one join's positioning after which each further failure is logged. */
const POSITION_QUIET_ATTEMPTS = 3;
/** Longest pause between two tries of a positioning. */
const POSITION_MAX_BACKOFF_MS = 5_000;
/** Time one positioning may take (two admin reads and a commit). */
const POSITION_TIMEOUT_MS = 10_000;

/**
 * EventBus over Kafka (kafkajs 2.2): CloudEvents in binary content mode (`ce_*` headers, JSON
 * value, key = aggregate id), one consumer per subscription committing only offsets whose
 * handler succeeded, retries in place with backoff (keeping the partition's order), then the DLQ.
 */
export class KafkaEventBus implements EventBus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly counters: BusCounters = newCounters();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly logger: BusLogger;
  private readonly retryDefaults: Partial<RetryPolicy>;
  private producer?: Promise<Producer>;
  private admin?: Promise<Admin>;
  private queue: PendingSend[] = [];
  /** Topics known to exist (provisioned or found), so the hot path checks a Set only. */
  private readonly readyTopics = new Set<string>();
  private readonly provisioning = new Map<string, Promise<void>>();
  private provisionUnsupported = false;
  private defaultReplication?: Promise<number>;
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;
  private closed = false;

  constructor(private readonly options: KafkaEventBusOptions) {
    if (!options?.brokers?.length) throw new TypeError('KafkaEventBus needs at least one broker');
    this.logger = options.logger ?? consoleLogger;
    this.retryDefaults = {
      maxAttempts: options.maxAttempts,
      retryDelayMs: options.retryDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs,
    };
    const logger = this.logger;
    this.kafka = new Kafka({
      brokers: options.brokers,
      clientId: options.clientId ?? 'flowplane',
      ssl: options.ssl,
      sasl: options.sasl,
      connectionTimeout: options.connectionTimeout,
      requestTimeout: options.requestTimeout,
      retry: options.retry,
      logLevel: options.logLevel ?? KafkaLogLevel.WARN,
      logCreator: () => (entry) => {
        const { message, ...meta } = entry.log;
        const text = `kafkajs ${entry.namespace}: ${message}`;
        if (entry.level <= KafkaLogLevel.ERROR) logger.error(text, meta);
        else logger.warn(text, meta);
      },
    });
  }

  async publish<T>(topic: string, data: T, options: PublishOptions = {}): Promise<CloudEvent<T>> {
    if (this.closed) throw new BusClosedError();
    assertTopic(topic);
    assertHeaders(options.headers);
    const envelope = buildEnvelope(topic, data, options, this.options.source ?? '/flowplane');
    const headers: IHeaders = { ...options.headers, 'content-type': 'application/json' };
    headers[CE.specversion] = envelope.specversion;
    headers[CE.id] = envelope.id;
    headers[CE.source] = envelope.source;
    headers[CE.type] = envelope.type;
    headers[CE.time] = envelope.time;
    if (envelope.subject !== undefined) headers[CE.subject] = envelope.subject;
    if (envelope.entitytype !== undefined) headers[CE.entitytype] = envelope.entitytype;
    if (envelope.action !== undefined) headers[CE.action] = envelope.action;
    const timestamp = Date.parse(envelope.time);
    await this.send(topic, {
      key: options.key ?? null,
      value: encodeData(data),
      headers,
      timestamp: String(Number.isNaN(timestamp) ? Date.now() : timestamp),
    });
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

    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: this.options.sessionTimeout,
      heartbeatInterval: this.options.heartbeatInterval,
      rebalanceTimeout: this.options.rebalanceTimeout,
      maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 1000,
      allowAutoTopicCreation: true,
    });
    const abort = new AbortController();
    let restartTimer: NodeJS.Timeout | undefined;
    let stopped: Promise<void> | undefined;
    let joins = 0;
    const sub: KafkaSubscription = {
      groupId: options.groupId,
      topics: unique,
      fromBeginning: options.fromBeginning === true,
      get rebalances() {
        return Math.max(0, joins - 1);
      },
      stop: () =>
        (stopped ??= (async () => {
          abort.abort();
          clearTimeout(restartTimer);
          try {
            await consumer.disconnect();
          } finally {
            this.subscriptions.delete(sub);
          }
        })()),
    };
    const runConfig = {
      // kafkajs commits only what we resolve (eachBatchAutoResolve off): after each batch, on
      // rebalance, on stop, and every second in between through commitOffsetsIfNecessary.
      autoCommit: true,
      autoCommitInterval: 1000,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: concurrency,
      eachBatch: (payload: EachBatchPayload) =>
        this.consumeBatch(payload, sub, handler as EventHandler, policy, abort.signal),
    };

    // kafkajs resolves an uncommitted partition's start (earliest/latest) in memory only, again
    // after every rebalance or restart, so events published between a new group's first join and
    // its first commit could be skipped by the next owner. Instead, on every join we pause the
    // assigned partitions, COMMIT the log end (or start) of those the group has never committed,
    // and only then resume. The commit must be confirmed: one that a rebalance rejects is tried
    // again by the next join, and a partition left uncommitted would make a later owner start at a
    // later log end, past events nobody ran. So a positioning that fails is tried again, with the
    // partitions paused, for as long as this join owns them: consuming an unpositioned partition
    // from kafkajs' in-memory start, then dying before its first commit, let the next owner commit
    // the log end of its own join over events nobody had run (lost, with lag 0). subscribe()
    // resolves after the first confirmed positioning: an event published after it is never skipped.
    const admin = await this.getAdmin();
    let lastCrash: unknown;
    let crashes = 0;
    let positioned!: () => void;
    const ready = new Promise<void>((resolve) => (positioned = resolve));
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      const generation = ++joins;
      crashes = 0;
      const assigned = Object.entries(e.payload.memberAssignment)
        .filter(([, partitions]) => partitions.length > 0)
        .map(([topic, partitions]) => ({ topic, partitions }));
      if (assigned.length) consumer.pause(assigned);
      const current = () => generation === joins && !abort.signal.aborted;
      void (async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            // Bounded: a request that never answers must not leave the partitions paused for good.
            await withTimeout(
              this.position(consumer, admin, options.groupId, assigned, options.fromBeginning === true),
              POSITION_TIMEOUT_MS,
              `positioning ${options.groupId}`,
            );
            break;
          } catch (error) {
            // A newer join owns the assignment now, and positions it itself.
            if (!current()) return;
            if (attempt >= POSITION_QUIET_ATTEMPTS) {
              this.logger.warn('positioning new partitions failed; they stay paused and it is tried again', {
                groupId: options.groupId,
                attempt,
                error: describeError(error),
              });
            }
            await sleep(Math.min(POSITION_MAX_BACKOFF_MS, 100 * 2 ** attempt)).catch(() => undefined);
            if (!current()) return;
          }
        }
        if (!current()) return;
        try {
          if (assigned.length) consumer.resume(assigned);
        } catch {
          // The consumer crashed meanwhile; its restart joins (and positions) again.
        }
        positioned();
      })();
    });

    // kafkajs restarts a consumer only after retriable errors; after any other crash it stays
    // down for good, silently. A consumer that stops consuming is worse than one that retries,
    // so restart it ourselves with backoff until stop().
    const restart = (): void => {
      if (abort.signal.aborted) return;
      const delay = Math.min(30_000, 250 * 2 ** Math.min(crashes, 7));
      restartTimer = setTimeout(() => {
        if (abort.signal.aborted) return;
        consumer.run(runConfig).catch((error: unknown) => {
          lastCrash = error;
          crashes++;
          restart();
        });
      }, delay);
    };
    consumer.on(consumer.events.CRASH, (e) => {
      lastCrash = e.payload.error;
      this.logger.error('Kafka consumer crashed', {
        groupId: options.groupId,
        restartedBy: e.payload.restart ? 'kafkajs' : 'bus',
        error: describeError(e.payload.error),
      });
      if (e.payload.restart) return;
      crashes++;
      restart();
    });

    try {
      // A real broker answers a subscription to a topic it is still creating with
      // UNKNOWN_TOPIC_OR_PARTITION; create the topics (and wait for their leaders) first.
      await this.ensureTopics(unique);
      await consumer.connect();
      await consumer.subscribe({ topics: unique, fromBeginning: options.fromBeginning === true });
      await consumer.run(runConfig);
      const timeoutMs = this.options.subscribeTimeoutMs ?? 60_000;
      await withTimeout(ready, timeoutMs, `joining group ${options.groupId}`).catch((error: unknown) => {
        throw lastCrash
          ? new Error(`${describeError(error)}; last error: ${describeError(lastCrash)}`, {
              cause: lastCrash,
            })
          : error;
      });
    } catch (error) {
      abort.abort();
      clearTimeout(restartTimer);
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    this.subscriptions.add(sub);
    return sub;
  }

  async provision(topics: readonly string[]): Promise<ProvisionResult> {
    if (this.closed) throw new BusClosedError();
    const names = [...new Set(topics)];
    names.forEach((t) => assertTopic(t));
    if (names.length === 0) return { created: [], existing: [] };
    const admin = await this.getAdmin();
    const existing = new Set(await admin.listTopics());
    const missing = names.filter((t) => !existing.has(t));
    const created: string[] = [];
    if (missing.length) {
      const replication = await this.replicationDefault(admin);
      const specs = missing.map((topic) => this.topicSpec(topic, replication));
      try {
        await admin.createTopics({ topics: specs, waitForLeaders: true, timeout: 10_000 });
        created.push(...missing);
      } catch (error) {
        if (isUnsupportedApi(error)) {
          // The librdkafka mock broker has no CreateTopics: it auto-creates on first use.
          if (!this.provisionUnsupported) {
            this.logger.warn('Kafka broker cannot create topics (no CreateTopics API); relying on auto-creation', {
              error: describeError(error),
            });
          }
          this.provisionUnsupported = true;
          return { created: [], existing: names };
        }
        throw new TopicProvisioningError(missing, await this.refusal(admin, error), { cause: error });
      }
      // createTopics skips its leader wait when another client created one of them first.
      await this.waitForLeaders(admin, missing);
    }
    for (const t of names) this.readyTopics.add(t);
    return { created, existing: names.filter((t) => existing.has(t)) };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new BusClosedError();
    const timeout = this.options.pingTimeoutMs ?? 5000;
    try {
      const admin = await withTimeout(this.getAdmin(), timeout, 'connecting to Kafka');
      await withTimeout(admin.listTopics(), timeout, 'listing Kafka topics');
    } catch (error) {
      this.admin = undefined;
      throw new Error(`Kafka unavailable: ${describeError(error)}`, { cause: error });
    }
  }

  async stats(): Promise<BusStats> {
    if (this.closed) throw new BusClosedError();
    const admin = await this.getAdmin();
    const byGroup = new Map<string, { topics: Set<string>; fromBeginning: boolean }>();
    for (const s of this.subscriptions) {
      const g = byGroup.get(s.groupId) ?? { topics: new Set<string>(), fromBeginning: s.fromBeginning };
      s.topics.forEach((t) => g.topics.add(t));
      byGroup.set(s.groupId, g);
    }
    const topicOffsets = new Map<string, Awaited<ReturnType<Admin['fetchTopicOffsets']>>>();
    const consumers: ConsumerLag[] = [];
    for (const [groupId, { topics, fromBeginning }] of byGroup) {
      const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
      for (const { topic, partitions } of committed) {
        let ends = topicOffsets.get(topic);
        if (!ends) {
          ends = await admin.fetchTopicOffsets(topic);
          topicOffsets.set(topic, ends);
        }
        const rows = ends
          .map((e) => {
            const c = Number(partitions.find((p) => p.partition === e.partition)?.offset ?? -1);
            const end = Number(e.high);
            const low = Number(e.low);
            // No commit yet: a latest-start group owes nothing; an earliest-start one owes all.
            const lag = c >= 0 ? Math.max(0, end - Math.max(c, low)) : fromBeginning ? end - low : 0;
            return { partition: e.partition, committed: c >= 0 ? c : null, end, lag };
          })
          .sort((a, b) => a.partition - b.partition);
        consumers.push({ groupId, topic, lag: rows.reduce((s, r) => s + r.lag, 0), partitions: rows });
      }
    }
    return { kind: 'kafka', consumers, counters: { ...this.counters } };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((s) => s.stop()));
    await this.flush();
    const producer = this.producer;
    const admin = this.admin;
    this.producer = this.admin = undefined;
    await Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]);
  }

  /**
   * Commits the log end (or start) of every assigned partition the group has no committed offset
   * for, as this member of this generation: a rebalance since the join makes the commit fail, and
   * the caller tries again or leaves it to the next join. kafkajs then starts there too (a commit
   * through the consumer updates its in-memory position).
   */
  private async position(
    consumer: Consumer,
    admin: Admin,
    groupId: string,
    assigned: Array<{ topic: string; partitions: number[] }>,
    fromBeginning: boolean,
  ): Promise<void> {
    if (assigned.length === 0) return;
    const committed = await admin.fetchOffsets({ groupId, topics: assigned.map((a) => a.topic) });
    const starts: Array<{ topic: string; partition: number; offset: string }> = [];
    for (const { topic, partitions } of assigned) {
      const known = committed.find((c) => c.topic === topic)?.partitions ?? [];
      const missing = partitions.filter(
        (p) => Number(known.find((k) => k.partition === p)?.offset ?? -1) < 0,
      );
      if (missing.length === 0) continue;
      const ends = await admin.fetchTopicOffsets(topic);
      for (const partition of missing) {
        const end = ends.find((e) => e.partition === partition);
        if (end) starts.push({ topic, partition, offset: fromBeginning ? end.low : end.high });
      }
    }
    if (starts.length) await consumer.commitOffsets(starts);
  }

  /** Provisions the topics not yet known to exist; concurrent callers share one admin request. */
  private ensureTopics(topics: readonly string[]): Promise<void> {
    if (this.options.provisionTopics === false || this.provisionUnsupported) return Promise.resolve();
    const waits: Promise<void>[] = [];
    const missing: string[] = [];
    for (const t of topics) {
      if (this.readyTopics.has(t)) continue;
      const pending = this.provisioning.get(t);
      if (pending) waits.push(pending);
      else missing.push(t);
    }
    if (missing.length) {
      const request = this.provision(missing).then(() => {
        for (const t of missing) {
          this.readyTopics.add(t);
          this.provisioning.delete(t);
        }
      });
      request.catch(() => {
        for (const t of missing) if (this.provisioning.get(t) === request) this.provisioning.delete(t);
      });
      for (const t of missing) this.provisioning.set(t, request);
      waits.push(request);
    }
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }

  private topicSpec(topic: string, replication: number) {
    const settings = { ...this.options.topics, ...this.options.topics?.overrides?.[topic] };
    const configEntries: Array<{ name: string; value: string }> = [];
    if (settings.retentionMs !== undefined) configEntries.push({ name: 'retention.ms', value: String(settings.retentionMs) });
    if (settings.minInSyncReplicas !== undefined) {
      configEntries.push({ name: 'min.insync.replicas', value: String(settings.minInSyncReplicas) });
    }
    return {
      topic,
      numPartitions: settings.partitions ?? 6,
      replicationFactor: settings.replicationFactor ?? replication,
      configEntries,
    };
  }

  /** The broker's reasons, per topic, with the fix where the reason has an obvious one. */
  private async refusal(admin: Admin, error: unknown): Promise<string> {
    const errors = (error as { errors?: Array<{ topic?: string; type?: string; message?: string }> }).errors;
    if (!Array.isArray(errors) || errors.length === 0) return describeError(error);
    const reasons = new Set<string>();
    for (const e of errors) {
      let reason = e.message ?? String(e.type);
      if (e.type === 'INVALID_REPLICATION_FACTOR') {
        const brokers = await admin
          .describeCluster()
          .then((c) => c.brokers.length)
          .catch(() => undefined);
        reason += ` (replication factor ${this.options.topics?.replicationFactor ?? 'default'}${brokers ? ` on a cluster of ${brokers} broker${brokers > 1 ? 's' : ''}` : ''}; set KAFKA_TOPIC_REPLICATION_FACTOR)`;
      }
      reasons.add(errors.length > 1 && e.topic ? `${e.topic}: ${reason}` : reason);
    }
    return [...reasons].join('; ');
  }

  /** min(3, brokers in the cluster): what an operator would pick, and never more than can be placed. */
  private replicationDefault(admin: Admin): Promise<number> {
    if (this.options.topics?.replicationFactor !== undefined) return Promise.resolve(this.options.topics.replicationFactor);
    if (!this.defaultReplication) {
      const asked = admin.describeCluster().then((c) => Math.max(1, Math.min(3, c.brokers.length)));
      asked.catch(() => {
        if (this.defaultReplication === asked) this.defaultReplication = undefined;
      });
      this.defaultReplication = asked;
    }
    return this.defaultReplication;
  }

  private async waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const { topics: meta } = await admin.fetchTopicMetadata({ topics });
        const led = meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
        if (led && meta.length === topics.length) return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`topics ${topics.join(', ')} have no leader after 15 s`);
      await sleep(100);
    }
  }

  private getProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        idempotent: this.options.idempotent === true,
        // The idempotent producer requires one in-flight request; it also keeps per-key order on retries.
        maxInFlightRequests: this.options.idempotent ? 1 : undefined,
        allowAutoTopicCreation: true,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      const ready = producer.connect().then(() => producer);
      ready.catch(() => {
        if (this.producer === ready) this.producer = undefined;
      });
      this.producer = ready;
    }
    return this.producer;
  }

  private getAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      const ready = admin.connect().then(() => admin);
      ready.catch(() => {
        if (this.admin === ready) this.admin = undefined;
      });
      this.admin = ready;
    }
    return this.admin;
  }

  /** Queues one message; everything queued in the same tick goes out in one produce request. */
  private send(topic: string, message: Message): Promise<void> {
    if (!this.readyTopics.has(topic) && this.options.provisionTopics !== false && !this.provisionUnsupported) {
      // Sends waiting on the same provisioning continue in call order, so per-key order holds.
      return this.ensureTopics([topic]).then(() => this.enqueue(topic, message));
    }
    return this.enqueue(topic, message);
  }

  private enqueue(topic: string, message: Message): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, message, resolve, reject });
      if (!this.flushScheduled && !this.flushing) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          void this.flush();
        });
      }
    });
  }

  /** Sends queued messages one request at a time, so a retried request never lets a later one overtake it. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.queue.length === 0) return Promise.resolve();
    const run = async (): Promise<void> => {
      const max = this.options.maxBatchSize ?? 500;
      while (this.queue.length) {
        const batch = this.queue.splice(0, max);
        const byTopic = new Map<string, Message[]>();
        for (const p of batch) {
          const list = byTopic.get(p.topic);
          if (list) list.push(p.message);
          else byTopic.set(p.topic, [p.message]);
        }
        const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
        // kafkajs gives a send up after a few seconds of retries, shorter than a leader election
        // after a broker dies. Like the Java producer's delivery.timeout.ms, a transient failure is
        // tried again until the delivery deadline; later batches wait, so per-key order holds.
        const deadline = Date.now() + (this.options.deliveryTimeoutMs ?? 120_000);
        for (let attempt = 1; ; attempt++) {
          try {
            const producer = await this.getProducer();
            await producer.sendBatch({ acks: -1, topicMessages });
            for (const p of batch) p.resolve();
            break;
          } catch (error) {
            if (this.closed || !isTransientSendError(error) || Date.now() >= deadline) {
              for (const p of batch) p.reject(error);
              break;
            }
            if (attempt === 1 || attempt % 10 === 0) {
              this.logger.warn('publishing failed; trying again until the delivery deadline', {
                events: batch.length,
                attempt,
                error: describeError(error),
              });
            }
            await sleep(Math.min(5000, 100 * 2 ** attempt));
          }
        }
      }
    };
    this.flushing = run().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async consumeBatch(
    payload: EachBatchPayload,
    sub: KafkaSubscription,
    handler: EventHandler,
    policy: RetryPolicy,
    signal: AbortSignal,
  ): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary } = payload;
    const { topic, partition } = batch;
    const active = (): boolean => isRunning() && !isStale() && !signal.aborted;

    // Sleeps in slices so the group keeps our session alive during a long backoff, and wakes on stop().
    const wait = async (ms: number): Promise<boolean> => {
      const until = Date.now() + ms;
      while (active()) {
        const left = until - Date.now();
        if (left <= 0) return true;
        try {
          await sleep(Math.min(left, 1000), undefined, { signal });
          await heartbeat();
        } catch {
          // Aborted by stop(), or the heartbeat says the group is rebalancing: give the message up
          // uncommitted; whoever owns the partition next redelivers it.
          return false;
        }
      }
      return false;
    };

    for (const message of batch.messages) {
      if (!active()) break;
      const done = await this.consumeOne(topic, partition, message, sub.groupId, handler, policy, wait);
      if (!done) break;
      resolveOffset(message.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  private async consumeOne(
    topic: string,
    partition: number,
    message: KafkaMessage,
    groupId: string,
    handler: EventHandler,
    policy: RetryPolicy,
    wait: (ms: number) => Promise<boolean>,
  ): Promise<boolean> {
    const headers = decodeHeaders(message.headers);
    const userHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith('ce_') && name !== 'content-type') userHeaders[name] = value;
    }
    const key = message.key === null ? undefined : message.key.toString('utf8');
    const deadLetter = async (error: unknown, attempts: number): Promise<boolean> => {
      const reason = describeError(error);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.send(dlqTopic(topic), {
            key: message.key,
            value: message.value,
            headers: {
              ...headers,
              [DLQ_HEADERS.error]: reason,
              [DLQ_HEADERS.topic]: topic,
              [DLQ_HEADERS.partition]: String(partition),
              [DLQ_HEADERS.offset]: message.offset,
              [DLQ_HEADERS.group]: groupId,
              [DLQ_HEADERS.attempts]: String(attempts),
            },
          });
          this.counters.deadLettered++;
          this.logger.warn('event dead-lettered', {
            topic,
            partition,
            offset: message.offset,
            groupId,
            attempts,
            error: reason,
          });
          return true;
        } catch (e) {
          this.logger.error('dead-lettering failed; will retry', {
            topic,
            partition,
            offset: message.offset,
            error: describeError(e),
          });
          if (!(await wait(Math.min(30_000, 500 * 2 ** attempt)))) return false;
        }
      }
    };

    let first: CloudEvent | undefined;
    try {
      first = toEnvelope(topic, partition, message, headers, key);
    } catch (e) {
      // A value that is not JSON can never succeed: park it without bothering the handler.
      return deadLetter(new Error(`undecodable event: ${describeError(e)}`), 0);
    }
    // Attempt 1 gets the envelope decoded above; each retry decodes a fresh copy.
    const decode = (): CloudEvent => {
      const event = first ?? toEnvelope(topic, partition, message, headers, key);
      first = undefined;
      return event;
    };

    const context = (attempt: number): ConsumeContext => ({
      topic,
      partition,
      offset: message.offset,
      groupId,
      attempt,
      key,
      headers: { ...userHeaders },
    });
    return deliver({ handler, policy, counters: this.counters, decode, context, wait, deadLetter });
  }
}

function decodeHeaders(raw: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    out[name] = typeof last === 'string' ? last : last.toString('utf8');
  }
  return out;
}

/** Rebuilds the envelope from binary-mode headers; events from non-CloudEvents producers get synthesised attributes. */
function toEnvelope(
  topic: string,
  partition: number,
  message: KafkaMessage,
  headers: Record<string, string>,
  key: string | undefined,
): CloudEvent {
  let data: unknown = null;
  if (message.value !== null) {
    const text = message.value.toString('utf8');
    try {
      data = JSON.parse(text);
    } catch (error) {
      // A DLQ reader must see what was parked, even a value that never was JSON (which is
      // exactly why it was parked); anywhere else such a value can only be dead-lettered.
      if (!topic.endsWith(DLQ_SUFFIX)) throw error;
      data = text;
    }
  }
  const event: CloudEvent = {
    id: headers[CE.id] ?? `${topic}-${partition}-${message.offset}`,
    source: headers[CE.source] ?? `kafka:${topic}`,
    type: headers[CE.type] ?? topic,
    time: headers[CE.time] ?? new Date(Number(message.timestamp)).toISOString(),
    specversion: '1.0',
    datacontenttype: 'application/json',
    data,
  };
  if (headers[CE.entitytype] !== undefined) event.entitytype = headers[CE.entitytype];
  if (headers[CE.action] !== undefined) event.action = headers[CE.action];
  const subject = headers[CE.subject] ?? key;
  if (subject !== undefined) event.subject = subject;
  return event;
}

const TRANSIENT_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSNumberOfRetriesExceeded',
]);
const TRANSIENT_TYPES = new Set([
  'NOT_LEADER_FOR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REQUEST_TIMED_OUT',
  'NETWORK_EXCEPTION',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'BROKER_NOT_AVAILABLE',
]);

/**
 * A send failure that a later try can overcome: connection and timeout errors, leadership moving,
 * too few in-sync replicas; also when kafkajs wraps one of them after its own retries ran out.
 */
export function isTransientSendError(error: unknown): boolean {
  for (let e = error as { name?: string; type?: string; cause?: unknown; retriable?: boolean } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (TRANSIENT_ERRORS.has(e.name ?? '') || TRANSIENT_TYPES.has(e.type ?? '')) return true;
  }
  return false;
}

/** True when the broker lacks an API kafkajs needs for the call (the mock broker has no CreateTopics). */
function isUnsupportedApi(error: unknown): boolean {
  const e = error as { name?: string; type?: string; message?: string };
  return (
    e?.name === 'KafkaJSNotImplemented' ||
    e?.name === 'KafkaJSServerDoesNotSupportApiKey' ||
    e?.type === 'UNSUPPORTED_VERSION' ||
    /does not support the requested API/i.test(e?.message ?? '')
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
