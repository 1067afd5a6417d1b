import { Module } from '@nestjs/common';
import { outboxProvider } from '@flowplane/platform/service';
import { DEPLOYMENTS_OUTBOX, DeploymentsService } from './deployments.service';
import { DeploymentsController } from './http/deployments.controller';
import { InternalDeploymentsController } from './http/internal-deployments.controller';
import { DeploymentRepository } from './persistence/deployment.repository';
import { FlowRuntimeClient } from './persistence/flow-runtime.client';

/**
 * The deployments feature module (issue 6): routing records with weighted sticky variants, route
 * claims, and `deployments.changed` through a transactional outbox.
 */
@Module({
  controllers: [DeploymentsController, InternalDeploymentsController],
  providers: [
    DeploymentRepository,
    FlowRuntimeClient,
    DeploymentsService,
    outboxProvider(DEPLOYMENTS_OUTBOX, { collection: 'deployments_outbox', source: '/services/deployments' }),
  ],
  exports: [DeploymentsService],
})
export class DeploymentsModule {}
