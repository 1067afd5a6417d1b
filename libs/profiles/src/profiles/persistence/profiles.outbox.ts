import { Inject, Injectable } from '@nestjs/common';
import { type ProfilesUpdatedPayload, type ProfileWriteAction, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { FeatureOutbox, STORE } from '@flowplane/platform/service';
import type { Store, StoreSession } from '@flowplane/platform/store';
import { addressKey, type ProfileAddress } from '../domain/profile.entity';

/**
 * The profiles feature's transactional outbox: a profile write and its `profiles.updated` event are
 * stored in one transaction, then the relay publishes the event. The payload is the address and the
 * action only, so no secret ever reaches the bus. A collection of its own keeps this relay's lease
 * apart from any other outbox on the service's store.
 */
@Injectable()
export class ProfilesOutbox extends FeatureOutbox {
  static readonly COLLECTION = 'profiles_outbox';

  constructor(@Inject(STORE) store: Store, @Inject(EVENT_BUS) bus: EventBus) {
    super(store, bus, { collection: ProfilesOutbox.COLLECTION, source: '/services/profiles' });
  }

  /** Announces a profile write inside the write's transaction. */
  async announce(session: StoreSession, address: ProfileAddress, action: ProfileWriteAction): Promise<void> {
    const payload: ProfilesUpdatedPayload = {
      module: address.module,
      kind: address.kind,
      profileId: address.profileId,
      action,
    };
    await this.outbox.enqueue(session, Topics.ProfilesUpdated, payload, {
      key: addressKey(address),
      entitytype: 'profile',
      action,
    });
  }
}
