import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import {
  type AssistantHandoffClient,
  HANDOFF_REQUEST_PRIORITIES,
  type HandoffRequestPriority,
  type InternalHandoffRequest,
  ServiceCallError,
  ServiceUnavailableError,
} from '@flowplane/contracts';
import type { NodeDefinition, NodeHandler, NodeManifest, NodeOutput } from '@flowplane/flow/engine';
import { ERROR_PORT } from '@flowplane/flow/engine';
import { isPlainObject } from './template-render.node';

export const ASSISTANT_HANDOFF_ID = 'svc/assistant-handoff-request';
export const HANDOFF_INPUT_PORT = 'Request';
export const HANDOFF_OUTPUT_PORT = 'Handoff';
/** The reason recorded when neither the packet nor the node's settings give one. */
export const DEFAULT_HANDOFF_REASON = 'The user asked to talk to a person.';

/** Why the node answered on its Error port; a flow can branch on `packet.code`. */
export type HandoffErrorCode = 'EMAIL_REQUIRED' | 'SESSION_REQUIRED' | 'INVALID_REQUEST' | 'HANDOFF_DISABLED' | 'ASSISTANT_UNAVAILABLE' | 'HANDOFF_FAILED';

const priorityEnum = [...HANDOFF_REQUEST_PRIORITIES];

export const assistantHandoffManifest: NodeManifest = {
  id: ASSISTANT_HANDOFF_ID,
  name: 'Request a human',
  kind: 'action',
  description:
    "Files a handoff request with the assistant (the same use case as POST /assistant/handoff): stores it with the chat's transcript, links it to the chat and announces `assistant.handoff_requested`. Reads `sessionId`, `email`, `phone`, `reason`, `priority` and `userId` from the packet, each falling back to the packet's `meta` (the chat widget sends `meta.email`, `meta.reason`, `meta.priority`). Emits `Handoff` {handoffId, status, duplicate} (duplicate is true when the session already has a pending request, which is kept); `Error` {error, code} when there is no e-mail address (code EMAIL_REQUIRED, so the assistant can ask for one), the request is invalid, handoff is switched off (ASSISTANT_HANDOFF_ENABLED=false) or the assistant cannot be reached. `urgent` is recorded and announced as `high`.",
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      defaultPriority: {
        type: 'string',
        enum: priorityEnum,
        title: 'Default priority',
        description: 'Applied when the packet has no priority; `urgent` is recorded as `high`.',
        default: 'normal',
        'x-order': 1,
      },
      defaultReason: {
        type: 'string',
        title: 'Default reason',
        description: 'Applied when the packet has no reason.',
        default: DEFAULT_HANDOFF_REASON,
        'x-order': 2,
      },
    },
    'x-ui': { order: ['defaultPriority', 'defaultReason'] },
  },
  inputs: [
    {
      port: HANDOFF_INPUT_PORT,
      description: 'The request; each field may also come from the packet `meta` (the chat run input).',
      schema: {
        type: 'object',
        properties: {
          sessionId: { type: 'string' },
          email: { type: 'string', format: 'email' },
          phone: { type: 'string' },
          reason: { type: 'string' },
          priority: { type: 'string', enum: priorityEnum },
          userId: { type: 'string' },
          meta: { type: 'object' },
        },
      },
    },
  ],
  outputs: [
    {
      port: HANDOFF_OUTPUT_PORT,
      description: 'Filed, or the pending request the session already had (`duplicate`).',
      schema: {
        type: 'object',
        properties: {
          handoffId: { type: 'string' },
          status: { type: 'string', enum: ['pending', 'contacted', 'resolved', 'dismissed'] },
          duplicate: { type: 'boolean' },
        },
        required: ['handoffId', 'status', 'duplicate'],
      },
    },
    {
      port: ERROR_PORT,
      description: 'Not filed: no e-mail, invalid request, handoff disabled or the assistant unreachable.',
      schema: { type: 'object', properties: { error: { type: 'string' }, code: { type: 'string' } }, required: ['error'] },
    },
  ],
};

