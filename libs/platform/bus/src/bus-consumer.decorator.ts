import 'reflect-metadata';
import type { ClassConstructor } from 'class-transformer';
import { BUS_CONSUMER_METADATA } from './bus.tokens';
import type { SubscribeOptions } from './event-bus.port';

export interface BusConsumerOptions extends Omit<SubscribeOptions, 'groupId'> {
  /**
   * Consumer group. A function is evaluated at bootstrap, for ids that depend on the process
   * (fan-out groups such as `profiles-invalidator-<hostname>`).
   */
  groupId: string | (() => string);
  /** Payload class (class-validator rules): invalid payloads are dead-lettered before the method runs. */
  payload?: ClassConstructor<object>;
}

export interface BusConsumerMetadata {
  topics: string[];
  options: BusConsumerOptions;
}

/**
 * Marks a provider method as an event consumer: at application bootstrap `BusConsumersExplorer`
 * subscribes it through the EVENT_BUS, with `(event, ctx)` as arguments. Stackable.
 */
export function BusConsumer(topics: string | string[], options: BusConsumerOptions): MethodDecorator {
  const list = Array.isArray(topics) ? [...topics] : [topics];
  if (list.length === 0) throw new TypeError('@BusConsumer needs at least one topic');
  if (!options?.groupId) throw new TypeError('@BusConsumer needs a groupId');
  return (_target, _property, descriptor) => {
    const method = descriptor.value as unknown;
    if (typeof method !== 'function') throw new TypeError('@BusConsumer decorates methods only');
    const existing =
      (Reflect.getMetadata(BUS_CONSUMER_METADATA, method) as BusConsumerMetadata[] | undefined) ?? [];
    Reflect.defineMetadata(BUS_CONSUMER_METADATA, [...existing, { topics: list, options }], method);
    return descriptor;
  };
}

/** The `@BusConsumer` registrations of a method (empty when it has none). */
export function busConsumerMetadata(method: unknown): BusConsumerMetadata[] {
  if (typeof method !== 'function') return [];
  return (Reflect.getMetadata(BUS_CONSUMER_METADATA, method) as BusConsumerMetadata[] | undefined) ?? [];
}
