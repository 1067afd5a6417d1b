import { Global, Module } from '@nestjs/common';
import { NodeRegistry } from '@flowplane/flow/engine';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { AssistantHandoffClient } from '@flowplane/contracts';
import { SERVICE_CONTEXT, ServiceClients, type ServiceContext } from '@flowplane/platform/service';
import { NODE_CATALOG } from '../flows/node-catalog';
import { LLM_RUNTIME, type LlmRuntime } from '../llm/llm.tokens';
import { builtinNodes } from './builtin';
import { NodeListingService } from './node-listing.service';
import { NodesController } from './nodes.controller';
import { RemoteNodesController } from './remote/remote-nodes.controller';
import { RemoteNodesService } from './remote/remote-nodes.service';
import { NODE_REGISTRY } from './nodes.tokens';

export { NODE_REGISTRY } from './nodes.tokens';

/**
 * The node registry shared by publishing (which action_refs exist) and the engine. The built-ins
 * are defined when the registry is made, so nothing can see it without them (a provider's
 * onModuleInit elsewhere could otherwise compile a version before a registrar ran). Remote nodes
 * (other services' handlers, registered over `PUT /internal/nodes/{id}`) are loaded from the store
 * in RemoteNodesService.onModuleInit, before any version is compiled at application bootstrap.
 */
@Global()
@Module({
  controllers: [NodesController, RemoteNodesController],
  providers: [
    {
      provide: NODE_REGISTRY,
      inject: [EVENT_BUS, SERVICE_CONTEXT, LLM_RUNTIME, ServiceClients],
      useFactory: (bus: EventBus, ctx: ServiceContext, llm: LlmRuntime, clients: ServiceClients) => {
        let handoff: AssistantHandoffClient | undefined;
        const assistantHandoff = () => (handoff ??= new AssistantHandoffClient(clients.for('assistant', { timeoutMs: 10_000, retries: 0 })));
        return new NodeRegistry([...builtinNodes({ bus, env: ctx.env, assistantHandoff }), ...llm.nodes]);
      },
    },
    { provide: NODE_CATALOG, useExisting: NODE_REGISTRY },
    NodeListingService,
    RemoteNodesService,
  ],
  exports: [NODE_REGISTRY, NODE_CATALOG],
})
export class NodesModule {}
