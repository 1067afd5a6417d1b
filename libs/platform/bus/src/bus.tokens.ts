/** Nest injection token of the process' EventBus (`@Inject(EVENT_BUS) bus: EventBus`). */
export const EVENT_BUS = Symbol.for('flowplane.EVENT_BUS');

/** Reflect-metadata key under which `@BusConsumer` records its subscriptions on a method. */
export const BUS_CONSUMER_METADATA = 'flowplane:bus-consumer';
