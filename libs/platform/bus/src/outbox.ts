import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@flowplane/contracts';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import { assertHeaders, assertTopic, buildEnvelope, describeError, encodeData } from './cloud-event.util';
import type { BusLogger, EventBus, PublishOptions } from './event-bus.port';

export interface OutboxOptions {
  /** Collection holding pending events (default `outbox`); the relay lease lives in `<collection>_lease`. */
  collection?: string;
  /** How often the relay looks for entries nobody kicked it for (default 1000 ms). */
  pollIntervalMs?: number;
  /** Entries published per round (default 100). */
  batchSize?: number;
  /**
   * How long a relay's claim on the outbox lasts without renewal (default 10000 ms). One relay per
   * store publishes at a time, so replicas do not publish every entry N times and order holds;
   * when the holder dies, another takes over after this long.
   */
  leaseMs?: number;
  /** Envelope `source` when an enqueue does not name one. */
  source?: string;
  /** Identifies this relay in the lease (default a random uuid). */
  relayId?: string;
  logger?: BusLogger;
}

/** A pending event as stored. */
export interface OutboxDocument extends StoreDocument {
  /** The envelope id: stable across relay attempts so consumers can dedupe. */
  _id: string;
  /** Publish order (monotonic per process, time-based across processes). */
  seq: number;
  topic: string;
  /**
   * The payload as JSON text, not as a sub-document: the bus round-trips it through JSON anyway,
   * and stored verbatim it survives keys MongoDB refuses (`$x`, `a.b`) and engines' Date handling.
   */
  data: string;
  key?: string;
  headers?: Record<string, string>;
  source: string;
  time: string;
  entitytype?: string;
  action?: string;
  attempts: number;
  lastError?: string;
}

interface LeaseDocument extends StoreDocument {
  owner: string;
  /** Epoch ms until which `owner` holds the lease. */
  until: number;
}

const LEASE_ID = 'relay';

/**
 * Transactional outbox (ARCHITECTURE §3): an event is written in the same store transaction as
 * the state change it announces, then a relay publishes it. A crash anywhere between the two
 * loses nothing; the price is at-least-once delivery, with the envelope id kept stable so
 * consumers dedupe.
 */
