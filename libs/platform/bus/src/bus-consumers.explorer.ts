import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { busConsumerMetadata, type BusConsumerMetadata } from './bus-consumer.decorator';
import { EVENT_BUS } from './bus.tokens';
import type { EventBus, EventHandler, Subscription } from './event-bus.port';
import { validatedHandler } from './validated-handler.util';

/** One subscribed `@BusConsumer` method, for logs and introspection. */
export interface BusConsumerRegistration {
  target: string;
  method: string;
  topics: string[];
  groupId: string;
}

/**
 * Subscribes every `@BusConsumer` method of every provider and controller when the application
 * boots (after all modules are initialised, so handlers find their dependencies ready) and stops
 * them before shutdown (so in-flight handlers finish and commit while the bus is still open).
 */
@Injectable()
export class BusConsumersExplorer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('BusConsumers');
  private subscriptions: Subscription[] = [];
  private registered: BusConsumerRegistration[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
  ) {}

  /** The consumers currently subscribed. */
  registrations(): readonly BusConsumerRegistration[] {
    return this.registered;
  }

  async onApplicationBootstrap(): Promise<void> {
    const jobs: Array<{ registration: BusConsumerRegistration; subscribe: () => Promise<Subscription> }> = [];
    const seen = new Set<object>();
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const metas = busConsumerMetadata(prototype[method]);
        if (metas.length === 0) continue;
        const target = instance.constructor?.name ?? String(wrapper.token);
        if (!wrapper.isDependencyTreeStatic()) {
          // A request- or transient-scoped instance has no lifetime to consume in.
          throw new Error(
            `@BusConsumer on ${target}.${method}: consumers must be singleton-scoped providers`,
          );
        }
        for (const meta of metas) {
          const groupId =
            typeof meta.options.groupId === 'function' ? meta.options.groupId() : meta.options.groupId;
          const registration = { target, method, topics: meta.topics, groupId };
          jobs.push({ registration, subscribe: () => this.subscribe(instance, method, meta, groupId) });
        }
      }
    }
    const results = await Promise.allSettled(jobs.map((j) => j.subscribe()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const subscribed = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (failed) {
      // Half a set of consumers is worse than none: the app would look ready while ignoring events.
      await Promise.allSettled(subscribed.map((s) => s.stop()));
      throw failed.reason;
    }
    this.subscriptions = subscribed;
    this.registered = jobs.map((j) => j.registration);
    for (const r of this.registered) {
      this.logger.log(`${r.target}.${r.method} consumes ${r.topics.join(', ')} as ${r.groupId}`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    this.registered = [];
    const results = await Promise.allSettled(subscriptions.map((s) => s.stop()));
    for (const r of results) {
      if (r.status === 'rejected') this.logger.error(`stopping a consumer failed: ${String(r.reason)}`);
    }
  }

  private subscribe(
    instance: object,
    method: string,
    meta: BusConsumerMetadata,
    groupId: string,
  ): Promise<Subscription> {
    const fn = (instance as Record<string, (...args: unknown[]) => unknown>)[method];
    const bound: EventHandler = async (event, ctx) => {
      await fn.call(instance, event, ctx);
    };
    const { payload, groupId: _groupId, ...options } = meta.options;
    const handler = payload ? validatedHandler(payload, bound) : bound;
    return this.bus.subscribe(meta.topics, { ...options, groupId }, handler);
  }
}
