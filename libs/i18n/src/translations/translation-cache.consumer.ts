import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type I18nUpdatedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { I18nConfig } from '../i18n.config';
import { CachedTranslationService } from './use-cases/cached-translation.service';
import { I18nInstance } from './use-cases/instance-id';

/**
 * Catalog rule 7 across replicas: every instance subscribes to `i18n.updated` in a consumer group of
 * its own (so each receives every broadcast) and calls InvalidateAll on a peer's write. Its own echo
 * is skipped: the writer already dropped the bucket.
 */
@Injectable()
export class TranslationCacheConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('TranslationCacheConsumer');
  private subscription?: Subscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(CachedTranslationService) private readonly translations: CachedTranslationService,
    @Inject(I18nInstance) private readonly instance: I18nInstance,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    this.subscription = await this.bus.subscribe<I18nUpdatedPayload>(
      [Topics.I18nUpdated],
      { groupId: `i18n-cache-${this.instance.id}` },
      async (event) => {
        if (event.data?.instanceId === this.instance.id) return;
        this.log.debug(`peer wrote ${event.data?.ns ?? ''}/${event.data?.locale ?? '*'}: dropping every cached bucket`);
        this.translations.invalidateAll();
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
