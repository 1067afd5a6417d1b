import { Module } from '@nestjs/common';
import { ChatsModule } from './chats/chats.module';

/**
 * The assistant service: chats over SSE backed by a published flow, stored conversations, and
 * the assistant's module flow and templates. Each feature is its own module.
 */
@Module({
  imports: [ChatsModule],
})
export class AssistantModule {}
