import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { ERROR_PORT, type NodeContext, type NodeDefinition, type NodeManifest } from '@flowplane/flow/engine';
import {
  BLOCKLIST_RUBRICS,
  buildSystemPrompt,
  type ChatMessage,
  EXAMPLES_POLICIES,
  type GuardRegistry,
  type GuardResult,
  type GuardRole,
  LlmClient,
  LlmConfigError,
  LlmError,
  PII_KINDS,
  type ProviderRegistry,
  REPLY_STYLES,
  type UsageContext,
  type UsageSink,
  withSystemPrompt,
} from '@flowplane/llm';
import { NodeInputError } from '../nodes/builtin/bus-publisher';
import { getPath, stringifyValue } from '../nodes/builtin/template';

export const LLM_CHAT_NODE_ID = 'svc/llm-chat';
export const GUARD_NODE_ID = 'svc/guard';
export const REPLY_PORT = 'Reply';
export const GUARD_PORTS = { allow: 'Allow', flag: 'Flag', block: 'Block' } as const;
export const DEFAULT_REFUSAL = "Sorry, I can't help with that request.";

/** What the two LLM nodes need. */
export interface LlmNodeDeps {
  providers: ProviderRegistry;
  guards: GuardRegistry;
  /** The usage ledger (rows are written directly, not over the bus). */
  usage: UsageSink;
  /** AI_CALL_TIMEOUT in ms (0: unbounded); the step timeout sits just above it. */
  callTimeoutMs: number;
  /** Told about a usage row that could not be stored. */
  onRecordError?: (error: unknown) => void;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const PROFILE_OVERRIDES = ['providerID', 'baseURL', 'model', 'temperature', 'maxTokens', 'systemPrompt', 'replyStyle', 'examplesPolicy'];

const messagesSchema = {
  type: 'array',
  items: { type: 'object', properties: { role: { type: 'string', enum: [...ROLES] }, content: { type: 'string' } }, required: ['role', 'content'] },
};
const errorSchema = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };

function stepTimeout(callTimeoutMs: number): number {
  // The model call's own bound (AI_CALL_TIMEOUT) fires first; 0 leaves the step unbounded too.
  return callTimeoutMs === 0 ? 0 : callTimeoutMs + 5_000;
}

export function llmChatManifest(callTimeoutMs: number, providerIds: string[]): NodeManifest {
  return {
    id: LLM_CHAT_NODE_ID,
    name: 'LLM chat',
    kind: 'action',
    description:
      'Calls a chat model. Settings come from the selected `llm-chat` profile with the node\'s own values on top (a blank overridable value defers to the profile). The packet supplies `messages` ({role, content} list) or a `prompt` (also `message`, `text`, `query`, or a plain string). `systemPrompt` is the base system prompt; `replyStyle` (short, normal, detailed) and `examplesPolicy` (avoid, when_asked, always) append plain directives when not neutral. With `stream` true every chunk becomes a `token` run event as it arrives. Emits `{content, sources, actions, usage}` on `Reply` (`sources` and `actions` of the input packet forwarded unchanged), or `{error}` on `Error`. Every call, failed ones included, writes a row to the usage ledger with the profile id.',
    settingsSchema: {
      $schema: SETTINGS_SCHEMA_DIALECT,
      type: 'object',
      properties: {
        profile: { type: 'string', title: 'Profile', description: 'An llm-chat profile (provider, key, endpoint, model, tuning).', 'x-profile-kind': 'llm-chat', 'x-overrides': PROFILE_OVERRIDES, 'x-order': 1 },
        providerID: { type: 'string', title: 'Provider', description: `Registered provider (${providerIds.join(', ')}); default local.`, enum: providerIds, 'x-profile-overridable': true, 'x-order': 2 },
        model: { type: 'string', title: 'Model', 'x-profile-overridable': true, 'x-order': 3 },
        baseURL: { type: 'string', format: 'uri', title: 'Base URL', description: 'OpenAI-compatible endpoint; private addresses need LLM_ALLOWED_PRIVATE_HOSTS.', 'x-profile-overridable': true, 'x-order': 4 },
        temperature: { type: 'number', minimum: 0, maximum: 2, title: 'Temperature', 'x-profile-overridable': true, 'x-order': 5 },
        maxTokens: { type: 'integer', minimum: 1, title: 'Max tokens', 'x-profile-overridable': true, 'x-order': 6 },
        systemPrompt: { type: 'string', title: 'System prompt', description: 'The base system prompt.', 'x-profile-overridable': true, 'x-order': 7 },
        replyStyle: { type: 'string', enum: [...REPLY_STYLES], title: 'Reply style', description: 'short or detailed append a directive; normal is neutral.', 'x-profile-overridable': true, 'x-order': 8 },
        examplesPolicy: { type: 'string', enum: [...EXAMPLES_POLICIES], title: 'Examples', description: 'avoid or always append a directive; when_asked is neutral.', 'x-profile-overridable': true, 'x-order': 9 },
        stream: { type: 'boolean', title: 'Stream tokens', default: false, 'x-order': 10 },
        outputKey: { type: 'string', title: 'Output key', description: 'When set, the reply text is written at this key of a copy of the input packet instead of replacing it (for preprocessing calls such as a query rewrite).', 'x-order': 11 },
      },
      'x-ui': { order: ['profile', 'providerID', 'model', 'baseURL', 'temperature', 'maxTokens', 'systemPrompt', 'replyStyle', 'examplesPolicy', 'stream', 'outputKey'] },
    },
    inputs: [
      {
        port: 'in',
        description: 'The conversation.',
        schema: { type: 'object', properties: { messages: messagesSchema, prompt: { type: 'string' }, sources: { type: 'array' }, actions: { type: 'array' } } },
      },
    ],
    outputs: [
      {
        port: REPLY_PORT,
        description: 'The reply.',
        schema: {
          type: 'object',
          properties: {
            content: { type: 'string' },
            sources: { type: 'array' },
            actions: { type: 'array' },
            usage: {
              type: 'object',
              properties: {
                providerId: { type: 'string' },
                model: { type: 'string' },
                profileId: { type: 'string' },
                promptTokens: { type: 'integer' },
                completionTokens: { type: 'integer' },
                totalTokens: { type: 'integer' },
                source: { type: 'string', enum: ['provider', 'estimated'] },
                finishReason: { type: 'string' },
              },
            },
          },
          required: ['content', 'usage'],
        },
      },
      { port: ERROR_PORT, description: 'Misconfiguration, refused target, provider failure or timeout.', schema: errorSchema },
    ],
    timeoutMs: stepTimeout(callTimeoutMs),
  };
}

