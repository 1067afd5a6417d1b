import { Module } from '@nestjs/common';
import { UpstreamClients } from './upstream.clients';
import { VariantResolver } from './variant-resolver';

/** The assistant's clients of deployments and flow-runtime, and its cached variant selection. */
@Module({ providers: [UpstreamClients, VariantResolver], exports: [UpstreamClients, VariantResolver] })
export class UpstreamModule {}
