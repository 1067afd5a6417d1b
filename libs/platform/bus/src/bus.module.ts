import {
  Global,
  Module,
  type DynamicModule,
  type FactoryProvider,
  type ModuleMetadata,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BusConsumersExplorer } from './bus-consumers.explorer';
import { EVENT_BUS } from './bus.tokens';
import { createEventBus, type CreateEventBusOptions } from './event-bus.factory';
import type { EventBus } from './event-bus.port';

export interface BusModuleOptions {
  /**
   * An EventBus to share (the caller closes it; `apps/standalone` hands every service the same
   * memory bus), or options to create one that the module closes on shutdown.
   */
  bus: EventBus | CreateEventBusOptions;
}

export interface BusModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: FactoryProvider['inject'];
  useFactory(...args: never[]): BusModuleOptions | Promise<BusModuleOptions>;
}

/** Holds the bus and closes it on shutdown when the module created it. */
class EventBusHolder implements OnApplicationShutdown {
  constructor(
    readonly bus: EventBus,
    private readonly owned: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // Runs after every beforeApplicationShutdown, i.e. after the explorer stopped the consumers.
    if (this.owned) await this.bus.close();
  }
}

function isEventBus(value: EventBus | CreateEventBusOptions): value is EventBus {
  return (
    typeof (value as EventBus).publish === 'function' && typeof (value as EventBus).subscribe === 'function'
  );
}

function holderFor(options: BusModuleOptions): EventBusHolder {
  if (!options?.bus) throw new TypeError('BusModule needs { bus }');
  return isEventBus(options.bus)
    ? new EventBusHolder(options.bus, false)
    : new EventBusHolder(createEventBus(options.bus), true);
}

/**
 * Global module providing EVENT_BUS and subscribing `@BusConsumer` methods. Import once, in the
 * application's root module.
 */
@Global()
@Module({})
export class BusModule {
  /** BusModule over a given bus or bus options. */
  static forRoot(options: BusModuleOptions): DynamicModule {
    return BusModule.build([], { provide: EventBusHolder, useFactory: () => holderFor(options) });
  }

  /** BusModule whose options come from other providers (for example the config service). */
  static forRootAsync(options: BusModuleAsyncOptions): DynamicModule {
    return BusModule.build(options.imports ?? [], {
      provide: EventBusHolder,
      inject: options.inject ?? [],
      useFactory: async (...args: never[]) => holderFor(await options.useFactory(...args)),
    });
  }

  private static build(
    imports: NonNullable<ModuleMetadata['imports']>,
    holder: FactoryProvider,
  ): DynamicModule {
    return {
      module: BusModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [
        holder,
        { provide: EVENT_BUS, inject: [EventBusHolder], useFactory: (h: EventBusHolder) => h.bus },
        BusConsumersExplorer,
      ],
      exports: [EVENT_BUS, BusConsumersExplorer],
    };
  }
}
