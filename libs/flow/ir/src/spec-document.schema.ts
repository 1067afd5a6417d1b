import { DELIVERY_MODES, NODE_KINDS, type JsonSchema } from './flow-document';
import { SPEC_NODE_KINDS } from './spec-document';

/** Any `x-` extension is allowed wherever form B has an object. */
const extensions = { '^x-': true };

const server: JsonSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  patternProperties: extensions,
  properties: { url: { type: 'string' }, protocol: { type: 'string' }, description: { type: 'string' } },
};

/** Schema of form B's `servers` map (name → {url, protocol, description}). */
export const SPEC_SERVERS_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: server,
};

/** JSON Schema (draft 2020-12) of the flow definition language, form B. */
export const SPEC_DOCUMENT_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://flowplane.dev/schemas/flowdef-b.json',
  title: 'Flow definition language, document form B',
  type: 'object',
  required: ['flowdef', 'info', 'nodes'],
  additionalProperties: false,
  patternProperties: extensions,
  properties: {
    // YAML reads an unquoted `flowdef: 1.0` as the number 1.
    flowdef: { enum: ['1.0', 1] },
    info: {
      type: 'object',
      required: ['title'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: { title: { type: 'string' }, version: { type: 'string' }, description: { type: 'string' } },
    },
    servers: { type: 'object', additionalProperties: server },
    nodes: { type: 'object', propertyNames: { minLength: 1 }, additionalProperties: { $ref: '#/$defs/node' } },
    edges: { type: 'array', items: { $ref: '#/$defs/edge' } },
    components: {
      type: 'object',
      additionalProperties: false,
      patternProperties: extensions,
      properties: { packets: { type: 'object', additionalProperties: { type: 'object' } } },
    },
    'x-id': { type: 'string', minLength: 1 },
    'x-name': { type: ['string', 'null'] },
    'x-meta': { type: 'object' },
  },
  $defs: {
    node: {
      type: 'object',
      required: ['kind'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        operationId: { type: 'string', minLength: 1 },
        kind: { enum: [...SPEC_NODE_KINDS] },
        summary: { type: 'string' },
        'x-id': { type: 'string', minLength: 1 },
        'x-name': { type: ['string', 'null'] },
        'x-kind': { enum: [...NODE_KINDS] },
        'x-action-ref': { type: 'string', minLength: 1 },
        'x-config': { type: 'object' },
        'x-position': {
          type: 'object',
          required: ['x', 'y'],
          additionalProperties: false,
          properties: { x: { type: 'number' }, y: { type: 'number' } },
        },
      },
    },
    edge: {
      type: 'object',
      required: ['from', 'to'],
      additionalProperties: false,
      patternProperties: extensions,
      properties: {
        from: { type: 'string', minLength: 1 },
        to: { type: 'string', minLength: 1 },
        delivery: {
          type: 'object',
          required: ['mode'],
          additionalProperties: false,
          patternProperties: extensions,
          properties: { mode: { enum: [...DELIVERY_MODES] } },
        },
        packet: { type: 'string', minLength: 1 },
        'x-id': { type: 'string', minLength: 1 },
        'x-condition': { type: 'string' },
        'x-port': { type: 'string', minLength: 1 },
      },
    },
  },
};
