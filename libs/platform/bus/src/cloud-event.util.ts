import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@flowplane/contracts';
import type { PublishOptions } from './event-bus.port';

/** Kafka's legal topic names; enforced by both adapters so a topic that works in memory works on Kafka. */
const TOPIC_PATTERN = /^[a-zA-Z0-9._-]{1,249}$/;

/** Throws a TypeError when `topic` is not a legal Kafka topic name. */
export function assertTopic(topic: string): void {
  if (typeof topic !== 'string' || !TOPIC_PATTERN.test(topic) || topic === '.' || topic === '..') {
    throw new TypeError(`invalid topic name ${JSON.stringify(topic)}: use 1-249 of [a-zA-Z0-9._-]`);
  }
}

let lastMs = -1;
let lastIso = '';

/** Now as RFC 3339; formatted once per millisecond, which matters at 100k+ publishes/s. */
function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Builds the CloudEvents 1.0 envelope of a publish (data is kept as given, not copied). */
export function buildEnvelope<T>(
  topic: string,
  data: T,
  options: PublishOptions,
  defaultSource: string,
): CloudEvent<T> {
  const event: CloudEvent<T> = {
    id: options.id ?? randomUUID(),
    source: options.source ?? defaultSource,
    type: topic,
    time: options.time ?? nowIso(),
    specversion: '1.0',
    datacontenttype: 'application/json',
    data,
  };
  // Absent extensions stay absent (not `undefined`) so the envelope equals its JSON round trip.
  if (options.entitytype !== undefined) event.entitytype = options.entitytype;
  if (options.action !== undefined) event.action = options.action;
  if (options.key !== undefined) event.subject = options.key;
  return event;
}

/** Serialises the payload, rejecting what JSON cannot carry (undefined, functions, cycles, BigInt). */
export function encodeData(data: unknown): string {
  const json = JSON.stringify(data);
  if (json === undefined)
    throw new TypeError('event data must be JSON-serialisable (got undefined or a function)');
  return json;
}

/** Validates user headers: string values only, none shadowing the envelope's `ce_*` headers. */
export function assertHeaders(headers: Record<string, string> | undefined): void {
  if (!headers) return;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw new TypeError(`header ${name} must be a string`);
    if (name.startsWith('ce_') || name === 'content-type') {
      throw new TypeError(`header ${name} is reserved for the CloudEvents envelope`);
    }
  }
}

/** A one-line description of a thrown value, for DLQ headers and logs. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // Kafka headers and log lines are not the place for a megabyte of message.
  return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
}

/** True when the handler said the message can never succeed (no point retrying). */
export function isNonRetriable(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === false
  );
}