/** The first non-blank string among the packet's field and its `meta` field. */
function pick(packet: Record<string, unknown>, meta: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const source of [packet, meta]) {
    for (const key of keys) {
      const v = source[key];
      if (typeof v === 'string' && v.trim() !== '') return v.trim();
    }
  }
  return undefined;
}

const fail = (code: HandoffErrorCode, error: string): NodeOutput => ({ port: ERROR_PORT, packet: { error, code } });

/** The request a packet asks for, or the Error output explaining why it cannot be filed. */
export function handoffRequestOf(input: unknown, config: Readonly<Record<string, unknown>>, runMeta: Readonly<Record<string, unknown>> = {}): InternalHandoffRequest | NodeOutput {
  const packet = isPlainObject(input) ? input : {};
  const meta = isPlainObject(packet['meta']) ? packet['meta'] : {};
  // The assistant says so on its chat runs: no point asking the user for an e-mail first.
  if (runMeta['handoffEnabled'] === false) return fail('HANDOFF_DISABLED', 'handoff to a person is switched off');
  const sessionId = pick(packet, meta, 'sessionId', 'session_id') ?? (typeof runMeta['session_id'] === 'string' ? runMeta['session_id'] : undefined);
  if (!sessionId) return fail('SESSION_REQUIRED', 'a handoff needs the chat session id (sessionId)');
  const email = pick(packet, meta, 'email');
  if (!email) return fail('EMAIL_REQUIRED', 'an e-mail address is needed so that a person can get back to you');
  const explicit = pick(packet, meta, 'priority');
  const fallback = typeof config['defaultPriority'] === 'string' && config['defaultPriority'] ? config['defaultPriority'] : 'normal';
  const priority = (explicit ?? fallback).toLowerCase();
  if (!(HANDOFF_REQUEST_PRIORITIES as readonly string[]).includes(priority)) {
    return fail('INVALID_REQUEST', `priority must be one of ${HANDOFF_REQUEST_PRIORITIES.join(', ')}`);
  }
  const defaultReason = typeof config['defaultReason'] === 'string' && config['defaultReason'].trim() ? config['defaultReason'].trim() : DEFAULT_HANDOFF_REASON;
  const request: InternalHandoffRequest = { sessionId, email, priority: priority as HandoffRequestPriority, reason: pick(packet, meta, 'reason') ?? defaultReason };
  const phone = pick(packet, meta, 'phone');
  if (phone) request.phone = phone;
  const userId = pick(packet, meta, 'userId');
  if (userId) request.userId = userId;
  return request;
}

/** Maps a failed call to the Error output (never throws: every failure is an answer the flow can route). */
function failureOf(e: unknown): NodeOutput {
  if (e instanceof ServiceUnavailableError) return fail('ASSISTANT_UNAVAILABLE', 'the assistant service is unavailable; try again shortly');
  if (e instanceof ServiceCallError) {
    if (e.status === 403) return fail('HANDOFF_DISABLED', e.remoteMessage ?? 'handoff to a person is switched off');
    if (e.status === 400) return fail('INVALID_REQUEST', e.remoteMessage ?? 'the handoff request is invalid');
    if (e.status === 503) return fail('ASSISTANT_UNAVAILABLE', 'the assistant service is unavailable; try again shortly');
    return fail('HANDOFF_FAILED', `the handoff could not be filed (status ${e.status ?? 'none'})`);
  }
  return fail('HANDOFF_FAILED', 'the handoff could not be filed');
}

export function assistantHandoffHandler(client: () => AssistantHandoffClient): NodeHandler {
  return async (ctx) => {
    const request = handoffRequestOf(ctx.input, ctx.config, ctx.meta);
    if ('port' in request) return request;
    try {
      const outcome = await client().request(request, { signal: ctx.signal });
      return { port: HANDOFF_OUTPUT_PORT, packet: outcome };
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return failureOf(e);
    }
  };
}

/** The node; `client` is read on each step so the service's client (and its token cache) is shared. */
export function assistantHandoffNode(client: () => AssistantHandoffClient): NodeDefinition {
  return { manifest: assistantHandoffManifest, handler: assistantHandoffHandler(client) };
}
