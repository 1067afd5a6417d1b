import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { PlatformProbePayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, validatedHandler } from '@flowplane/platform/bus';
import { SERVICE_CONTEXT } from './tokens';
import type { ServiceContext } from './service-definition';

/** Probe topic published by the gateway's `POST /api/v1/admin/system/bus-probe`. */
export const PLATFORM_PROBE_TOPIC = Topics.PlatformProbe;
/** Answer of each service to a probe. */
export const PLATFORM_PROBE_ACK_TOPIC = Topics.PlatformProbeAck;

/**
 * Answers bus probes: one consumer group per service (replicas share it), so each probe gets
 * one answer per service and an operator sees which services the bus really reaches.
 */
@Injectable()
export class BusProbeResponder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('BusProbe');
  private handle?: { stop(): Promise<void> };

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.ctx.name === 'gateway') return;
    const handler = validatedHandler(PlatformProbePayload, async (event) => {
      const { probeId } = event.data;
      await this.bus.publish(PLATFORM_PROBE_ACK_TOPIC, { probeId, service: this.ctx.name, pid: process.pid }, { key: probeId });
      this.log.debug(`answered probe ${probeId}`);
    });
    this.handle = await this.bus.subscribe([PLATFORM_PROBE_TOPIC], { groupId: `${this.ctx.name}-probe`, fromBeginning: false }, handler);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.handle?.stop();
  }
}
