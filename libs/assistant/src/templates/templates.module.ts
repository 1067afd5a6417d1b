import { Module } from '@nestjs/common';
import { KnowledgeSearchClient } from '../knowledge/use-cases/search.client';
import { UpstreamModule } from '../upstream/upstream.module';
import { AssistantTemplatesController } from './http/assistant-templates.controller';
import { EnsureModuleFlowUseCase } from './use-cases/ensure-module-flow.use-case';
import { ResetAssistantUseCase } from './use-cases/reset-assistant.use-case';

/** The embedded templates, the module flow and deployment seeded at start-up, and the reset routes. */
@Module({
  imports: [UpstreamModule],
  controllers: [AssistantTemplatesController],
  providers: [EnsureModuleFlowUseCase, ResetAssistantUseCase, KnowledgeSearchClient],
})
export class TemplatesModule {}
