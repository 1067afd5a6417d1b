import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { describeTopic, dlqTopic, FIXED_TOPICS, payloadClassFor } from '@flowplane/contracts';

type Schema = Record<string, unknown>;

const REF = '#/components/schemas/';

/** PascalCase message name of a topic (`profiles.updated` → `ProfilesUpdated`). */
function messageName(topic: string): string {
  return topic
    .split(/[._]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

/** Every schema name a schema refers to, transitively. */
function collectRefs(name: string, all: Record<string, Schema>, out: Set<string>): void {
  if (out.has(name) || !all[name]) return;
  out.add(name);
  const text = JSON.stringify(all[name]);
  for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) collectRefs(m[1], all, out);
}

// CloudEvents 1.0 binary content mode: the attributes travel as `ce_*` Kafka headers (ARCHITECTURE §3).
const CLOUDEVENTS_HEADERS: Schema = {
  type: 'object',
  required: ['ce_id', 'ce_source', 'ce_type', 'ce_time', 'ce_specversion'],
  properties: {
    ce_id: { type: 'string', description: 'Unique event id; consumers dedupe on it.' },
    ce_source: { type: 'string', description: 'Producer, for example /services/profiles.' },
    ce_type: { type: 'string', description: 'The topic name.' },
    ce_time: { type: 'string', format: 'date-time' },
    ce_specversion: { type: 'string', const: '1.0' },
    ce_subject: { type: 'string', description: 'The aggregate the event is about (the Kafka key), when the producer names one.' },
    ce_entitytype: { type: 'string', description: 'Extension: the kind of aggregate.' },
    ce_action: { type: 'string', description: 'Extension: what happened to it.' },
    'content-type': { type: 'string', const: 'application/json' },
  },
};

/**
 * The AsyncAPI 2.6 description of every platform topic, built from the contracts: one channel per
 * topic with its payload schema (from the class-validator payload class), CloudEvents headers and
 * the Kafka key; dead-letter topics are described once as a pattern.
 */
export function buildAsyncApi(version: string): Schema {
  // class-transformer's @Type tells the generator what a nested array holds.
  const all = validationMetadatasToSchemas({ refPointerPrefix: REF, classTransformerMetadataStorage: defaultMetadataStorage }) as Record<string, Schema>;
  const channels: Record<string, Schema> = {};
  const messages: Record<string, Schema> = {};
  const used = new Set<string>();
  for (const topic of FIXED_TOPICS) {
    const cls = payloadClassFor(topic);
    const name = messageName(topic);
    const d = describeTopic(topic);
    // A class that only inherits its decorators has no metadata of its own: use its ancestor's schema.
    for (let c: unknown = cls; !all[cls.name] && typeof c === 'function' && c.name; c = Object.getPrototypeOf(c)) {
      if (all[(c as { name: string }).name]) all[cls.name] = all[(c as { name: string }).name];
    }
    collectRefs(cls.name, all, used);
    messages[name] = {
      messageId: name,
      name,
      title: topic,
      contentType: 'application/json',
      headers: CLOUDEVENTS_HEADERS,
      payload: { $ref: `${REF}${cls.name}` },
      bindings: { kafka: { key: { type: 'string', description: 'Aggregate id (partition key): events of one aggregate stay ordered.' }, bindingVersion: '0.4.0' } },
    };
    channels[topic] = {
      description: `CloudEvent with entitytype \`${d?.entityType}\` and action \`${d?.action}\`. Consumers that fail ${'`BUS_MAX_ATTEMPTS`'} times park the message on \`${dlqTopic(topic)}\`.`,
      subscribe: { operationId: `on${name}`, summary: `Receive ${topic}`, message: { $ref: `#/components/messages/${name}` } },
      // The platform creates its topics with KAFKA_TOPIC_PARTITIONS partitions (default 6).
      bindings: { kafka: { partitions: 6, bindingVersion: '0.4.0' } },
    };
  }
  const schemas = Object.fromEntries([...used].sort().map((n) => [n, all[n]]));
  return {
    asyncapi: '2.6.0',
    id: 'urn:flowplane:events',
    info: {
      title: 'Flowplane events',
      version,
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      description:
        'Every topic of the platform bus. Topic names are a wire contract. Lifecycle topics `<entity>.created|updated|deleted` follow the same envelope with payload `EntityLifecyclePayload`.',
    },
    defaultContentType: 'application/json',
    tags: [{ name: 'flowplane', description: 'Topics of the platform bus.' }],
    servers: {
      kafka: { url: '{brokers}', protocol: 'kafka', description: 'KAFKA_BROKERS of the deployment', variables: { brokers: { default: 'localhost:9092' } } },
    },
    channels,
    components: { messages, schemas: { ...schemas, EntityLifecyclePayload: all.EntityLifecyclePayload } },
  };
}
