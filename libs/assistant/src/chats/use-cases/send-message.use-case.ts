import { randomFillSync } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { MODULE_FLOW_ID } from '../../templates/use-cases/ensure-module-flow.use-case';
import { UpstreamClients, type VariantRef } from '../../upstream/upstream.clients';
import { upstreamFailure } from '../../upstream/upstream.errors';
import { VariantResolver } from '../../upstream/variant-resolver';
import { CHAT_RUN_EVENTS } from '../domain/chat-frames';
import { chatExpiry, type ChatMessage, SESSION_ID_PATTERN } from '../domain/chat.entity';
import { ChatRepository } from '../persistence/chat.repository';
import { ChatRelay, StreamStop } from './chat-relay';

/** A chat message as the route received it (shape checked by the DTO). */
export interface SendMessageInput {
  sessionId?: string;
  message: string;
  meta?: Record<string, unknown>;
  /** `sub` of an authenticated caller. */
  userId?: string;
}

/** A started chat turn: its ids and the relay that streams it. */
export interface StartedTurn {
  sessionId: string;
  runId: string;
  relay: ChatRelay;
}

const ID_BYTES = 16;
/** Random bytes drawn 256 ids at a time: one call to the CSPRNG per id cost more than the rest of the id (profiled). */
const idPool = Buffer.alloc(ID_BYTES * 256);
let idPoolAt = idPool.length;

