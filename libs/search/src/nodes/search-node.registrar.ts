import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_CONFIG, SERVICE_CONTEXT, type ServiceConfig, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import type { SearchEnv } from '../search.env';
import { SEARCH_NODE_MANIFESTS, SEARCH_NODE_PATHS } from './search-nodes';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 15_000;

/**
 * Registers the search flow nodes with flow-runtime (`PUT /internal/nodes/{id}`) once this service
 * listens, retrying with backoff until flow-runtime answers (it may start later, or restart), so
 * start order does not matter. flow-runtime keeps the registration in its store.
 */
@Injectable()
export class SearchNodeRegistrar implements OnApplicationShutdown {
  private readonly log = new Logger('SearchNodes');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private registered = false;
  private attempts = 0;

  constructor(
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig & SearchEnv,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  /** True once both nodes are registered. */
  get done(): boolean {
    return this.registered;
  }

  /** Starts registering; `listenUrl` is where this process listens (used when no base URL is configured). */
  start(listenUrl: string): void {
    if (!this.config.SEARCH_REGISTER_NODES) return;
    const base = (this.config.SEARCH_NODE_BASE_URL || this.ctx.env.SEARCH_URL?.trim() || listenUrl).replace(/\/+$/, '');
    const attempt = async () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.attempts++;
      try {
        const client = this.clients.for('flow-runtime', { timeoutMs: 5000, retries: 0 });
        for (const manifest of SEARCH_NODE_MANIFESTS) {
          await client.put(`/internal/nodes/${manifest.id}`, { manifest, invokeUrl: `${base}${SEARCH_NODE_PATHS[manifest.id]}` });
        }
        this.registered = true;
        this.log.log(`registered ${SEARCH_NODE_MANIFESTS.map((m) => m.id).join(', ')} with flow-runtime (invoke base ${base})`);
      } catch (err) {
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.attempts - 1, 10));
        if (this.attempts === 1 || this.attempts % 10 === 0) {
          this.log.warn(`flow-runtime did not take the search nodes yet (attempt ${this.attempts}, next in ${delay} ms): ${(err as Error).message}`);
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
