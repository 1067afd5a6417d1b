import { Inject, Injectable } from '@nestjs/common';
import type { CloudEventAttributes } from './cloud-event';

// Kafka delivers at least once: after a consumer crash, a rebalance or a restart, messages whose
// offsets were not committed yet are delivered again, and a producer that retries a publish (the
// platform's outbox does, keeping the event id) can write the same event twice. Every CloudEvent
// carries an `id` that is unique per `source`, so the consumer remembers which (source, id) pairs it
// has processed and skips repeats. An event is marked done only after its handler succeeded, so a
// failed attempt is not mistaken for a done one when Kafka delivers it again.

/** Where processed event keys are remembered. */
export interface ProcessedEventStore {
  /** Claims `key` for processing; false when it was processed already or is being processed right now. */
  claim(key: string): Promise<boolean>;
  /** The claimed event was processed. */
  complete(key: string): Promise<void>;
  /** Processing failed: give the claim back so the redelivery runs the handler again. */
  release(key: string): Promise<void>;
}

/** Injection token of the ProcessedEventStore; bind your own (Redis, a database) to replace the in-memory one. */
export const PROCESSED_EVENT_STORE = Symbol('PROCESSED_EVENT_STORE');

/**
 * Remembers the last `capacity` processed keys of this process. Enough for redeliveries within one
 * run (rebalances, producer retries); it forgets on restart, so a side effect that must never repeat
 * needs a durable store, ideally written in the same transaction as the side effect itself (a unique
 * index on the event id in the table the handler writes to).
 */
export class InMemoryProcessedEventStore implements ProcessedEventStore {
  private readonly entries = new Map<string, 'processing' | 'done'>();

  constructor(private readonly capacity = 100_000) {}

  async claim(key: string): Promise<boolean> {
    if (this.entries.has(key)) return false;
    this.entries.set(key, 'processing');
    return true;
  }

  async complete(key: string): Promise<void> {
    // Re-insert so the Map's insertion order is completion order: the oldest done key is evicted first.
    this.entries.delete(key);
    this.entries.set(key, 'done');
    for (const [oldest, state] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      if (state === 'done') this.entries.delete(oldest);
    }
  }

  async release(key: string): Promise<void> {
    if (this.entries.get(key) === 'processing') this.entries.delete(key);
  }
}

/** The deduplication key of an event: CloudEvents makes (source, id) unique. */
export function dedupeKey(event: Pick<CloudEventAttributes, 'source' | 'id'>): string {
  return JSON.stringify([event.source, event.id]);
}

@Injectable()
export class Deduplicator {
  constructor(@Inject(PROCESSED_EVENT_STORE) private readonly store: ProcessedEventStore) {}

  /**
   * Runs `work` for an event not processed before; resolves true when it ran, false for a repeat.
   * When `work` throws, the claim is released and the error propagates, so Kafka redelivers the
   * message (the offset is not committed) and the next delivery runs `work` again.
   */
  async once(event: CloudEventAttributes, work: () => Promise<void>): Promise<boolean> {
    const key = dedupeKey(event);
    if (!(await this.store.claim(key))) return false;
    try {
      await work();
    } catch (err) {
      await this.store.release(key);
      throw err;
    }
    await this.store.complete(key);
    return true;
  }
}
