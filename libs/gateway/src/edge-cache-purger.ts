import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { EdgeCache } from './edge-cache';
import type { GatewayEnv } from './gateway.env';

/**
 * The tags (`Surrogate-Key` values) a platform event makes stale. Upstreams tag what they build an
 * answer from with the same names: a page with `page:<slug>` and `settings` (its tokens), a fragment
 * with `fragment:<key>` and `settings`. A change that does not say what changed makes everything stale.
 */
export function tagsOfEvent(topic: string, data: unknown): string[] | 'all' {
  const d = (data ?? {}) as { slug?: unknown; key?: unknown; id?: unknown };
  const name = (own: unknown) => (typeof own === 'string' ? own : typeof d.id === 'string' ? d.id : undefined);
  if (topic === Topics.ContentPageChanged) {
    const slug = name(d.slug);
    return slug === undefined ? 'all' : [`page:${slug}`];
  }
  if (topic === Topics.ContentFragmentChanged) {
    const key = name(d.key);
    return key === undefined ? 'all' : [`fragment:${key}`];
  }
  if (topic === Topics.SettingsUpdated) return ['settings'];
  return [];
}

/** The gateway's cache, sized by GATEWAY_CACHE_MAX_BYTES (0: off). */
export const edgeCacheProvider = {
  provide: EdgeCache,
  inject: [SERVICE_CONFIG],
  useFactory: (c: ServiceConfig & GatewayEnv) => new EdgeCache({ maxBytes: c.GATEWAY_CACHE_MAX_BYTES }),
};

/**
 * Drops cached answers when what they were built from changes anywhere: every gateway instance
 * reads the events in a consumer group of its own (each must see every change). An event the cache
 * cannot map to tags is ignored; when the bus cannot be subscribed, the entries' own max-age still
 * bounds how stale an answer can be.
 */
@Injectable()
export class EdgeCachePurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('EdgeCache');
  private subscription?: Subscription;
  private readonly groupId = `gateway-edge-cache-${randomUUID()}`;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(EdgeCache) private readonly cache: EdgeCache,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.cache.enabled) return;
    try {
      this.subscription = await this.bus.subscribe([Topics.ContentPageChanged, Topics.ContentFragmentChanged, Topics.SettingsUpdated], { groupId: this.groupId, fromBeginning: false }, async (event, ctx) => {
        const tags = tagsOfEvent(ctx.topic, event.data);
        if (tags === 'all') this.cache.clear();
        else this.cache.purgeTags(tags);
      });
    } catch (err) {
      // Serving goes on: entries still expire by their max-age.
      this.log.warn({ err: (err as Error).message }, 'edge cache purges by event are off: the bus subscription failed');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
