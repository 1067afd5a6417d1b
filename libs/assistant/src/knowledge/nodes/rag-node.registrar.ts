import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { RemoteNodeRegistration, SERVICE_CONFIG, SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { RAG_CONTEXT_MANIFEST, RAG_CONTEXT_PATH } from './rag-context.node';

/**
 * Registers `svc/assistant-rag-context` with flow-runtime once this service listens, like search's
 * nodes: the assistant owns the knowledge index's chunk format, so it serves the node that reads it.
 */
@Injectable()
export class RagNodeRegistrar implements OnApplicationShutdown {
  private registration?: RemoteNodeRegistration;

  constructor(
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & AssistantEnv,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  get done(): boolean {
    return this.registration?.done ?? false;
  }

  start(listenUrl: string): void {
    if (this.config.ASSISTANT_REGISTER_NODES === false) return;
    const base = this.config.ASSISTANT_NODE_BASE_URL || this.ctx.env.ASSISTANT_URL?.trim() || listenUrl;
    this.registration = new RemoteNodeRegistration(this.clients, [{ manifest: RAG_CONTEXT_MANIFEST, path: RAG_CONTEXT_PATH }], () => base, 'RagNode');
    this.registration.start();
  }

  onApplicationShutdown(): void {
    this.registration?.stop();
  }
}