export class Outbox {
  private readonly entries: Collection<OutboxDocument>;
  private readonly leases: Collection<LeaseDocument>;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly relayId: string;
  private readonly source: string;
  private readonly logger?: BusLogger;
  private lastSeq = 0;
  private running = false;
  private timer?: NodeJS.Timeout;
  private draining: Promise<void> | null = null;
  private again = false;
  private indexed?: Promise<unknown>;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    options: OutboxOptions = {},
  ) {
    const name = options.collection ?? 'outbox';
    this.entries = store.collection<OutboxDocument>(name);
    this.leases = store.collection<LeaseDocument>(`${name}_lease`);
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 100;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.relayId = options.relayId ?? randomUUID();
    this.source = options.source ?? '/flowplane';
    this.logger = options.logger;
  }

  /**
   * Writes an event in the caller's transaction; it is published once the transaction committed
   * and the relay ran. Returns the envelope the consumers will see (same id, time and source).
   */
  async enqueue<T>(
    session: StoreSession,
    topic: string,
    data: T,
    options: PublishOptions = {},
  ): Promise<CloudEvent<T>> {
    assertTopic(topic);
    assertHeaders(options.headers);
    const json = encodeData(data);
    const envelope = buildEnvelope(topic, data, options, this.source);
    const doc: OutboxDocument = {
      _id: envelope.id,
      seq: this.nextSeq(),
      topic,
      data: json,
      source: envelope.source,
      time: envelope.time,
      attempts: 0,
    };
    if (options.key !== undefined) doc.key = options.key;
    if (options.headers) doc.headers = { ...options.headers };
    if (envelope.entitytype !== undefined) doc.entitytype = envelope.entitytype;
    if (envelope.action !== undefined) doc.action = envelope.action;
    await this.entries.insertOne(doc, { session });
    return envelope;
  }

  /** `store.withTransaction(fn)`, then a kick so the events enqueued in it go out right away. */
  async withTransaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    const result = await this.store.withTransaction(fn);
    this.kick();
    return result;
  }

  /** Starts the relay: publishes what is pending now, then polls (and reacts to `kick`). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => this.kick(), this.pollIntervalMs);
    // The poll alone must not keep a process alive that has nothing else to do.
    this.timer.unref();
    this.kick();
  }

  /** Stops the relay after the round in flight and hands the lease back so another relay takes over at once. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.draining;
    await this.leases
      .updateOne({ _id: LEASE_ID, owner: this.relayId }, { $set: { until: 0 } })
      .catch((e: unknown) => this.logger?.warn('outbox lease release failed', { error: describeError(e) }));
  }

  /** Asks the running relay for a round now (call after the enqueueing transaction committed). */
  kick(): void {
    if (!this.running) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
    });
  }

  /**
   * Publishes everything pending now, in order, if this relay holds (or can take) the lease.
   * Resolves with the number published. Used by the relay, by shutdown paths and by tests.
   */
  async flush(): Promise<number> {
    await (this.indexed ??= this.entries.createIndex({ keys: { seq: 1 }, name: 'seq' }));
    let published = 0;
    for (;;) {
      if (!(await this.acquireLease())) return published;
      const batch = await this.entries.find({}, { sort: { seq: 1 }, limit: this.batchSize });
      if (batch.length === 0) return published;
      // Per key strictly in order (the next only after the previous was accepted), different keys
      // concurrently: a failure then holds back only the later events of its own key, and the
      // Kafka adapter still sends the heads of all keys in one request.
      const lanes = new Map<string, OutboxDocument[]>();
      for (const doc of batch) {
        const lane = doc.key === undefined ? `id:${doc._id}` : `key:${doc.key}`;
        const list = lanes.get(lane);
        if (list) list.push(doc);
        else lanes.set(lane, [doc]);
      }
      const done: string[] = [];
      const failures: Array<{ doc: OutboxDocument; reason: unknown }> = [];
      await Promise.all(
        [...lanes.values()].map(async (docs) => {
          for (const doc of docs) {
            try {
              await this.bus.publish(doc.topic, JSON.parse(doc.data) as unknown, {
                id: doc._id,
                key: doc.key,
                headers: doc.headers,
                source: doc.source,
                time: doc.time,
                entitytype: doc.entitytype,
                action: doc.action,
              });
              done.push(doc._id);
            } catch (reason) {
              failures.push({ doc, reason });
              return;
            }
          }
        }),
      );
      // Deleted only after the bus accepted them; a crash right here republishes them (same ids).
      if (done.length) await this.entries.deleteMany({ _id: { $in: done } });
      published += done.length;
      if (failures.length) {
        for (const { doc, reason } of failures) {
          await this.entries
            .updateOne(
              { _id: doc._id },
              { $inc: { attempts: 1 }, $set: { lastError: describeError(reason) } },
            )
            .catch(() => undefined);
        }
        throw new Error(
          `outbox relay: ${failures.length} publish(es) failed: ${describeError(failures[0].reason)}`,
        );
      }
      if (batch.length < this.batchSize) return published;
    }
  }

  /** Number of events written but not yet published. */
  pending(): Promise<number> {
    return this.entries.countDocuments({});
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.flush();
      } catch (error) {
        // The next poll retries; the entries stay in the outbox meanwhile.
        this.logger?.warn('outbox relay round failed', { error: describeError(error) });
        return;
      }
    } while (this.again && this.running);
  }

  private async acquireLease(): Promise<boolean> {
    const now = Date.now();
    try {
      const lease = await this.leases.findOneAndUpdate(
        { _id: LEASE_ID, $or: [{ owner: this.relayId }, { until: { $lt: now } }] },
        { $set: { owner: this.relayId, until: now + this.leaseMs } },
        { upsert: true },
      );
      return lease?.owner === this.relayId;
    } catch (error) {
      // Another relay holds a live lease: the upsert collided with its document.
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  private nextSeq(): number {
    // Microsecond-scaled clock with a per-process tiebreak: ordered within this process even
    // when the clock stalls or steps back, and roughly by time across processes.
    this.lastSeq = Math.max(Date.now() * 1000, this.lastSeq + 1);
    return this.lastSeq;
  }
}

function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'DUPLICATE_KEY' || code === 11000;
}
