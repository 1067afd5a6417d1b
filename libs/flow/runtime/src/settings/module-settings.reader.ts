import { hostname } from 'node:os';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import type { SettingsReaderLike } from '@flowplane/flow/engine';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { ServiceClients } from '@flowplane/platform/service';

/** What `GET /internal/settings/{module}` of the profiles service answers. */
interface InternalModuleSettings {
  values?: Record<string, unknown>;
}

/** How long one module's values are used before they are read again. */
export const MODULE_SETTINGS_TTL_MS = 5_000;

/**
 * Effective module settings (stored, then the profiles service's environment, then defaults) for
 * `$setting:<module>/<key>` references in node configs, through the internal settings route with a
 * `settings:read` service token (private values included: e-mail addresses are not public). One
 * fetch per module per few seconds, dropped at once on `settings.updated` for that module (fan-out
 * group per replica); while the profiles service is unreachable the last values read
 * are used, and with none the read fails, so the step fails (or goes to its Error port) rather than
 * using a fallback meant for an unset setting.
 */
@Injectable()
export class ModuleSettingsReader implements SettingsReaderLike, OnModuleInit, OnApplicationShutdown {
  private readonly cache = new Map<string, { values: Record<string, unknown>; at: number }>();
  private readonly inflight = new Map<string, Promise<Record<string, unknown>>>();
  // Bumped per module by every invalidation: a fetch that started before it must not repopulate the cache.
  private readonly generations = new Map<string, number>();
  private subscription?: Subscription;

  constructor(
    private readonly clients: ServiceClients,
    @Optional() @Inject(EVENT_BUS) private readonly bus?: EventBus | null,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.bus) return;
    this.subscription = await this.bus.subscribe<SettingsUpdatedPayload>(
      [Topics.SettingsUpdated],
      { groupId: `flow-runtime-settings-${hostname()}-${process.pid}`, fromBeginning: false },
      async (event) => {
        const module = event.data?.module;
        if (typeof module === 'string') this.invalidate(module);
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop().catch(() => undefined);
  }

  /** Drops what is cached of `module`; the next read asks the profiles service again. */
  invalidate(module: string): void {
    this.generations.set(module, (this.generations.get(module) ?? 0) + 1);
    this.cache.delete(module);
    this.inflight.delete(module);
  }

  async get(module: string, key: string): Promise<unknown> {
    const values = await this.module(module);
    return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined;
  }

  private async module(module: string): Promise<Record<string, unknown>> {
    const hit = this.cache.get(module);
    if (hit && Date.now() - hit.at < MODULE_SETTINGS_TTL_MS) return hit.values;
    let pending = this.inflight.get(module);
    if (!pending) {
      const fetching: Promise<Record<string, unknown>> = this.fetch(module).finally(() => {
        if (this.inflight.get(module) === fetching) this.inflight.delete(module);
      });
      pending = fetching;
      this.inflight.set(module, fetching);
    }
    try {
      return await pending;
    } catch (e) {
      if (hit) return hit.values;
      throw new Error(`module settings ${module} unavailable: ${(e as Error).message}`);
    }
  }

  private async fetch(module: string): Promise<Record<string, unknown>> {
    const generation = this.generations.get(module) ?? 0;
    const body = await this.clients.for('profiles', { timeoutMs: 3000, retries: 1 }).get<InternalModuleSettings>(`/internal/settings/${encodeURIComponent(module)}`);
    const values = body.values ?? {};
    if ((this.generations.get(module) ?? 0) === generation) this.cache.set(module, { values, at: Date.now() });
    return values;
  }
}
