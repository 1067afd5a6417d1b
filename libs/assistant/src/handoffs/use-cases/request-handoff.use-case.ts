import { Inject, Injectable } from '@nestjs/common';
import type { AssistantHandoffRequestedPayload } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { DuplicateKeyError } from '@flowplane/platform/store';
import { transcriptOf } from '../../chats/domain/chat.entity';
import { ChatRepository } from '../../chats/persistence/chat.repository';
import { type Handoff, type HandoffRequest, recordedPriority } from '../domain/handoff.entity';
import { HandoffRepository } from '../persistence/handoff.repository';
import { HandoffsOutbox } from '../persistence/handoffs.outbox';

/** Settings this use case reads (declared by the assistant's env fragment). */
interface HandoffSettings {
  ASSISTANT_HANDOFF_ENABLED?: boolean;
}

/** A filed request, or the session's pending one (`duplicate`: nothing was written). */
export interface HandoffFiled {
  handoff: Handoff;
  duplicate: boolean;
}

/** Answered with 409 when the session already has a pending request (rule 5); carries that request. */
export class HandoffPendingException extends DomainException {
  constructor(readonly existing: Handoff) {
    super('HANDOFF_PENDING', 409, 'this session already has a pending request for a person; they will get back to you', {
      ok: false,
      handoffId: existing.id,
      status: existing.status,
    });
  }
}

/**
 * Files a handoff request (rules 5 and 6), shared by POST /assistant/handoff and the internal route
 * the `svc/assistant-handoff-request` node calls. In one store transaction: the request with the
 * chat's transcript, its id on the chat, and `assistant.handoff_requested` in the outbox. One
 * pending request per session, enforced by a unique index, so concurrent requests file one.
 */
@Injectable()
export class RequestHandoffUseCase {
  constructor(
    private readonly handoffs: HandoffRepository,
    private readonly chats: ChatRepository,
    private readonly outbox: HandoffsOutbox,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Whether the handoff path is switched on (ASSISTANT_HANDOFF_ENABLED, default true). */
  get enabled(): boolean {
    return (this.config as ServiceConfig & HandoffSettings).ASSISTANT_HANDOFF_ENABLED !== false;
  }

  /** Throws 403 while handoff is switched off, `HandoffPendingException` (409) on a duplicate. */
  async execute(request: HandoffRequest, now = new Date()): Promise<Handoff> {
    const filed = await this.file(request, now);
    if (filed.duplicate) throw new HandoffPendingException(filed.handoff);
    return filed.handoff;
  }

  /** As `execute`, answering a duplicate instead of throwing (the node's Handoff port with duplicate=true). */
  async file(request: HandoffRequest, now = new Date()): Promise<HandoffFiled> {
    if (!this.enabled) throw new DomainException('HANDOFF_DISABLED', 403, 'handoff to a person is switched off (ASSISTANT_HANDOFF_ENABLED=false)');
    // The common duplicate answers from a read; the unique index settles the race the read cannot.
    const pending = await this.handoffs.findPending(request.sessionId);
    if (pending) return { handoff: pending, duplicate: true };
    try {
      const handoff = await this.outbox.transaction(async (session) => {
        const chat = await this.chats.findBySessionId(request.sessionId, now, session);
        const created = await this.handoffs.insertPending(
          {
            chatId: chat?.id ?? '',
            sessionId: request.sessionId,
            userId: request.userId,
            email: request.email,
            phone: request.phone,
            reason: request.reason,
            priority: recordedPriority(request.priority),
            transcript: chat ? transcriptOf(chat.messages) : '',
            createdAt: now,
          },
          session,
        );
        if (chat) await this.chats.attachHandoff(request.sessionId, created.id, session, now);
        await this.outbox.announce(session, eventOf(created));
        return created;
      });
      return { handoff, duplicate: false };
    } catch (e) {
      if (!(e instanceof DuplicateKeyError)) throw e;
      const existing = await this.handoffs.findPending(request.sessionId);
      // Pending a moment ago and already moved on: the caller may simply ask again.
      if (!existing) throw new DomainException('HANDOFF_CONFLICT', 409, 'another request for this session was just filed; try again');
      return { handoff: existing, duplicate: true };
    }
  }
}

/** The event payload: every field of the spec's table. */
export function eventOf(h: Handoff): AssistantHandoffRequestedPayload {
  const payload: AssistantHandoffRequestedPayload = {
    handoffId: h.id,
    chatId: h.chatId,
    sessionId: h.sessionId,
    email: h.email,
    priority: h.priority,
    transcript: h.transcript,
    requestedAt: h.createdAt.toISOString(),
  };
  if (h.userId) payload.userId = h.userId;
  if (h.phone) payload.phone = h.phone;
  if (h.reason) payload.reason = h.reason;
  return payload;
}
