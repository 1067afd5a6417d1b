import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RemoteNodeRegistration, SERVICE_CONTEXT, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import { I18N_NODE_MANIFESTS, I18N_NODE_PATHS } from './i18n-nodes';

/**
 * Registers the i18n flow nodes with flow-runtime once this service listens (see
 * RemoteNodeRegistration). The invoke base is `I18N_URL` when set (split deployments), else the
 * address this process listens on. Disabled mode registers them too: their steps then output
 * `i18n not configured` on Error instead of failing as an unknown node.
 */
@Injectable()
export class I18nNodeRegistrar implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly registration: RemoteNodeRegistration;

  constructor(
    clients: ServiceClients,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {
    const nodes = I18N_NODE_MANIFESTS.map((manifest) => ({ manifest, path: I18N_NODE_PATHS[manifest.id] }));
    this.registration = new RemoteNodeRegistration(clients, nodes, () => this.base(), 'I18nNodes');
  }

  /** True once both nodes are registered. */
  get done(): boolean {
    return this.registration.done;
  }

  onApplicationBootstrap(): void {
    this.registration.start();
  }

  onApplicationShutdown(): void {
    this.registration.stop();
  }

  /** Where flow-runtime reaches this service; undefined until the listener is up. */
  private base(): string | undefined {
    const configured = this.ctx.env.I18N_URL?.trim();
    if (configured) return configured;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const address = server?.listening ? (server.address() as AddressInfo | null) : null;
    return address ? `http://127.0.0.1:${address.port}` : undefined;
  }
}
