import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap, type Provider } from '@nestjs/common';
import { EVENT_BUS, type EventBus, Outbox, type OutboxOptions } from '@flowplane/platform/bus';
import type { Store, StoreSession } from '@flowplane/platform/store';
import { STORE } from './tokens';

/** An Outbox whose relay runs for the lifetime of the Nest application. */
export class ManagedOutbox extends Outbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  onApplicationBootstrap(): void {
    this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }
}

/**
 * A provider of a feature's transactional outbox over the service's store and bus: state changes and
 * the events announcing them commit together (`outbox.withTransaction` + `enqueue`), the relay
 * publishes after commit. Give each feature its own collection so relays never wait on each other.
 */
export function outboxProvider(token: string | symbol, options: Omit<OutboxOptions, 'logger'> & { collection: string }): Provider {
  return {
    provide: token,
    inject: [STORE, EVENT_BUS],
    useFactory: (store: Store, bus: EventBus) => {
      const log = new Logger(`Outbox(${options.collection})`);
      return new ManagedOutbox(store, bus, {
        ...options,
        logger: { warn: (m, meta) => log.warn({ ...meta }, m), error: (m, meta) => log.error({ ...meta }, m) },
      });
    },
  };
}

/**
 * Base of a feature's own outbox class, for features that announce through typed methods
 * (`announce(session, ...)`): the relay runs for the application's lifetime and `transaction` commits
 * state changes with the events they enqueue. Give each feature its own collection.
 */
export abstract class FeatureOutbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly outbox: Outbox;

  protected constructor(store: Store, bus: EventBus, options: Omit<OutboxOptions, 'logger'> & { collection: string }) {
    const log = new Logger(`Outbox(${options.collection})`);
    this.outbox = new Outbox(store, bus, { ...options, logger: { warn: (m, meta) => log.warn({ ...meta }, m), error: (m, meta) => log.error({ ...meta }, m) } });
  }

  /** Whether the relay runs (a feature switched off keeps its outbox idle). */
  protected get relayEnabled(): boolean {
    return true;
  }

  onApplicationBootstrap(): void {
    if (this.relayEnabled) this.outbox.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.outbox.stop();
  }

  /** Runs `fn` in a store transaction and publishes what it announced once it committed. */
  transaction<R>(fn: (session: StoreSession) => Promise<R>): Promise<R> {
    return this.outbox.withTransaction(fn);
  }
}
