import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown, type Provider, type Type } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { TokenVerifier } from '@flowplane/platform/auth';
import { METRICS_REGISTRY } from '@flowplane/platform/health';
import type { ServiceConfig, ServiceContext } from '@flowplane/platform/service';
import { type HubBridge, NoopHubBridge } from './bridge/hub-bridge.port';
import { NatsHubBridge } from './bridge/nats-hub-bridge.adapter';
import { RedisHubBridge } from './bridge/redis-hub-bridge.adapter';
import { HubController, mountHubRoutes } from './hub.controller';
import type { HubEnv } from './hub.env';
import { HubMetrics } from './hub.metrics';
import { HubService, type HubSettings, hubSettingsFrom } from './hub.service';
import { HubSockets } from './hub-sockets';
import { DefaultRoomPolicy, HUB_ROOM_POLICY, type RoomPolicy } from './room-policy';

/** Creates the bridge chosen by COORD. */
export function createHubBridge(c: HubEnv, settings: HubSettings): HubBridge {
  if (c.COORD === 'nats') {
    return new NatsHubBridge({ servers: c.NATS_URL!.split(',').map((s) => s.trim()).filter(Boolean), subject: c.HUB_COORD_SUBJECT, replicaId: settings.replicaId, reconnectMs: c.HUB_COORD_RECONNECT_MS });
  }
  if (c.COORD === 'redis') {
    return new RedisHubBridge({ url: c.REDIS_URL!, channel: c.HUB_COORD_SUBJECT, replicaId: settings.replicaId, reconnectMs: c.HUB_COORD_RECONNECT_MS });
  }
  return new NoopHubBridge();
}

/** Closes every socket with 1001 and the bridge when the application shuts down. */
@Injectable()
class HubLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(HubSockets) private readonly sockets: HubSockets,
    @Inject('HUB_SHUTDOWN_GRACE_MS') private readonly graceMs: number,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sockets.shutdown(this.graceMs);
  }
}

export interface HubModuleOptions {
  /** Replaces the default room policy (who may join and broadcast to which room). */
  roomPolicy?: RoomPolicy;
  /**
   * Further route classes (no `@Controller`) mounted at WS_MOUNT_PATH with the absolute-path flag;
   * each route declares who may call it (default deny).
   */
  routes?: Type[];
  /** Route classes for any caller with a valid token of an active user (the spec's authenticated group). */
  authenticatedRoutes?: Type[];
  /** Route classes for anyone, with or without a token (the spec's public group). */
  publicRoutes?: Type[];
}

/** The hub feature: rooms, delivery, the bridge chosen by COORD, and the HTTP control plane. */
@Module({})
export class HubModule {
  static forRoot(ctx: ServiceContext, options: HubModuleOptions = {}): DynamicModule {
    const config = ctx.config as ServiceConfig & HubEnv;
    const settings = hubSettingsFrom(config);
    const providers: Provider[] = [
      { provide: HUB_ROOM_POLICY, useValue: options.roomPolicy ?? new DefaultRoomPolicy() },
      { provide: HubMetrics, inject: [METRICS_REGISTRY], useFactory: (registry: Registry) => new HubMetrics(registry) },
      { provide: HubService, inject: [HubMetrics], useFactory: (metrics: HubMetrics) => new HubService(settings, createHubBridge(config, settings), metrics) },
      {
        provide: HubSockets,
        inject: [HubService, TokenVerifier, HUB_ROOM_POLICY, HubMetrics],
        useFactory: (hub: HubService, verifier: TokenVerifier, policy: RoomPolicy, metrics: HubMetrics) => new HubSockets(hub, verifier, policy, metrics),
      },
      { provide: 'HUB_SHUTDOWN_GRACE_MS', useValue: Math.min(config.SHUTDOWN_TIMEOUT_MS, 5000) },
      HubLifecycle,
    ];
    return {
      module: HubModule,
      controllers: [
        ...[HubController, ...(options.routes ?? [])].map((c) => mountHubRoutes(settings.mountPath, c)),
        ...(options.authenticatedRoutes ?? []).map((c) => mountHubRoutes(settings.mountPath, c, 'authenticated')),
        ...(options.publicRoutes ?? []).map((c) => mountHubRoutes(settings.mountPath, c, 'public')),
      ],
      providers,
      exports: [HubService, HubSockets, HUB_ROOM_POLICY],
    };
  }
}
