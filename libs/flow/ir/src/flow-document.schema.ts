import { DELIVERY_MODES, NODE_KINDS, type JsonSchema } from './flow-document';

/**
 * JSON Schema (draft 2020-12) of the flow document (IR workflow). Documents, nodes and edges are
 * closed (an unknown field is an error, so a misspelt `actionRef` cannot pass unnoticed); `meta` and
 * `config` are open. Semantic rules (unique ids, references, start node, limits) are checked in code
 * by `validateFlowDocument`.
 */
export const FLOW_DOCUMENT_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://flowplane.dev/schemas/flow-document.json',
  title: 'Flow document (IR workflow)',
  type: 'object',
  required: ['nodes', 'edges'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, description: 'Internal flow id; overridden when the first version is seeded.' },
    name: { type: 'string', description: 'Default name of the new flow.' },
    description: { type: 'string' },
    nodes: { type: 'array', items: { $ref: '#/$defs/node' } },
    edges: { type: 'array', items: { $ref: '#/$defs/edge' } },
    meta: { $ref: '#/$defs/meta' },
  },
  $defs: {
    node: {
      type: 'object',
      required: ['id', 'kind'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1 },
        name: { type: 'string' },
        description: { type: 'string' },
        kind: { enum: [...NODE_KINDS] },
        action_ref: { type: 'string', minLength: 1, description: 'Id of a registered node, for example svc/template-render.' },
        config: { type: 'object', description: 'Keyed by the settings schema of the node.' },
      },
      // An action without a registered node to run cannot execute.
      if: { properties: { kind: { const: 'action' } }, required: ['kind'] },
      then: { required: ['action_ref'] },
    },
    edge: {
      type: 'object',
      required: ['id', 'from', 'to'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1 },
        from: { type: 'string', minLength: 1 },
        to: { type: 'string', minLength: 1 },
        port: { type: 'string', minLength: 1 },
        delivery_mode: { enum: [...DELIVERY_MODES] },
        condition: { type: 'string' },
        packet: { type: 'string', minLength: 1 },
      },
    },
    position: {
      type: 'object',
      required: ['x', 'y'],
      additionalProperties: false,
      properties: { x: { type: 'number' }, y: { type: 'number' } },
    },
    meta: {
      type: 'object',
      properties: {
        positions: { type: 'object', additionalProperties: { $ref: '#/$defs/position' } },
        packets: { type: 'object', additionalProperties: { type: 'object' } },
        publish_with: { type: 'array', items: { type: 'string', minLength: 1 } },
        schemaVersion: { type: 'number' },
      },
    },
  },
};
