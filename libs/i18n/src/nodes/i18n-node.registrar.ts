import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICE_CONTEXT, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import { I18N_NODE_MANIFESTS, I18N_NODE_PATHS } from './i18n-nodes';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 15_000;

/**
 * Registers the i18n flow nodes with flow-runtime (`PUT /internal/nodes/i18n/<name>`) once this
 * service listens, retrying with backoff until flow-runtime answers (it may start later or restart),
 * so start order does not matter. The invoke base is `I18N_URL` when set (split deployments), else
 * the address this process listens on. Disabled mode registers them too: their steps then output
 * `i18n not configured` on Error instead of failing as an unknown node.
 */
@Injectable()
export class I18nNodeRegistrar implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('I18nNodes');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private registered = false;
  private attempts = 0;

  constructor(
    private readonly clients: ServiceClients,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  /** True once both nodes are registered. */
  get done(): boolean {
    return this.registered;
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Where flow-runtime reaches this service; undefined until the listener is up. */
  private base(): string | undefined {
    const configured = this.ctx.env.I18N_URL?.trim();
    if (configured) return configured.replace(/\/+$/, '');
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const address = server?.listening ? (server.address() as AddressInfo | null) : null;
    return address ? `http://127.0.0.1:${address.port}` : undefined;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.attempt(), delay);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    const base = this.base();
    if (!base) return this.schedule(FIRST_RETRY_MS);
    this.attempts++;
    try {
      const client = this.clients.for('flow-runtime', { timeoutMs: 5000, retries: 0 });
      for (const manifest of I18N_NODE_MANIFESTS) {
        await client.put(`/internal/nodes/${manifest.id}`, { manifest, invokeUrl: `${base}${I18N_NODE_PATHS[manifest.id]}` });
      }
      this.registered = true;
      this.log.log(`registered ${I18N_NODE_MANIFESTS.map((m) => m.id).join(', ')} with flow-runtime (invoke base ${base})`);
    } catch (err) {
      const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.attempts - 1, 10));
      if (this.attempts === 1 || this.attempts % 10 === 0) {
        this.log.warn(`flow-runtime did not take the i18n nodes yet (attempt ${this.attempts}, next in ${delay} ms): ${(err as Error).message}`);
      }
      this.schedule(delay);
    }
  }
}
