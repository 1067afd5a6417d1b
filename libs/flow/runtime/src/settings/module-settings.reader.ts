import { Injectable } from '@nestjs/common';
import type { SettingsReaderLike } from '@flowplane/flow/engine';
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
 * fetch per module per few seconds; while the profiles service is unreachable the last values read
 * are used, and with none the read fails, so the step fails (or goes to its Error port) rather than
 * using a fallback meant for an unset setting.
 */
@Injectable()
export class ModuleSettingsReader implements SettingsReaderLike {
  private readonly cache = new Map<string, { values: Record<string, unknown>; at: number }>();
  private readonly inflight = new Map<string, Promise<Record<string, unknown>>>();

  constructor(private readonly clients: ServiceClients) {}

  async get(module: string, key: string): Promise<unknown> {
    const values = await this.module(module);
    return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined;
  }

  private async module(module: string): Promise<Record<string, unknown>> {
    const hit = this.cache.get(module);
    if (hit && Date.now() - hit.at < MODULE_SETTINGS_TTL_MS) return hit.values;
    let pending = this.inflight.get(module);
    if (!pending) {
      pending = this.fetch(module).finally(() => this.inflight.delete(module));
      this.inflight.set(module, pending);
    }
    try {
      return await pending;
    } catch (e) {
      if (hit) return hit.values;
      throw new Error(`module settings ${module} unavailable: ${(e as Error).message}`);
    }
  }

  private async fetch(module: string): Promise<Record<string, unknown>> {
    const body = await this.clients.for('profiles', { timeoutMs: 3000, retries: 1 }).get<InternalModuleSettings>(`/internal/settings/${encodeURIComponent(module)}`);
    const values = body.values ?? {};
    this.cache.set(module, { values, at: Date.now() });
    return values;
  }
}
