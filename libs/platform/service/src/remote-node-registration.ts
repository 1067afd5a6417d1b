import { Logger } from '@nestjs/common';
import type { ServiceClients } from './service-clients';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 15_000;

/** One node a service serves: its manifest (with `id`) and the path of its invoke route. */
export interface ServedNode {
  manifest: { id: string };
  path: string;
}

/**
 * Registers a service's remote flow nodes with flow-runtime (`PUT /internal/nodes/{id}`), retrying
 * with backoff until flow-runtime answers (it may start later, or restart), so start order does not
 * matter; flow-runtime keeps the registration in its store. `base()` is where flow-runtime reaches
 * this service, or undefined while the listener is not up yet.
 */
export class RemoteNodeRegistration {
  private readonly log: Logger;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private registered = false;
  private attempts = 0;

  constructor(
    private readonly clients: ServiceClients,
    private readonly nodes: readonly ServedNode[],
    private readonly base: () => string | undefined,
    logContext: string,
  ) {
    this.log = new Logger(logContext);
  }

  /** True once every node is registered. */
  get done(): boolean {
    return this.registered;
  }

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.attempt(), delay);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    const base = this.base()?.replace(/\/+$/, '');
    if (!base) return this.schedule(FIRST_RETRY_MS);
    this.attempts++;
    const ids = this.nodes.map((n) => n.manifest.id).join(', ');
    try {
      const client = this.clients.for('flow-runtime', { timeoutMs: 5000, retries: 0 });
      for (const { manifest, path } of this.nodes) await client.put(`/internal/nodes/${manifest.id}`, { manifest, invokeUrl: `${base}${path}` });
      this.registered = true;
      this.log.log(`registered ${ids} with flow-runtime (invoke base ${base})`);
    } catch (err) {
      const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.attempts - 1, 10));
      if (this.attempts === 1 || this.attempts % 10 === 0) {
        this.log.warn(`flow-runtime did not take ${ids} yet (attempt ${this.attempts}, next in ${delay} ms): ${(err as Error).message}`);
      }
      this.schedule(delay);
    }
  }
}
