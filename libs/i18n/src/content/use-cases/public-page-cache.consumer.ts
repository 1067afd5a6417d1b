import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ContentPageChangedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { I18nConfig } from '../../i18n.config';
import { I18nInstance } from '../../translations/use-cases/instance-id';
import { PublicPageCache } from './public-page.cache';

/**
 * Rendered pages across replicas: every instance reads `content.page.changed` in a consumer group of
 * its own (each receives every change) and drops that slug. Its own writes were dropped already; the
 * echo drops them once more, which costs one render.
 */
@Injectable()
export class PublicPageCacheConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription?: Subscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    this.subscription = await this.bus.subscribe<ContentPageChangedPayload>([Topics.ContentPageChanged], { groupId: `i18n-content-pages-${this.instance.id}` }, async (event) => {
      const slug = event.data?.slug ?? event.data?.id;
      if (typeof slug === 'string') this.cache.drop(slug);
      else this.cache.clear();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
