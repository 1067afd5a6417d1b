import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { UpstreamClients } from '../../upstream/upstream.clients';
import { upstreamFailure } from '../../upstream/upstream.errors';
import { CHAT_RUN_EVENTS } from '../domain/chat-frames';
import { chatExpiry, type ChatMessage, SESSION_ID_PATTERN } from '../domain/chat.entity';
import { ChatRepository } from '../persistence/chat.repository';
import { ChatRelay } from './chat-relay';

/**
 * `GET /assistant/messages/{runId}/events` (issue 16 item 3): replays every frame of a chat run
 * after `Last-Event-ID` and follows it to its end. The session id is the capability: the run must
 * be one of that session's chat. A run that ended with nothing after the id closes at once. The
 * reply is stored (once) if the original stream had not stored it yet.
 */
@Injectable()
export class ResumeStreamUseCase {
  private readonly log = new Logger('AssistantChat');

  constructor(
    private readonly chats: ChatRepository,
    private readonly upstream: UpstreamClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(runId: string, sessionId: string | undefined, lastEventId: string | undefined): Promise<ChatRelay> {
    if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) throw new DomainException('INVALID_SESSION_ID', 400, 'send the chat session id in X-Assistant-Session-Id (8 to 128 letters, digits, _ or -)');
    const chat = await this.chats.findBySessionId(sessionId);
    if (!chat || !chat.runIds.includes(runId)) throw new DomainException('RUN_NOT_FOUND', 404, `session has no run ${runId}`);
    const parsed = Number.parseInt(lastEventId ?? '0', 10);
    const after = Number.isFinite(parsed) && parsed > 0 ? parsed : 0;
    const abort = new AbortController();
    let response;
    try {
      response = await this.upstream.runEvents(runId, after, abort.signal, CHAT_RUN_EVENTS);
    } catch (e) {
      throw upstreamFailure(e, 'flow-runtime');
    }
    const env = this.config as ServiceConfig & AssistantEnv;
    return new ChatRelay(response.body!, abort, {
      session: { sessionId, runId, flowId: chat.flowId, variant: chat.variantLabel },
      startedAt: Date.now(),
      resumed: true,
      timeoutMs: env.ASSISTANT_RUN_TIMEOUT_MS,
      log: this.log,
      storeReply: async (reply) => {
        const at = new Date();
        await this.chats.appendReply(
          sessionId,
          { role: 'assistant', content: reply.content, at, runId, status: reply.status, ...(reply.sources.length ? { sources: reply.sources as ChatMessage['sources'] } : {}), ...(reply.actions.length ? { actions: reply.actions as ChatMessage['actions'] } : {}) },
          chatExpiry(at, env.ASSISTANT_CHAT_TTL_DAYS),
          at,
        );
      },
    });
  }
}
