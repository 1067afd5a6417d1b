import { EVENT_MESSAGES, type Topic, type TopicPayloads } from './events.generated';

/**
 * The CloudEvents 1.0 attributes of a Flowplane event. The platform publishes in binary content
 * mode: every attribute is a `ce_<name>` Kafka header, `content-type` is `application/json` and the
 * Kafka value is the JSON payload (`data`); the Kafka key is the aggregate id (also `subject`).
 */
export interface CloudEventAttributes {
  /** Unique per `source`: the deduplication key. A redelivered or re-published event keeps it. */
  id: string;
  /** The producing service, for example `/services/assistant`. */
  source: string;
  /** The topic name, for example `assistant.handoff_requested`. */
  type: string;
  /** RFC 3339 time of the state change. */
  time: string;
  specversion: '1.0';
  /** From the `content-type` header (`application/json`). */
  datacontenttype?: string;
  /** The aggregate id (same as the Kafka key). */
  subject?: string;
  /** Extension: the kind of aggregate, for example `assistant_handoff` or `profile`. */
  entitytype?: string;
  /** Extension: what happened, for example `requested` or `updated`. */
  action?: string;
}

/** A decoded event: attributes plus the typed payload. */
export interface CloudEvent<T = unknown> extends CloudEventAttributes {
  data: T;
}

/** A message that can never be processed (bad envelope or payload): log it and move on, retrying cannot help. */
export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

/** Kafka headers as kafkajs delivers them, or as Nest's KafkaParser leaves them in `KafkaContext.getMessage()`. */
export type RawHeaders = Record<string, unknown> | undefined;

/**
 * One header as text. kafkajs hands over a `Buffer` (an array of them for a repeated header);
 * Nest's KafkaParser turns most of them into strings but keeps a Buffer whose first byte is 0 and
 * JSON-parses a value that starts with `{` or `[` (so a subject like `["a"]` arrives as an array):
 * this undoes all of that.
 */
export function headerText(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value) && value.length > 0 && value.every((v) => Buffer.isBuffer(v))) {
    // A repeated header straight from kafkajs: an attribute must have exactly one value.
    if (value.length > 1) throw new InvalidEventError(`header ${name} is repeated ${value.length} times`);
    return (value[0] as Buffer).toString('utf8');
  }
  if (typeof value === 'object' || typeof value === 'number' || typeof value === 'boolean') {
    return JSON.stringify(value);
  }
  throw new InvalidEventError(`header ${name} has an unreadable value`);
}

const ATTRIBUTES = [
  'id',
  'source',
  'type',
  'time',
  'specversion',
  'subject',
  'entitytype',
  'action',
] as const;

/**
 * The CloudEvents attributes of a Kafka message's headers. Checks what the AsyncAPI document says
 * every message of `topic` carries, the spec version, that `type` is the topic it arrived on, and
 * that `time` is a timestamp; throws InvalidEventError otherwise.
 */
export function decodeAttributes(headers: RawHeaders, topic: Topic): CloudEventAttributes {
  const text = (name: string) => headerText(name, headers?.[name]);
  for (const name of EVENT_MESSAGES[topic].requiredHeaders) {
    if (!text(name)) throw new InvalidEventError(`${topic}: header ${name} is missing`);
  }
  const attrs: Record<string, string> = {};
  for (const a of ATTRIBUTES) {
    const v = text(`ce_${a}`);
    if (v !== undefined) attrs[a] = v;
  }
  const contentType = text('content-type');
  if (contentType !== undefined) attrs.datacontenttype = contentType;
  if (attrs.specversion !== '1.0')
    throw new InvalidEventError(`${topic}: ce_specversion ${attrs.specversion} is not 1.0`);
  if (attrs.type !== topic)
    throw new InvalidEventError(`${topic}: ce_type ${attrs.type} does not name this topic`);
  if (Number.isNaN(Date.parse(attrs.time)))
    throw new InvalidEventError(`${topic}: ce_time ${attrs.time} is not a time`);
  if (contentType !== undefined && !/^application\/json\b/i.test(contentType)) {
    throw new InvalidEventError(`${topic}: content-type ${contentType} is not JSON`);
  }
  return attrs as unknown as CloudEventAttributes;
}

/**
 * A typed event from what a Nest `@EventPattern` handler receives: the `@Payload()` (Nest already
 * JSON-parsed the value) and the message of `@Ctx() ctx: KafkaContext` (`ctx.getMessage()`).
 * Checks that the payload is an object with the fields the AsyncAPI document requires.
 */
export function decodeCloudEvent<T extends Topic>(
  topic: T,
  payload: unknown,
  message: { headers?: RawHeaders },
): CloudEvent<TopicPayloads[T]> {
  const attrs = decodeAttributes(message.headers, topic);
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || Buffer.isBuffer(payload)) {
    throw new InvalidEventError(`${topic} ${attrs.id}: the payload is not a JSON object`);
  }
  const missing = EVENT_MESSAGES[topic].requiredFields.filter(
    (f) => (payload as Record<string, unknown>)[f] === undefined,
  );
  if (missing.length)
    throw new InvalidEventError(`${topic} ${attrs.id}: payload lacks ${missing.join(', ')}`);
  return { ...attrs, data: payload as TopicPayloads[T] };
}
