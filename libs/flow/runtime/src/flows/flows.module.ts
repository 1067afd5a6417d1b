import { Module } from '@nestjs/common';
import { outboxProvider } from '@flowplane/platform/service';
import { FlowRepository } from './flow.repository';
import { FlowsController } from './flows.controller';
import { FLOWS_OUTBOX, FlowsService } from './flows.service';
import { NODE_CATALOG, type NodeCatalog } from './node-catalog';

/** Flows, versions, publish and rollback (issue 4 item 7). */
@Module({
  controllers: [FlowsController],
  providers: [
    FlowRepository,
    FlowsService,
    outboxProvider(FLOWS_OUTBOX, { collection: 'flows_outbox', source: '/services/flow-runtime' }),
    // Until the node registry lands, the catalog knows the bundled node ids only by registration.
    { provide: NODE_CATALOG, useValue: { has: () => false } satisfies NodeCatalog },
  ],
  exports: [FlowsService],
})
export class FlowsModule {}
