import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { RemoteNodeRegistration, SERVICE_CONFIG, SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import type { SearchEnv } from '../search.env';
import { SEARCH_NODE_MANIFESTS, SEARCH_NODE_PATHS } from './search-nodes';

/** Registers the search flow nodes with flow-runtime once this service listens (see RemoteNodeRegistration). */
@Injectable()
export class SearchNodeRegistrar implements OnApplicationShutdown {
  private registration?: RemoteNodeRegistration;

  constructor(
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  /** True once both nodes are registered. */
  get done(): boolean {
    return this.registration?.done ?? false;
  }

  /** Starts registering; `listenUrl` is where this process listens (used when no base URL is configured). */
  start(listenUrl: string): void {
    if (!this.config.SEARCH_REGISTER_NODES) return;
    const base = this.config.SEARCH_NODE_BASE_URL || this.ctx.env.SEARCH_URL?.trim() || listenUrl;
    const nodes = SEARCH_NODE_MANIFESTS.map((manifest) => ({ manifest, path: SEARCH_NODE_PATHS[manifest.id] }));
    this.registration = new RemoteNodeRegistration(this.clients, nodes, () => base, 'SearchNodes');
    this.registration.start();
  }

  onApplicationShutdown(): void {
    this.registration?.stop();
  }
}
