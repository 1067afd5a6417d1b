import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { DEFAULT_PORT, type NodeDefinition, type NodeHandler, type NodeManifest } from '@flowplane/flow/engine';
import { isPlainObject } from './template-render.node';

export const CHAT_WINDOW_ID = 'svc/chat-window';

export const chatWindowManifest: NodeManifest = {
  id: CHAT_WINDOW_ID,
  name: 'Chat window',
  kind: 'action',
  description:
    "Keeps only the last `turns` user turns of the packet's `messages` (each with the replies that followed it; system messages kept when `keepSystem`), so what comes after sees a short conversation. `turns: 1` makes every turn stand alone (the qa-only template). A packet without `messages` passes unchanged.",
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      turns: { type: 'integer', title: 'User turns kept', default: 1, minimum: 1, maximum: 100, 'x-order': 1 },
      keepSystem: { type: 'boolean', title: 'Keep system messages', default: true, 'x-order': 2 },
    },
    'x-ui': { order: ['turns', 'keepSystem'] },
  },
  inputs: [{ port: 'in', description: 'A chat packet with `messages` [{role, content}].', schema: {} }],
  outputs: [{ port: DEFAULT_PORT, description: 'The packet with the shortened `messages`.', schema: {} }],
};

/** The last `turns` user turns of `messages` (from the `turns`-th last user message on), system messages first when kept. */
export function windowOf(messages: readonly unknown[], turns: number, keepSystem: boolean): unknown[] {
  const role = (m: unknown) => (isPlainObject(m) ? m['role'] : undefined);
  let from = messages.length;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0 && seen < turns; i--) {
    if (role(messages[i]) === 'user') {
      from = i;
      seen++;
    }
  }
  if (seen === 0) from = 0;
  const system = keepSystem ? messages.slice(0, from).filter((m) => role(m) === 'system') : [];
  return [...system, ...messages.slice(from).filter((m) => keepSystem || role(m) !== 'system')];
}

export const chatWindowHandler: NodeHandler = (ctx) => {
  const input = ctx.input;
  if (!isPlainObject(input) || !Array.isArray(input['messages'])) return { port: DEFAULT_PORT, packet: input };
  const raw = Number(ctx.config['turns'] ?? 1);
  const turns = Number.isInteger(raw) && raw >= 1 ? raw : 1;
  return { port: DEFAULT_PORT, packet: { ...input, messages: windowOf(input['messages'], turns, ctx.config['keepSystem'] !== false) } };
};

export const chatWindowNode: NodeDefinition = { manifest: chatWindowManifest, handler: chatWindowHandler };
