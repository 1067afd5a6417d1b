import { Module } from '@nestjs/common';
import { AuthMeController } from './auth-me.controller';
import { DeploymentDescriptions } from './deployment-descriptions';
import { EdgeCachePurger, edgeCacheProvider } from './edge-cache-purger';
import { GatewayController } from './gateway.controller';
import { OpenApiAggregator } from './openapi-aggregator';
import { UpstreamClient } from './upstream-client';

/** The gateway's own routes; the proxy itself is Express middleware installed by the definition. */
@Module({ controllers: [GatewayController, AuthMeController], providers: [UpstreamClient, OpenApiAggregator, DeploymentDescriptions, edgeCacheProvider, EdgeCachePurger] })
export class GatewayModule {}
