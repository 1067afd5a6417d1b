import { assertTopic } from './cloud-event.util';
import type { CloudEvent } from '@flowplane/contracts';
import { isNonRetriable } from './cloud-event.util';
import type { BusCounters, ConsumeContext, EventHandler, SubscribeOptions } from './event-bus.port';

export interface RetryPolicy {
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_RETRY_DELAY_MS = 200;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

/** What every adapter checks before joining a group: the topics (deduplicated), the retry policy and the concurrency. */
export function checkSubscription(
  topics: string[],
  options: SubscribeOptions,
  handler: unknown,
  defaults: Partial<RetryPolicy>,
): { topics: string[]; policy: RetryPolicy; concurrency: number } {
  if (!Array.isArray(topics) || topics.length === 0) throw new TypeError('subscribe needs at least one topic');
  if (!options?.groupId) throw new TypeError('subscribe needs a groupId');
  if (typeof handler !== 'function') throw new TypeError('subscribe needs a handler function');
  const unique = [...new Set(topics)];
  unique.forEach(assertTopic);
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be an integer >= 1');
  return { topics: unique, policy: retryPolicy(options, defaults), concurrency };
}

/** The retry policy of a subscription, from its options over the adapter's defaults. */
export function retryPolicy(options: SubscribeOptions, defaults: Partial<RetryPolicy>): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? defaults.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new RangeError('maxAttempts must be an integer >= 1');
  return {
    maxAttempts,
    retryDelayMs: Math.max(0, options.retryDelayMs ?? defaults.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS),
    maxRetryDelayMs: Math.max(
      0,
      options.maxRetryDelayMs ?? defaults.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
    ),
  };
}

/** Delay before attempt `failedAttempt + 1`: base, 2x base, 4x base ... capped. */
export function retryDelay(policy: RetryPolicy, failedAttempt: number): number {
  return Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** (failedAttempt - 1));
}

export interface Delivery {
  handler: EventHandler;
  policy: RetryPolicy;
  counters: BusCounters;
  /** A fresh copy of the event per attempt, so a handler that mutated it cannot poison the retry. */
  decode(): CloudEvent;
  context(attempt: number): ConsumeContext;
  /** Sleeps; resolves false when the member must give the message up (stop, rebalance). */
  wait(ms: number): Promise<boolean>;
  /** Parks the message on the DLQ; resolves false when it gave up (the member is stopping). */
  deadLetter(error: unknown, attempts: number): Promise<boolean>;
  onRetry?(error: unknown, attempt: number, delayMs: number): void;
}

/**
 * Runs the handler until it succeeds, the policy is exhausted (dead-letter) or the member gives
 * the message up. Resolves true when the offset may be committed. `failure` continues a delivery
 * whose first attempt already threw (the memory adapter runs attempt 1 inline for speed).
 */
export async function deliver(d: Delivery, failure?: { error: unknown; attempt: number }): Promise<boolean> {
  let attempt = failure ? failure.attempt : 0;
  let error = failure?.error;
  for (;;) {
    if (attempt > 0) {
      if (isNonRetriable(error) || attempt >= d.policy.maxAttempts) return d.deadLetter(error, attempt);
      const delay = retryDelay(d.policy, attempt);
      d.onRetry?.(error, attempt, delay);
      if (!(await d.wait(delay))) return false;
    }
    attempt++;
    try {
      await d.handler(d.decode(), d.context(attempt));
      d.counters.delivered++;
      return true;
    } catch (e) {
      d.counters.failed++;
      error = e;
    }
  }
}

/** Fresh zeroed counters. */
export function newCounters(): BusCounters {
  return { published: 0, delivered: 0, failed: 0, deadLettered: 0 };
}
