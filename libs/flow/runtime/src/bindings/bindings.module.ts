import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventSourcesModule } from '../event-sources/event-sources.module';
import { FlowsModule } from '../flows/flows.module';
import { RunsModule } from '../runs/runs.module';
import { TemplatesModule } from '../templates/templates.module';
import { ActivationController } from './activation.controller';
import { ActivationService } from './activation.service';
import { ApiRoutes } from './api-routes';
import { DeploymentTable } from './deployment-table.service';
import { DeploymentsClient } from './deployments.client';
import { DispatcherController } from './dispatcher.controller';
import { FlowDeployments } from './flow-deployments.service';
import { FlowDocumentsController } from './flow-documents.controller';
import { RouteDispatcher } from './route-dispatcher.service';
import { SubscriberBindings } from './subscriber-bindings.service';

/**
 * Deployments in flow-runtime (issue 6): the internal reads the deployments service needs, the
 * table of deployments, the route dispatcher and the subscriber bindings. Imported LAST by
 * FlowRuntimeModule: the dispatcher's catch-all must come after every other route.
 */
@Module({
  imports: [DiscoveryModule, FlowsModule, TemplatesModule, RunsModule, EventSourcesModule],
  controllers: [ActivationController, FlowDocumentsController, DispatcherController],
  providers: [ActivationService, ApiRoutes, DeploymentsClient, DeploymentTable, FlowDeployments, RouteDispatcher, SubscriberBindings],
  exports: [DeploymentTable],
})
export class BindingsModule {}
