import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { DEFAULT_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';

export const EVENT_SOURCE_ID = 'svc/event-source';

export const eventSourceManifest: NodeManifest = {
  id: EVENT_SOURCE_ID,
  name: 'Event source',
  kind: 'start',
  description:
    'Start node of a flow run by bus events: a published flow consumes `eventName` in consumer group `groupID`, and each event becomes the run input, emitted unchanged on `out`.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      eventName: {
        type: 'string',
        title: 'Event name',
        description: 'The topic to consume (for example `profiles.updated`).',
        pattern: '^[a-z0-9_]+(\\.[a-z0-9_]+)+$',
        'x-order': 1,
      },
      groupID: {
        type: 'string',
        title: 'Consumer group',
        description: 'Consumer group id; flows sharing a group share the events.',
        minLength: 1,
        'x-order': 2,
      },
    },
    required: ['eventName', 'groupID'],
    'x-ui': { order: ['eventName', 'groupID'] },
  },
  inputs: [],
  outputs: [{ port: DEFAULT_PORT, description: 'The event (the run input), unchanged.', schema: {} }],
};

export const eventSourceHandler: NodeHandler = (ctx) => ({ port: DEFAULT_PORT, packet: ctx.input });

export const eventSourceNode: NodeDefinition = { manifest: eventSourceManifest, handler: eventSourceHandler };
