import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { DEFAULT_PORT, ERROR_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';
import { type BusPublisher, NodeInputError, TOPIC_PATTERN } from './bus-publisher';
import { getPath } from './template';
import { isPlainObject } from './template-render.node';

export const EMIT_EVENT_ID = 'svc/emit-event';

export const emitEventManifest: NodeManifest = {
  id: EMIT_EVENT_ID,
  name: 'Emit event',
  kind: 'action',
  description:
    'Publishes an event on the bus. Topic: config `topic`, else the packet field `topic` (lowercase dot-separated segments, for example `orders.created`; `.dlq` topics are refused). Payload: the value at `payloadFrom` of the packet, else the whole packet. Emits `out` {eventId, topic}; a bad topic or a bus failure goes to `Error` {error}.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      topic: {
        type: 'string',
        title: 'Topic',
        description: 'Topic to publish on; blank takes `topic` from the packet.',
        default: '',
        'x-order': 1,
      },
      payloadFrom: {
        type: 'string',
        title: 'Payload from',
        description: 'Dotted path of the packet to publish; blank publishes the whole packet.',
        default: '',
        'x-order': 2,
      },
      key: {
        type: 'string',
        title: 'Partition key from',
        description: 'Dotted path of the packet whose value becomes the partition key (ordering); blank for none.',
        default: '',
        'x-order': 3,
      },
    },
    'x-ui': { order: ['topic', 'payloadFrom', 'key'] },
  },
  inputs: [{ port: 'in', description: 'Any packet.', schema: {} }],
  outputs: [
    {
      port: DEFAULT_PORT,
      description: 'Published.',
      schema: { type: 'object', properties: { eventId: { type: 'string' }, topic: { type: 'string' } }, required: ['eventId', 'topic'] },
    },
    { port: ERROR_PORT, description: 'Invalid topic or bus failure.', schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } },
  ],
};

const blank = (v: unknown): boolean => typeof v !== 'string' || v.trim() === '';

/** The topic a packet is published on; throws `NodeInputError` for a missing or malformed one. */
export function emitTopic(config: Readonly<Record<string, unknown>>, packet: unknown): string {
  const topic = !blank(config['topic']) ? config['topic'] : isPlainObject(packet) ? packet['topic'] : undefined;
  if (typeof topic !== 'string' || topic.trim() === '') throw new NodeInputError('no topic: set config.topic or a packet field topic');
  if (!TOPIC_PATTERN.test(topic)) {
    throw new NodeInputError(`invalid topic ${JSON.stringify(topic)}: expected lowercase dot-separated segments such as orders.created`);
  }
  if (topic.endsWith('.dlq')) throw new NodeInputError(`refusing to publish on dead-letter topic ${topic}`);
  return topic;
}

export function emitEventHandler(bus: BusPublisher): NodeHandler {
  return async (ctx) => {
    const topic = emitTopic(ctx.config, ctx.input);
    const payloadFrom = ctx.config['payloadFrom'];
    const data = blank(payloadFrom) ? ctx.input : getPath(ctx.input, payloadFrom as string);
    if (data === undefined) throw new NodeInputError(`nothing at ${String(payloadFrom)} in the packet`);
    const keyPath = ctx.config['key'];
    const keyValue = blank(keyPath) ? undefined : getPath(ctx.input, keyPath as string);
    const key = typeof keyValue === 'string' || typeof keyValue === 'number' ? String(keyValue) : undefined;
    const envelope = await bus.publish(topic, data, key === undefined ? undefined : { key });
    return { port: DEFAULT_PORT, packet: { eventId: envelope.id, topic } };
  };
}

export function emitEventNode(bus: BusPublisher): NodeDefinition {
  return { manifest: emitEventManifest, handler: emitEventHandler(bus) };
}
