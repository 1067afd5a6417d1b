import { Module } from '@nestjs/common';
import { outboxProvider } from '@flowplane/platform/service';
import { FlowRepository } from './flow.repository';
import { FlowsController, InternalFlowsController } from './flows.controller';
import { FLOWS_OUTBOX, FlowsService } from './flows.service';

/** Flows, versions, publish and rollback (issue 4 item 7). */
@Module({
  controllers: [FlowsController, InternalFlowsController],
  providers: [
    FlowRepository,
    FlowsService,
    outboxProvider(FLOWS_OUTBOX, { collection: 'flows_outbox', source: '/services/flow-runtime' }),
  ],
  exports: [FlowsService],
})
export class FlowsModule {}
