/**
 * CloudEvents 1.0 envelope carried by every bus message (ARCHITECTURE §3).
 * On Kafka it travels in binary content mode: attributes as `ce_*` headers, `data` as the JSON value.
 */
export interface CloudEvent<T = unknown> {
  /** Unique event id; consumers dedupe on it. */
  id: string;
  /** URI-reference of the producer, for example `/services/profiles`. */
  source: string;
  /** The topic name. */
  type: string;
  /** RFC 3339 timestamp of the state change. */
  time: string;
  specversion: '1.0';
  datacontenttype: 'application/json';
  /** Extension: the kind of aggregate the event is about (for example `profile`). */
  entitytype?: string;
  /** Extension: what happened to it (for example `created`, `updated`). */
  action?: string;
  /** Partition key: the aggregate id. */
  subject?: string;
  data: T;
}

/** The attributes of an envelope, without its data. */
export type CloudEventAttributes = Omit<CloudEvent, 'data'>;
