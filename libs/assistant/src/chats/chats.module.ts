import { Module } from '@nestjs/common';
import { ChatRepository } from './persistence/chat.repository';

/**
 * Chats (collection `assistant_chats`): the repository other assistant features read and link to
 * (the handoff feature reads a session's transcript and sets its `handoffId`).
 */
@Module({
  providers: [ChatRepository],
  exports: [ChatRepository],
})
export class ChatsModule {}
