import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { hostname as osHostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { ProfileResolver } from '@flowplane/contracts';
import { METRICS_REGISTRY } from '@flowplane/platform/health';
import type { ServiceContext } from './service-definition';
import { ServiceClients } from './service-clients';
import { SERVICE_CONTEXT } from './tokens';

/** Options of `ProfileResolverModule.forRoot`. */
export interface ProfileResolverModuleOptions {
  /**
   * Safety TTL of a cache entry. Default: none on a service with a bus (events invalidate), 30 s on
   * a service without one (nothing else would).
   */
  ttlMs?: number;
  /** Timeout of one read from the profiles service; default the client's 5000 ms. */
  timeoutMs?: number;
  /** Overrides the invalidator group's hostname (default `HOSTNAME`, else `os.hostname()`). */
  hostname?: string;
}

/** Cache TTL of a service without a bus, where no `profiles.updated` event can reach the cache. */
export const PROFILE_CACHE_TTL_WITHOUT_BUS_MS = 30_000;

const PROFILE_RESOLVER_OPTIONS = Symbol('PROFILE_RESOLVER_OPTIONS');

/** Builds the service's resolver: profiles client with the service token, the service's bus, this service's group on this host. */
export function createProfileResolver(
  ctx: ServiceContext,
  clients: ServiceClients,
  options: ProfileResolverModuleOptions = {},
): ProfileResolver {
  return new ProfileResolver({
    client: clients.for('profiles', options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    bus: ctx.bus,
    // The group is per service and host: services sharing one host (split mode on a laptop) would
    // otherwise split the invalidations between them, and each joining service would rebalance the others.
    hostname: options.hostname ?? `${ctx.name}-${ctx.env.HOSTNAME || osHostname()}`,
    ttlMs: options.ttlMs ?? (ctx.bus ? undefined : PROFILE_CACHE_TTL_WITHOUT_BUS_MS),
  });
}

/** Starts the invalidation subscription with the app, leaves the group on shutdown, exports the cache counters. */
@Injectable()
class ProfileResolverLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly resolver: ProfileResolver,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    if (registry) registerProfileResolverMetrics(registry, resolver);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.resolver.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.resolver.stop();
  }
}

/**
 * Gauge `profile_resolver_cache{stat}`: hits, misses, fetches and invalidations since start, and the
 * current entries. Registered once per registry (one resolver per service).
 */
export function registerProfileResolverMetrics(registry: Registry, resolver: ProfileResolver): void {
  const name = 'profile_resolver_cache';
  if (registry.getSingleMetric(name)) return;
  new Gauge({
    name,
    help: 'Profile resolver cache: hits, misses, fetches and invalidations since start; entries now',
    labelNames: ['stat'],
    registers: [registry],
    collect() {
      const s = resolver.stats();
      this.set({ stat: 'hits' }, s.hits);
      this.set({ stat: 'misses' }, s.misses);
      this.set({ stat: 'fetches' }, s.fetches);
      this.set({ stat: 'invalidations' }, s.invalidations);
      this.set({ stat: 'entries' }, s.entries);
    },
  });
}

/**
 * Gives a service a `ProfileResolver` (inject the class) built from its ServiceClients, bus and
 * hostname, subscribed to `profiles.updated` while the app runs. Import `forRoot()` once per
 * service, in its feature module; it is global within the service.
 */
@Module({})
export class ProfileResolverModule {
  static forRoot(options: ProfileResolverModuleOptions = {}): DynamicModule {
    return {
      module: ProfileResolverModule,
      global: true,
      providers: [
        { provide: PROFILE_RESOLVER_OPTIONS, useValue: options },
        {
          provide: ProfileResolver,
          inject: [SERVICE_CONTEXT, ServiceClients, PROFILE_RESOLVER_OPTIONS],
          useFactory: createProfileResolver,
        },
        ProfileResolverLifecycle,
      ],
      exports: [ProfileResolver],
    };
  }
}
