import { Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { ChatRepository } from '../persistence/chat.repository';

/** `POST /assistant/feedback`: stores an up or down rating (and comment) on the assistant turn of a run. */
@Injectable()
export class RateReplyUseCase {
  constructor(private readonly chats: ChatRepository) {}

  async execute(input: { sessionId: string; runId: string; rating: 'up' | 'down'; comment?: string }): Promise<{ ok: true }> {
    const ok = await this.chats.rate(input.sessionId, input.runId, input.rating, input.comment);
    if (!ok) throw new DomainException('TURN_NOT_FOUND', 404, `the session has no assistant turn of run ${input.runId}`);
    return { ok: true };
  }
}
