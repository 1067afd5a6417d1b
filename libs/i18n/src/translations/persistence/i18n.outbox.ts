import { Inject, Injectable } from '@nestjs/common';
import { type I18nKeyChangeReason, type I18nKeysChangedPayload, type I18nUpdatedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { FeatureOutbox, STORE } from '@flowplane/platform/service';
import type { Store, StoreSession } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';

/**
 * The i18n service's transactional outbox: a translation write and its events (`i18n.updated`, the
 * cache broadcast, and `i18n.keys_changed`, the translation work signal) are stored in one
 * transaction, then the relay publishes them, so no replica misses an invalidation of a committed write.
 */
@Injectable()
export class I18nOutbox extends FeatureOutbox {
  static readonly COLLECTION = 'i18n_outbox';

  constructor(@Inject(STORE) store: Store, @Inject(EVENT_BUS) bus: EventBus, @Inject(I18nConfig) private readonly config: I18nConfig) {
    super(store, bus, { collection: I18nOutbox.COLLECTION, source: '/services/i18n' });
  }

  protected override get relayEnabled(): boolean {
    return this.config.enabled;
  }

  /** Announces that the (ns, locale) bucket changed, for every replica's cache. */
  async announceUpdated(session: StoreSession, payload: I18nUpdatedPayload): Promise<void> {
    await this.outbox.enqueue(session, Topics.I18nUpdated, payload, {
      // The partition key (also the envelope's subject): readable, and no U+0000, which a store
      // on PostgreSQL (FerretDB) cannot hold in a string.
      key: `${payload.ns ?? ''}:${payload.locale ?? ''}`,
      entitytype: 'i18n',
      action: 'updated',
    });
  }

  /** Announces changed translation inputs (automatic translation rule 4); never for a translation write. */
  async announceKeysChanged(session: StoreSession, ns: string, keys: string[], reason: I18nKeyChangeReason): Promise<void> {
    if (!keys.length) return;
    const payload: I18nKeysChangedPayload = { ns, keys, reason };
    await this.outbox.enqueue(session, Topics.I18nKeysChanged, payload, { key: ns, entitytype: 'i18n_key', action: 'changed' });
  }
}
