import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type AssistantHandoffRequestedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, Outbox } from '@flowplane/platform/bus';
import { STORE } from '@flowplane/platform/service';
import type { Store, StoreSession } from '@flowplane/platform/store';

/**
 * The handoff feature's transactional outbox: the stored request, its link on the chat and its
 * `assistant.handoff_requested` event are written in one store transaction, then the relay
 * publishes the event, so a crash between the write and the publish never loses the event.
 */
@Injectable()
export class HandoffsOutbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static readonly COLLECTION = 'assistant_outbox';
  private readonly log = new Logger('HandoffsOutbox');
  readonly outbox: Outbox;

  constructor(@Inject(STORE) store: Store, @Inject(EVENT_BUS) bus: EventBus) {
    this.outbox = new Outbox(store, bus, {
      collection: HandoffsOutbox.COLLECTION,
      source: '/services/assistant',
      logger: {
        warn: (m, meta) => this.log.warn({ ...meta }, m),
        error: (m, meta) => this.log.error({ ...meta }, m),
      },
    });
  }

  onApplicationBootstrap(): void {
    this.outbox.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.outbox.stop();
  }

  /** Runs `fn` in a store transaction and publishes what it announced once it committed. */
  transaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    return this.outbox.withTransaction(fn);
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