export function guardManifest(callTimeoutMs: number, guardIds: string[], providerIds: string[]): NodeManifest {
  return {
    id: GUARD_NODE_ID,
    name: 'Guard',
    kind: 'gateway',
    description:
      'A pass-through safety router. Checks the text with the guard `guardID` (blocklist: the default injection `rubric` plus `terms`, `patterns`; pii: `detect` of email, phone, card; llm-classifier: asks the model of `profile`/`providerID` with a fixed rubric). The whole packet goes on `Allow` or `Flag` unchanged; `Block` carries `{content: refusal, refusal: true, guard}`. `role` input checks the latest user message, output the draft `content` (on a streamed draft the check runs once the full draft exists, it cannot suppress tokens already sent). When the guard itself fails (classifier outage or garbled verdict), `onError` open allows and closed blocks. `action` chooses flag or block for a match (default block for blocklist, flag for pii).',
    settingsSchema: {
      $schema: SETTINGS_SCHEMA_DIALECT,
      type: 'object',
      properties: {
        guardID: { type: 'string', enum: guardIds, title: 'Guard', 'x-order': 1 },
        role: { type: 'string', enum: ['input', 'output'], title: 'Role', default: 'input', 'x-order': 2 },
        onError: { type: 'string', enum: ['open', 'closed'], title: 'On guard error', description: 'open: allow; closed: block.', default: 'closed', 'x-order': 3 },
        refusal: { type: 'string', title: 'Refusal text', default: DEFAULT_REFUSAL, 'x-order': 4 },
        action: { type: 'string', enum: ['flag', 'block'], title: 'On match', description: "Blank: the guard's default.", 'x-order': 5 },
        rubric: { type: 'string', enum: [...BLOCKLIST_RUBRICS], title: 'Rubric (blocklist)', description: 'injection: on input, also block well-known prompt-injection phrasings (en, pl, de, fr, es); none: only the terms and patterns.', default: 'injection', 'x-order': 6 },
        terms: { type: 'array', items: { type: 'string' }, title: 'Blocked terms (blocklist)', 'x-order': 7 },
        patterns: { type: 'array', items: { type: 'string' }, title: 'Blocked patterns (blocklist, regular expressions)', 'x-order': 8 },
        detect: { type: 'array', items: { type: 'string', enum: [...PII_KINDS] }, title: 'Detect (pii)', 'x-order': 9 },
        textPath: { type: 'string', title: 'Text from', description: 'Dotted path of the packet to check; blank: by role.', 'x-order': 10 },
        profile: { type: 'string', title: 'Classifier profile (llm-classifier)', 'x-profile-kind': 'llm-chat', 'x-overrides': ['providerID', 'baseURL', 'model'], 'x-order': 11 },
        providerID: { type: 'string', enum: providerIds, title: 'Classifier provider', 'x-profile-overridable': true, 'x-order': 12 },
        model: { type: 'string', title: 'Classifier model', 'x-profile-overridable': true, 'x-order': 13 },
      },
      required: ['guardID'],
      'x-ui': { order: ['guardID', 'role', 'onError', 'refusal', 'action', 'rubric', 'terms', 'patterns', 'detect', 'textPath', 'profile', 'providerID', 'model'] },
    },
    inputs: [{ port: 'in', description: 'The packet to check (passed through unchanged on Allow and Flag).', schema: {} }],
    outputs: [
      { port: GUARD_PORTS.allow, description: 'The whole packet, unchanged.', schema: {} },
      { port: GUARD_PORTS.flag, description: 'The whole packet, unchanged; the reasons are in the run timeline.', schema: {} },
      {
        port: GUARD_PORTS.block,
        description: 'The refusal.',
        schema: {
          type: 'object',
          properties: {
            content: { type: 'string' },
            refusal: { type: 'boolean' },
            guard: { type: 'object', properties: { guardID: { type: 'string' }, role: { type: 'string' }, reasons: { type: 'array', items: { type: 'string' } } } },
          },
          required: ['content', 'refusal'],
        },
      },
    ],
    timeoutMs: stepTimeout(callTimeoutMs),
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  // OpenAI-style content parts: [{type: 'text', text}]
  if (Array.isArray(content)) {
    const parts = content.map((p) => (typeof p === 'string' ? p : typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : undefined));
    if (parts.every((p) => p !== undefined)) return parts.join('');
  }
  return undefined;
}

/** The conversation of a packet: `messages`, or one user message from `prompt`/`message`/`text`/`query`/a string. */
export function messagesOf(input: unknown): ChatMessage[] {
  if (typeof input === 'string') return input.trim() ? [{ role: 'user', content: input }] : [];
  if (typeof input !== 'object' || input === null) return [];
  const packet = input as Record<string, unknown>;
  if (packet.messages !== undefined) {
    if (!Array.isArray(packet.messages)) throw new NodeInputError('packet.messages must be a list of {role, content}');
    return packet.messages.map((m, i) => {
      const role = (m as { role?: unknown })?.role;
      const content = contentText((m as { content?: unknown })?.content);
      if (typeof role !== 'string' || !ROLES.has(role) || content === undefined) throw new NodeInputError(`packet.messages[${i}] must be {role: system|user|assistant|tool, content: string}`);
      return { role: role as ChatMessage['role'], content };
    });
  }
  for (const key of ['prompt', 'message', 'text', 'query']) {
    const v = packet[key];
    if (typeof v === 'string' && v.trim()) return [{ role: 'user', content: v }];
  }
  return [];
}

/** Breakdown dimensions a step knows; the ledger adds the run's flow, version and variant. */
export function usageContextOf(ctx: NodeContext, profileId: string | undefined, kind: UsageContext['kind']): UsageContext {
  const meta = ctx.meta as Record<string, unknown>;
  const session = str(meta.sessionId) ?? str(meta.session_id);
  return {
    runId: ctx.runId,
    nodeId: ctx.nodeId,
    profileId,
    userId: str(meta.userId) ?? str(meta.user_id),
    sessionId: session,
    assistant: meta.assistant === true || meta.source === 'assistant',
    kind,
  };
}

/** `svc/llm-chat`. */
export function llmChatNode(deps: LlmNodeDeps): NodeDefinition {
  const client = new LlmClient({ providers: deps.providers, usage: deps.usage, service: 'flow-runtime', onRecordError: deps.onRecordError });
  return {
    manifest: llmChatManifest(deps.callTimeoutMs, deps.providers.ids()),
    handler: async (ctx) => {
      const config = ctx.config;
      const profileId = str(config.profile);
      const conversation = messagesOf(ctx.input);
      if (!conversation.some((m) => m.role === 'user' || m.role === 'assistant')) throw new NodeInputError('the packet has no messages and no prompt');
      const messages = withSystemPrompt(buildSystemPrompt(config), conversation);
      const stream = config.stream === true;
      const result = await client.chat({
        profileId,
        profileMerged: true,
        config,
        messages,
        signal: ctx.signal,
        onToken: stream ? (chunk) => ctx.emitToken(chunk) : undefined,
        context: usageContextOf(ctx, profileId, 'chat'),
      });
      const usage = {
        providerId: result.providerId,
        model: result.model,
        ...(profileId ? { profileId } : {}),
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        totalTokens: result.usage.totalTokens,
        source: result.usage.source,
        finishReason: result.finishReason,
      };
      const input = ctx.input as Record<string, unknown> | undefined;
      const outputKey = str(config.outputKey);
      if (outputKey && input && typeof input === 'object' && !Array.isArray(input)) {
        return { port: REPLY_PORT, packet: { ...input, [outputKey]: result.content, usage } };
      }
      const packet: Record<string, unknown> = { content: result.content, sources: input?.sources ?? [], actions: input?.actions ?? [], usage };
      // Warnings of earlier steps (a retrieval that found no index) travel with the reply, so the chat can say so.
      if (Array.isArray(input?.warnings) && input.warnings.length) packet.warnings = input.warnings;
      return { port: REPLY_PORT, packet };
    },
  };
}

/** The text a guard checks: `textPath`, else by role (latest user message / draft content). */
export function guardText(input: unknown, role: GuardRole, textPath: string | undefined, upstreamTokens?: readonly string[]): string {
  if (textPath) return stringifyValue(getPath(input, textPath));
  if (typeof input === 'string') return input;
  const packet = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (role === 'output') {
    if (typeof packet.content === 'string') return packet.content;
    if (upstreamTokens && upstreamTokens.length > 0) return upstreamTokens.join('');
  }
  const messages = messagesOf(packet);
  const user = [...messages].reverse().find((m) => m.role === (role === 'output' ? 'assistant' : 'user'));
  return user?.content ?? (typeof packet.content === 'string' ? packet.content : '');
}

/** `svc/guard`. */
export function guardNode(deps: LlmNodeDeps): NodeDefinition {
  const client = new LlmClient({ providers: deps.providers, usage: deps.usage, service: 'flow-runtime', onRecordError: deps.onRecordError });
  return {
    manifest: guardManifest(deps.callTimeoutMs, deps.guards.ids(), deps.providers.ids()),
    handler: async (ctx) => {
      const config = ctx.config;
      const guard = deps.guards.require(str(config.guardID));
      const role: GuardRole = config.role === 'output' ? 'output' : 'input';
      const profileId = str(config.profile);
      const text = guardText(ctx.input, role, str(config.textPath), ctx.upstreamTokens);
      let result: GuardResult;
      if (text.trim() === '') {
        result = { verdict: 'allow', reasons: [] };
      } else {
        try {
          result = await guard.check({
            text,
            role,
            config,
            signal: ctx.signal,
            chat: guard.usesModel
              ? async (messages, signal) =>
                  client.chat({
                    profileId,
                    profileMerged: true,
                    // A verdict wants no creativity and no essay.
                    config: { ...config, temperature: 0, maxTokens: 256 },
                    messages,
                    signal,
                    context: usageContextOf(ctx, profileId, 'guard'),
                  })
              : undefined,
          });
        } catch (error) {
          // A misconfigured guard fails the step loudly; an outage or a garbled verdict is what onError is for.
          if (error instanceof LlmConfigError || ctx.signal.aborted) throw error;
          const open = config.onError === 'open';
          const reason = `guard ${guard.id} failed (${error instanceof LlmError ? error.code : 'ERROR'}: ${(error as Error).message}); failing ${open ? 'open' : 'closed'}`;
          ctx.log(reason, { guardID: guard.id, role }, 'warn');
          result = { verdict: open ? 'allow' : 'block', reasons: [reason] };
        }
      }
      if (result.verdict !== 'allow') ctx.log(`guard ${guard.id} (${role}): ${result.verdict}`, { guardID: guard.id, role, verdict: result.verdict, reasons: result.reasons }, result.verdict === 'block' ? 'warn' : 'info');
      if (result.verdict === 'allow') return { port: GUARD_PORTS.allow, packet: ctx.input };
      if (result.verdict === 'flag') return { port: GUARD_PORTS.flag, packet: ctx.input };
      const refusal = str(config.refusal) ?? DEFAULT_REFUSAL;
      return { port: GUARD_PORTS.block, packet: { content: refusal, refusal: true, sources: [], actions: [], guard: { guardID: guard.id, role, reasons: result.reasons } } };
    },
  };
}

/** Both LLM nodes. */
export function llmNodes(deps: LlmNodeDeps): NodeDefinition[] {
  return [llmChatNode(deps), guardNode(deps)];
}
