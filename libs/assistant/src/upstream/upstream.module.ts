import { Module } from '@nestjs/common';
import { UpstreamClients } from './upstream.clients';

/** The assistant's clients of deployments and flow-runtime. */
@Module({ providers: [UpstreamClients], exports: [UpstreamClients] })
export class UpstreamModule {}
