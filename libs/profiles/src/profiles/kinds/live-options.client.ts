import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { type OptionSource, ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { ServiceClients } from '@flowplane/platform/service';
import { liveSourceOf, type ResolvedKind } from './profile-kind.model';

/** The options of a live source, or why they could not be had. */
export type LiveOptions =
  { available: true; options: readonly string[] } | { available: false; reason: string };

/** Tuning of `LiveOptionsClient`. */
export interface LiveOptionsConfig {
  /** Per-call timeout; the kinds endpoint waits at most this long for a source. */
  timeoutMs: number;
  /** How long a fetched list is reused. */
  ttlMs: number;
  /** How long a failure is remembered before the source is asked again. */
  failureTtlMs: number;
  now: () => number;
}

/** Optional injection token overriding `LiveOptionsConfig` fields (tests). */
export const LIVE_OPTIONS_CONFIG = Symbol('LIVE_OPTIONS_CONFIG');

const DEFAULTS: LiveOptionsConfig = { timeoutMs: 1500, ttlMs: 30_000, failureTtlMs: 5_000, now: Date.now };

/** Live option sources are owned by flow-runtime (LLM providers, guards). */
const OWNER = 'flow-runtime';

/**
 * Fetches live option sources (`llm.providers`, `guard.guards`) from flow-runtime's
 * `GET /internal/options/<source>`, which answers a string array or `{options: string[]}`. A short
 * timeout and no retries keep the kinds endpoint answering when the owner is down; a small cache
 * (successes for `ttlMs`, failures for `failureTtlMs`) keeps it from asking on every request, and
 * concurrent askers share one call.
 */
@Injectable()
export class LiveOptionsClient {
  private readonly log = new Logger('LiveOptions');
  private readonly config: LiveOptionsConfig;
  private readonly cache = new Map<OptionSource, { result: LiveOptions; expiresAt: number }>();
  private readonly inflight = new Map<OptionSource, Promise<LiveOptions>>();

  constructor(
    private readonly clients: ServiceClients,
    @Optional() @Inject(LIVE_OPTIONS_CONFIG) config?: Partial<LiveOptionsConfig>,
  ) {
    this.config = { ...DEFAULTS, ...config };
  }

  /** The options of one source; never throws. */
  options(source: OptionSource): Promise<LiveOptions> {
    const cached = this.cache.get(source);
    if (cached && this.config.now() < cached.expiresAt) return Promise.resolve(cached.result);
    let pending = this.inflight.get(source);
    if (!pending) {
      pending = this.fetch(source).then((result) => {
        const ttl = result.available ? this.config.ttlMs : this.config.failureTtlMs;
        this.cache.set(source, { result, expiresAt: this.config.now() + ttl });
        this.inflight.delete(source);
        return result;
      });
      this.inflight.set(source, pending);
    }
    return pending;
  }

  /** Live options of the kind's fields that use a live source, keyed by field; only `keys` when given. */
  async forKind(kind: ResolvedKind, keys?: Iterable<string>): Promise<Map<string, LiveOptions>> {
    const wanted = keys ? new Set(keys) : undefined;
    const out = new Map<string, LiveOptions>();
    await Promise.all(
      kind.fields.map(async (field) => {
        const source = liveSourceOf(field);
        if (!source || (wanted && !wanted.has(field.key))) return;
        out.set(field.key, await this.options(source));
      }),
    );
    return out;
  }

  private async fetch(source: OptionSource): Promise<LiveOptions> {
    let body: unknown;
    try {
      body = await this.clients
        .for(OWNER, { timeoutMs: this.config.timeoutMs, retries: 0 })
        .get(`/internal/options/${encodeURIComponent(source)}`);
    } catch (error) {
      return this.unavailable(source, describe(error, this.config.timeoutMs));
    }
    const list = Array.isArray(body) ? body : (body as { options?: unknown } | undefined)?.options;
    if (!Array.isArray(list) || list.some((o) => typeof o !== 'string')) {
      return this.unavailable(source, `${OWNER} answered something other than a list of option ids`);
    }
    return { available: true, options: [...new Set(list as string[])] };
  }

  private unavailable(source: OptionSource, reason: string): LiveOptions {
    this.log.warn(`options of ${source} unavailable: ${reason}`);
    return { available: false, reason };
  }
}

// Reasons are shown to admins: they name the owner and what went wrong, never an internal URL.
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof ServiceUnavailableError) {
    return error.reason === 'timeout'
      ? `${OWNER} did not answer within ${timeoutMs} ms`
      : `${OWNER} is unreachable`;
  }
  if (error instanceof ServiceCallError && error.status !== undefined)
    return `${OWNER} answered ${error.status}`;
  return `${OWNER} could not be asked`;
}
