import { Global, Module } from '@nestjs/common';
import { NodeRegistry } from '@flowplane/flow/engine';
import { NODE_CATALOG } from '../flows/node-catalog';

/** Nest token of the flow-runtime's node registry (built-in and remote nodes register here). */
export const NODE_REGISTRY = Symbol('NODE_REGISTRY');

/** The node registry shared by publishing (which action_refs exist) and the engine. */
@Global()
@Module({
  providers: [
    { provide: NODE_REGISTRY, useFactory: () => new NodeRegistry() },
    { provide: NODE_CATALOG, useExisting: NODE_REGISTRY },
  ],
  exports: [NODE_REGISTRY, NODE_CATALOG],
})
export class NodesModule {}
