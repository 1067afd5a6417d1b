import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import type { NodeDefinition, NodeHandler, NodeManifest } from '@flowplane/flow/engine';
import { getPath } from './template';
import { isPlainObject } from './template-render.node';

export const ESCALATION_DETECT_ID = 'svc/escalation-detect';
export const ESCALATION_TOKEN = '[[ESCALATE]]';
export const ESCALATION_REPLY_PORT = 'Reply';
export const ESCALATION_PORT = 'Escalate';
export const DEFAULT_ESCALATION_REASON = 'The assistant escalated the conversation to a person.';

/** Fields of the run meta a handoff needs, copied into the Escalate packet's `meta` (the chat widget sends them there). */
const HANDOFF_META = ['email', 'phone', 'priority', 'userId'] as const;

export const escalationDetectManifest: NodeManifest = {
  id: ESCALATION_DETECT_ID,
  name: 'Escalation detector',
  kind: 'gateway',
  description:
    "Looks for the escalation token (default `[[ESCALATE]]`) in the model's draft (`content`, or `textPath`). Without it the packet goes on `Reply` unchanged; with it the packet goes on `Escalate` with the token removed from the text, `escalated: true`, `sessionId`, `reason` and a `meta` holding the run's e-mail, phone, priority and user id, ready for `svc/assistant-handoff-request`. Either way the token never reaches the user.",
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      token: { type: 'string', title: 'Token', description: 'The marker the model writes to ask for a person.', default: ESCALATION_TOKEN, minLength: 1, 'x-order': 1 },
      textPath: { type: 'string', title: 'Text from', description: 'Dotted path of the packet holding the draft.', default: 'content', 'x-order': 2 },
      reason: { type: 'string', title: 'Reason', description: 'Handoff reason written on Escalate when the packet has none.', default: DEFAULT_ESCALATION_REASON, 'x-order': 3 },
    },
    'x-ui': { order: ['token', 'textPath', 'reason'] },
  },
  inputs: [{ port: 'in', description: 'A reply packet ({content, sources, actions, ...}).', schema: {} }],
  outputs: [
    { port: ESCALATION_REPLY_PORT, description: 'No token: the packet, unchanged.', schema: {} },
    {
      port: ESCALATION_PORT,
      description: 'Token found: the packet without the token, with escalated, sessionId, reason and meta (email, phone, priority, userId).',
      schema: { type: 'object', properties: { escalated: { type: 'boolean' }, sessionId: { type: 'string' }, reason: { type: 'string' }, meta: { type: 'object' } }, required: ['escalated'] },
    },
  ],
};

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

/** `text` with every occurrence of `token` removed and the spaces it leaves tidied. */
export function withoutToken(value: string, token: string): string {
  return value.split(token).join(' ').replace(/[ \t]{2,}/g, ' ').replace(/ +([.,;:!?])/g, '$1').trim();
}

/** A copy of `obj` with `value` at `segments`, copying each object on the way (the input stays untouched). */
function setAt(obj: Record<string, unknown>, segments: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = segments;
  const child = obj[head];
  return { ...obj, [head]: rest.length === 0 ? value : setAt(isPlainObject(child) ? child : {}, rest, value) };
}

export const escalationDetectHandler: NodeHandler = (ctx) => {
  const token = text(ctx.config['token'], ESCALATION_TOKEN);
  const path = text(ctx.config['textPath'], 'content').trim();
  const draft = getPath(ctx.input, path);
  if (typeof draft !== 'string' || !draft.includes(token)) return { port: ESCALATION_REPLY_PORT, packet: ctx.input };
  const packet = setAt(isPlainObject(ctx.input) ? ctx.input : {}, path.split('.'), withoutToken(draft, token));
  const runMeta = ctx.meta as Record<string, unknown>;
  const meta: Record<string, unknown> = isPlainObject(packet['meta']) ? { ...packet['meta'] } : {};
  for (const key of HANDOFF_META) if (meta[key] === undefined && typeof runMeta[key] === 'string' && runMeta[key] !== '') meta[key] = runMeta[key];
  const sessionId = typeof packet['sessionId'] === 'string' ? packet['sessionId'] : typeof runMeta['session_id'] === 'string' ? runMeta['session_id'] : undefined;
  return {
    port: ESCALATION_PORT,
    packet: {
      ...packet,
      escalated: true,
      reason: text(packet['reason'], text(ctx.config['reason'], DEFAULT_ESCALATION_REASON)),
      meta,
      ...(sessionId ? { sessionId } : {}),
    },
  };
};

export const escalationDetectNode: NodeDefinition = { manifest: escalationDetectManifest, handler: escalationDetectHandler };
