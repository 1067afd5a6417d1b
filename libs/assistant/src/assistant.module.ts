import { Module } from '@nestjs/common';
import { ChatsModule } from './chats/chats.module';
import { AssistantConfigModule } from './config/assistant-config.module';
import { TemplatesModule } from './templates/templates.module';
import { HandoffsModule } from './handoffs/handoffs.module';
import { KnowledgeModule } from './knowledge/knowledge.module';

/**
 * The assistant service: chats over SSE backed by a published flow, stored conversations, and
 * the assistant's module flow and templates. Each feature is its own module.
 */
@Module({
  imports: [ChatsModule, AssistantConfigModule, TemplatesModule, HandoffsModule, KnowledgeModule],
})
export class AssistantModule {}
