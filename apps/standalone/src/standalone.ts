import path from 'node:path';
import { gatewayDefinition } from '@flowplane/gateway';
import { hubDefinition } from '@flowplane/hub';
import { flowRuntimeDefinition } from '@flowplane/flow-runtime';
import { deploymentsDefinition } from '@flowplane/deployments';
import { profilesDefinition } from '@flowplane/profiles';
import { assistantDefinition } from '@flowplane/assistant';
import { i18nDefinition } from '@flowplane/i18n';
import { searchDefinition } from '@flowplane/search';
import { DEV_JWT_SECRET } from '@flowplane/platform/auth';
import { createEventBus, type EventBus } from '@flowplane/platform/bus';
import { checkBusForLauncher } from '@flowplane/platform/config';
import { PortInUseError, portInUse, portVariable, type RunningService, type ServiceDefinition, startService } from '@flowplane/platform/service';

/** Every service but the gateway, in start order. */
export const BACKEND_SERVICES: ServiceDefinition[] = [
  profilesDefinition,
  deploymentsDefinition,
  flowRuntimeDefinition,
  assistantDefinition,
  i18nDefinition,
  searchDefinition,
  hubDefinition,
];

/** Address every service but the gateway binds in standalone mode. */
export const LOOPBACK = '127.0.0.1';

/**
 * METRICS_PORT names the gateway's metrics listener; every other service takes the same offset
 * from it as its port from the gateway's (0 stays 0: random ports).
 */
function metricsPortOf(env: Record<string, string | undefined>, offset: number): { METRICS_PORT?: string } {
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') return {};
  const base = Number(env.METRICS_PORT);
  return { METRICS_PORT: Number.isInteger(base) && base > 0 ? String(base + offset) : env.METRICS_PORT };
}

/**
 * A busy port in standalone names the service and the offset scheme: every port derives from PORT
 * (or METRICS_PORT), so the variable to change is the base, not the port that was taken.
 */
function portTaken(e: unknown, service: string, env: Record<string, string | undefined>, offset: number): unknown {
  const port = portInUse(e);
  if (port === undefined) return e;
  const variable = portVariable(port, env);
  const last = BACKEND_SERVICES.length;
  const slot = `${variable}${offset ? `+${offset}` : ''}`;
  return new PortInUseError(
    service,
    port,
    variable,
    `port ${port} is already in use (${service} listens on ${slot}, ${variable}=${port - offset}): standalone puts the gateway on ${variable} and the other services on ${variable}+1…${variable}+${last}; set ${variable} to a base whose ${last + 1} ports are free${variable === 'PORT' ? ', or PORT=0 for random ports' : ''}`,
  );
}

export interface StandaloneOptions {
  /** Environment to read (defaults to process.env). */
  env?: Record<string, string | undefined>;
}

export interface Standalone {
  gateway: RunningService;
  services: RunningService[];
  bus: EventBus;
  url: string;
  usedDevSecret: boolean;
  close(): Promise<void>;
}

/**
 * Runs every service in this process: each its own Nest application on its own port, one shared
 * in-memory bus, an embedded store per service under DATA_DIR/<service>.
 * Ports: the gateway on PORT (default 8080), the others on PORT+1.. (or all random with PORT=0).
 */
export async function startStandalone(options: StandaloneOptions = {}): Promise<Standalone> {
  const env = { ...(options.env ?? process.env) };
  checkBusForLauncher('standalone', env);
  const usedDevSecret = !env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL;
  if (usedDevSecret) env.AUTH_JWT_SECRET = DEV_JWT_SECRET;
  const gatewayPort = Number(env.PORT ?? 8080);
  const dataDir = path.resolve(env.DATA_DIR ?? './.data');
  // One bus for all: standalone is the memory bus by definition (BUS=kafka is split mode).
  const bus = createEventBus({ bus: 'memory', maxAttempts: Number(env.BUS_MAX_ATTEMPTS ?? 5), source: '/standalone' });
  const services: RunningService[] = [];
  const upstreamEnv: Record<string, string> = {};
  // Filled as services start; each service's clients read it on first use, so any may call any.
  const serviceUrls: Record<string, string> = {};
  try {
    for (const def of BACKEND_SERVICES) {
      const offset = def.defaultPort - gatewayDefinition.defaultPort;
      const port = gatewayPort === 0 ? 0 : gatewayPort + offset;
      // Only the gateway faces the network: the others are reached through it, in this process.
      const svcEnv = { ...env, PORT: String(port), HOST: LOOPBACK, ...metricsPortOf(env, offset), DATA_DIR: dataDir, BUS: 'memory' };
      const svc = await startService(def, { bus, serviceUrls, env: svcEnv }).catch((e: unknown) => {
        throw portTaken(e, def.name, svcEnv, offset);
      });
      services.push(svc);
      serviceUrls[def.name] = svc.url;
      upstreamEnv[`${def.name.replace(/-/g, '_').toUpperCase()}_URL`] = svc.url;
    }
    const gatewayEnv = { ...env, ...upstreamEnv, PORT: String(gatewayPort), ...metricsPortOf(env, 0), BUS: 'memory' };
    const gateway = await startService(gatewayDefinition, { bus, serviceUrls, env: gatewayEnv }).catch((e: unknown) => {
      throw portTaken(e, gatewayDefinition.name, gatewayEnv, 0);
    });
    serviceUrls.gateway = gateway.url;
    const url = `http://localhost:${gateway.port}`;
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // The hub goes first: its 1001 `server shutting down` reaches clients connected through the
        // gateway while the gateway still carries their sockets (it cuts what is left when it stops).
        const hub = services.find((s) => s.name === 'hub');
        if (hub) await hub.close().catch(() => undefined);
        await gateway.close();
        await Promise.allSettled(services.filter((s) => s !== hub).map((s) => s.close()));
        await bus.close();
      })());
    return { gateway, services, bus, url, usedDevSecret, close };
  } catch (e) {
    await Promise.allSettled(services.map((s) => s.close()));
    await bus.close();
    throw e;
  }
}
