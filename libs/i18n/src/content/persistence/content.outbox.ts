import { Inject, Injectable } from '@nestjs/common';
import { type ContentChangeAction, type ContentFragmentChangedPayload, type ContentPageChangedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { FeatureOutbox, STORE } from '@flowplane/platform/service';
import type { Store, StoreSession } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';

/**
 * The content store's transactional outbox (its own collection, so its relay never waits on the
 * catalog's): a page or fragment write and its `content.page.changed` / `content.fragment.changed`
 * commit together and are published after commit (settings rule 11). With no bus the relay has no
 * one to tell, and the writes behave the same.
 */
@Injectable()
export class ContentOutbox extends FeatureOutbox {
  static readonly COLLECTION = 'i18n_content_outbox';

  constructor(@Inject(STORE) store: Store, @Inject(EVENT_BUS) bus: EventBus, @Inject(I18nConfig) private readonly config: I18nConfig) {
    super(store, bus, { collection: ContentOutbox.COLLECTION, source: '/services/i18n' });
  }

  protected override get relayEnabled(): boolean {
    return this.config.enabled;
  }

  async pageChanged(session: StoreSession, slug: string, action: ContentChangeAction, sourceChanged: boolean): Promise<void> {
    const payload: ContentPageChangedPayload = { type: 'page', id: slug, slug, action, source_changed: sourceChanged };
    await this.outbox.enqueue(session, Topics.ContentPageChanged, payload, { key: slug, entitytype: 'content.page', action: 'changed' });
  }

  async fragmentChanged(session: StoreSession, key: string, action: ContentChangeAction, sourceChanged: boolean): Promise<void> {
    const payload: ContentFragmentChangedPayload = { type: 'fragment', id: key, key, action, source_changed: sourceChanged };
    await this.outbox.enqueue(session, Topics.ContentFragmentChanged, payload, { key, entitytype: 'content.fragment', action: 'changed' });
  }
}