/** A new session id: 128 random bits, URL-safe. */
export function newSessionId(): string {
  if (idPoolAt + ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = idPool.toString('base64url', idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  return id;
}

/**
 * `POST /assistant/messages` (rules 1, 2, 7, 24): picks the session's variant as the
 * deployments service would (sticky by session id; VariantResolver), appends the user turn (creating and stamping the chat
 * on the first message, moving its expiry), starts a run in flow-runtime with the last
 * ASSISTANT_HISTORY_TURNS turns and run meta `source: assistant`, and hands back a relay that
 * stores the assistant turn when the run ends. Nothing is half-written when a dependency is down:
 * a run that cannot start takes its user turn back and the call is a 503 before any stream opens.
 */
@Injectable()
export class SendMessageUseCase {
  private readonly log = new Logger('AssistantChat');

  constructor(
    private readonly chats: ChatRepository,
    private readonly upstream: UpstreamClients,
    private readonly variants: VariantResolver,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  private get env(): ServiceConfig & AssistantEnv {
    return this.config as ServiceConfig & AssistantEnv;
  }

  /** Checks what the DTO cannot (limits from the environment); 400 before anything is written. */
  validate(input: SendMessageInput): void {
    const max = this.env.ASSISTANT_MAX_MESSAGE_CHARS;
    if (input.sessionId !== undefined && !SESSION_ID_PATTERN.test(input.sessionId)) {
      throw new DomainException('INVALID_SESSION_ID', 400, 'sessionId must be 8 to 128 letters, digits, _ or -');
    }
    if (input.message.trim() === '') throw new DomainException('EMPTY_MESSAGE', 400, 'message must not be empty');
    if (input.message.length > max) throw new DomainException('MESSAGE_TOO_LONG', 400, `message is longer than ASSISTANT_MAX_MESSAGE_CHARS (${max} characters)`);
    for (const [k, v] of Object.entries(input.meta ?? {})) {
      if (typeof v !== 'string') throw new DomainException('INVALID_META', 400, `meta.${k} must be a string`);
    }
    // The flow's handoff node would first ask for an e-mail address, for a request that can never be filed.
    if (input.meta?.intent === 'handoff' && !this.env.ASSISTANT_HANDOFF_ENABLED) {
      throw new DomainException('HANDOFF_DISABLED', 403, 'handoff to a person is not available here (ASSISTANT_HANDOFF_ENABLED=false)');
    }
  }

  async execute(input: SendMessageInput, startedAt = Date.now()): Promise<StartedTurn> {
    this.validate(input);
    const env = this.env;
    // A session id drawn here is new by construction: no expired chat to drop, nothing to merge.
    const fresh = input.sessionId === undefined;
    const sessionId = input.sessionId ?? newSessionId();
    const meta = { ...(input.meta ?? {}) } as Record<string, string>;
    const now = new Date();
    let variant: VariantRef;
    // The expired-chat check needs no variant: it runs beside the selection, one store round trip
    // fewer before the first frame.
    const dropped = fresh ? undefined : this.chats.dropExpired(sessionId, now);
    try {
      variant = await this.variants.select({ session_id: sessionId, sessionId });
    } catch (e) {
      await dropped?.catch(() => undefined);
      throw upstreamFailure(e, 'deployments');
    }
    await dropped;

    const turn: ChatMessage = { role: 'user', content: input.message, at: now };
    const stamp = { sessionId, userId: input.userId, flowId: variant.flowId || MODULE_FLOW_ID, versionHash: '', variantLabel: variant.label };
    const expiresAt = chatExpiry(now, env.ASSISTANT_CHAT_TTL_DAYS);
    const chat = fresh ? await this.chats.startNew(stamp, turn, expiresAt, now) : await this.chats.appendLive(stamp, turn, expiresAt, now);
    const history = chat.messages.slice(-(env.ASSISTANT_HISTORY_TURNS + 1)).map((m) => ({ role: m.role, content: m.content }));
    let opened;
    try {
      opened = await this.upstream.startRun(
        {
          flowId: variant.flowId,
          versionId: variant.versionId,
          input: { messages: history, message: input.message, sessionId, ...(input.userId ? { userId: input.userId } : {}), meta },
          meta: { ...meta, source: 'assistant', session_id: sessionId, sessionId, variantLabel: variant.label, handoffEnabled: env.ASSISTANT_HANDOFF_ENABLED, ...(input.userId ? { userId: input.userId } : {}) },
          startedBy: input.userId ? `user:${input.userId}` : 'assistant:anonymous',
          // Recorded on the run and so on its usage rows: per-variant cost of the assistant's split.
          deploymentVariant: variant.label,
          events: CHAT_RUN_EVENTS,
        },
      );
    } catch (e) {
      await this.chats.withdraw(sessionId, now).catch(() => undefined);
      throw upstreamFailure(e, 'flow-runtime');
    }
    const { runId, versionId, versionHash, response } = opened;
    await this.chats.addRun(sessionId, runId, chat.versionHash ? undefined : versionHash);
    const relay = new ChatRelay(response.body, new StreamStop((reason) => response.abort(reason)), {
      session: { sessionId, runId, flowId: variant.flowId, versionId, variant: variant.label },
      startedAt,
      timeoutMs: env.ASSISTANT_RUN_TIMEOUT_MS,
      // Nobody waits for the answer any more: stop the run so it spends no further model tokens.
      onTimeout: () => {
        this.upstream.cancelRun(runId, `the chat stopped waiting after ASSISTANT_RUN_TIMEOUT_MS (${env.ASSISTANT_RUN_TIMEOUT_MS} ms)`).catch((e: Error) =>
          this.log.warn({ runId, err: e }, `a timed-out chat run could not be cancelled: ${e.message}`),
        );
      },
      log: this.log,
      storeReply: async (reply, firstFrameMs) => {
        const at = new Date();
        await this.chats.appendReply(
          sessionId,
          { role: 'assistant', content: reply.content, at, runId, status: reply.status, ...(reply.sources.length ? { sources: reply.sources as ChatMessage['sources'] } : {}), ...(reply.actions.length ? { actions: reply.actions as ChatMessage['actions'] } : {}), ...(firstFrameMs !== undefined ? { firstTokenMs: firstFrameMs } : {}) },
          chatExpiry(at, env.ASSISTANT_CHAT_TTL_DAYS),
          at,
        );
      },
    });
    return { sessionId, runId, relay };
  }
}
