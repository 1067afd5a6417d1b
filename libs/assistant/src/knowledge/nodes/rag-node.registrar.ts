import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_CONFIG, SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { RAG_CONTEXT_MANIFEST, RAG_CONTEXT_PATH } from './rag-context.node';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 15_000;

/**
 * Registers `svc/assistant-rag-context` with flow-runtime (`PUT /internal/nodes/{id}`) once this
 * service listens, retrying with backoff until flow-runtime answers, like search's nodes: the
 * assistant owns the knowledge index's chunk format, so it serves the node that reads it.
 */
@Injectable()
export class RagNodeRegistrar implements OnApplicationShutdown {
  private readonly log = new Logger('RagNode');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private registered = false;
  private attempts = 0;

  constructor(
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & AssistantEnv,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  get done(): boolean {
    return this.registered;
  }

  start(listenUrl: string): void {
    if (this.config.ASSISTANT_REGISTER_NODES === false) return;
    const base = (this.config.ASSISTANT_NODE_BASE_URL || this.ctx.env.ASSISTANT_URL?.trim() || listenUrl).replace(/\/+$/, '');
    const attempt = async () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.attempts++;
      try {
        await this.clients.for('flow-runtime', { timeoutMs: 5000, retries: 0 }).put(`/internal/nodes/${RAG_CONTEXT_MANIFEST.id}`, { manifest: RAG_CONTEXT_MANIFEST, invokeUrl: `${base}${RAG_CONTEXT_PATH}` });
        this.registered = true;
        this.log.log(`registered ${RAG_CONTEXT_MANIFEST.id} with flow-runtime (invoke base ${base})`);
      } catch (err) {
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.attempts - 1, 10));
        if (this.attempts === 1 || this.attempts % 10 === 0) {
          this.log.warn(`flow-runtime did not take ${RAG_CONTEXT_MANIFEST.id} yet (attempt ${this.attempts}, next in ${delay} ms): ${(err as Error).message}`);
        }
        if (!this.stopped) {
          this.timer = setTimeout(() => void attempt(), delay);
          this.timer.unref();
        }
      }
    };
    this.timer = setTimeout(() => void attempt(), 0);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
