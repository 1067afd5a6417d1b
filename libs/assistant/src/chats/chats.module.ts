import { Module } from '@nestjs/common';
import { UpstreamModule } from '../upstream/upstream.module';
import { AdminChatsController } from './http/admin-chats.controller';
import { AssistantChatController } from './http/assistant-chat.controller';
import { ChatRepository } from './persistence/chat.repository';
import { ChatQueries } from './use-cases/chat.queries';
import { ChatRateLimits } from './use-cases/chat-rate-limits';
import { ChatStatsUseCase } from './use-cases/chat-stats.use-case';
import { ChatSweeper } from './use-cases/chat-sweeper';
import { RateReplyUseCase } from './use-cases/rate-reply.use-case';
import { ResumeStreamUseCase } from './use-cases/resume-stream.use-case';
import { SendMessageUseCase } from './use-cases/send-message.use-case';

/**
 * Chats (collection `assistant_chats`): the chat path over SSE, resume, transcripts, feedback,
 * the admin lists and stats. Exports the repository other assistant features read and link to
 * (the handoff feature reads a session's transcript and sets its `handoffId`).
 */
@Module({
  imports: [UpstreamModule],
  controllers: [AssistantChatController, AdminChatsController],
  providers: [ChatRepository, ChatQueries, ChatRateLimits, ChatStatsUseCase, ChatSweeper, RateReplyUseCase, ResumeStreamUseCase, SendMessageUseCase],
  exports: [ChatRepository],
})
export class ChatsModule {}
