import { Module } from '@nestjs/common';
import { ChatsModule } from '../chats/chats.module';
import { HandoffsController, InternalHandoffsController } from './http/handoffs.controller';
import { HandoffRepository } from './persistence/handoff.repository';
import { HandoffsOutbox } from './persistence/handoffs.outbox';
import { HandoffQueries } from './use-cases/handoff.queries';
import { RequestHandoffUseCase } from './use-cases/request-handoff.use-case';
import { UpdateHandoffUseCase } from './use-cases/update-handoff.use-case';

/**
 * Handoffs (collection `assistant_handoffs`, permanent): a request for a person, filed from the
 * public route or the `svc/assistant-handoff-request` node through one use case, linked to the
 * chat and announced as `assistant.handoff_requested` through the outbox; worked through the admin routes.
 */
@Module({
  imports: [ChatsModule],
  controllers: [HandoffsController, InternalHandoffsController],
  providers: [HandoffRepository, HandoffsOutbox, RequestHandoffUseCase, UpdateHandoffUseCase, HandoffQueries],
  exports: [HandoffRepository, RequestHandoffUseCase],
})
export class HandoffsModule {}
