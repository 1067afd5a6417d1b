import { Inject, Injectable } from '@nestjs/common';
import { type AssistantHandoffRequestedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus } from '@flowplane/platform/bus';
import { FeatureOutbox, STORE } from '@flowplane/platform/service';
import type { Store, StoreSession } from '@flowplane/platform/store';

/**
 * The handoff feature's transactional outbox: the stored request, its link on the chat and its
 * `assistant.handoff_requested` event are written in one store transaction, then the relay
 * publishes the event, so a crash between the write and the publish never loses the event.
 */
@Injectable()
export class HandoffsOutbox extends FeatureOutbox {
  static readonly COLLECTION = 'assistant_outbox';

  constructor(@Inject(STORE) store: Store, @Inject(EVENT_BUS) bus: EventBus) {
    super(store, bus, { collection: HandoffsOutbox.COLLECTION, source: '/services/assistant' });
  }

  /** Announces a filed handoff inside the filing transaction (keyed by session, so one session's events stay in order). */
  async announce(session: StoreSession, payload: AssistantHandoffRequestedPayload): Promise<void> {
    await this.outbox.enqueue(session, Topics.AssistantHandoffRequested, payload, {
      key: payload.sessionId,
      entitytype: 'assistant_handoff',
      action: 'requested',
    });
  }
}
