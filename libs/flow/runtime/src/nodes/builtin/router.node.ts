import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { DEFAULT_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';
import { getPath } from './template';
import { isPlainObject } from './template-render.node';

/** Config of `svc/router`. */
export interface RouterConfig extends Record<string, unknown> {
  ports?: string[];
  default?: string;
  portFrom?: string;
}

export const ROUTER_ID = 'svc/router';

export const routerManifest: NodeManifest = {
  id: ROUTER_ID,
  name: 'Router',
  kind: 'gateway',
  description:
    'Pass-through: emits a copy of the whole packet on one port. The port is the string at `portFrom` (a dotted path of the packet) when it is one of `ports`, otherwise `default`. Draw one edge per port with a condition such as `port == "billing"`.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        items: { type: 'string' },
        title: 'Ports',
        description: 'The output ports this router may emit on (besides the default).',
        default: [],
        'x-order': 1,
      },
      default: {
        type: 'string',
        title: 'Default port',
        description: 'Port used when `portFrom` is unset, missing or names no listed port.',
        default: DEFAULT_PORT,
        'x-order': 2,
      },
      portFrom: {
        type: 'string',
        title: 'Port from',
        description: 'Dotted path of the packet holding the port name (for example `route` or `intent.name`).',
        default: '',
        'x-order': 3,
      },
    },
    'x-ui': { order: ['ports', 'default', 'portFrom'] },
  },
  inputs: [{ port: 'in', description: 'Any packet.', schema: {} }],
  outputs: [
    {
      port: DEFAULT_PORT,
      description: 'The default port; the ports listed in `ports` carry the same packet.',
      schema: {},
    },
  ],
};

/** The port a router emits a packet on. */
export function routerPort(config: Readonly<RouterConfig>, packet: unknown): string {
  const fallback = typeof config.default === 'string' && config.default.trim() !== '' ? config.default : DEFAULT_PORT;
  const ports = Array.isArray(config.ports) ? config.ports.filter((p): p is string => typeof p === 'string') : [];
  if (typeof config.portFrom !== 'string' || config.portFrom.trim() === '') return fallback;
  const chosen = getPath(packet, config.portFrom);
  return typeof chosen === 'string' && (ports.includes(chosen) || chosen === fallback) ? chosen : fallback;
}

export const routerHandler: NodeHandler = (ctx) => {
  const input = ctx.input;
  // A copy, so a downstream handler that mutates despite the contract cannot reach a sibling branch.
  const packet = Array.isArray(input) ? [...input] : isPlainObject(input) ? { ...input } : input;
  return { port: routerPort(ctx.config as Readonly<RouterConfig>, input), packet };
};

export const routerNode: NodeDefinition = { manifest: routerManifest, handler: routerHandler };
