import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { EventBus } from '@flowplane/platform/bus';
import type { Store } from '@flowplane/platform/store';
import type { VectorStore } from '@flowplane/platform/vector';

/** What a service gets at boot: its validated config and the adapters chosen by environment. */
export interface ServiceContext {
  name: string;
  config: ServiceConfig;
  /** The environment the service was started with (for `<SERVICE>_URL` lookups). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Base URLs of the other services when the launcher knows them (standalone fills it as services
   * start); otherwise `<SERVICE>_URL` from the environment applies.
   */
  serviceUrls: Readonly<Record<string, string>>;
  bus?: EventBus;
  store?: Store;
  vector?: VectorStore;
}

/** The config every service has (HttpEnv, LogEnv, AuthEnv, ... fragments) plus its own fragments. */
export type ServiceConfig = Record<string, unknown> & {
  PORT: number;
  HOST: string;
  HTTP_BODY_LIMIT: string;
  SHUTDOWN_TIMEOUT_MS: number;
  METRICS_PORT?: number;
  METRICS_HOST?: string;
  LOG_LEVEL: string;
  LOG_PRETTY: boolean;
  AUTH_JWT_SECRET?: string;
  AUTH_JWKS_URL?: string;
  AUTH_ISSUER?: string;
  AUTH_AUDIENCE?: string;
  AUTH_SERVICE_SECRET?: string;
};

type EnvFragment = new () => object;

/**
 * Declares a deployable service. Apps are wiring only: `apps/<name>/src/main.ts` runs one
 * definition, and `apps/standalone` runs all of them in one process.
 */
export interface ServiceDefinition {
  /** Service name (`profiles`), also the store directory and the metrics label. */
  name: string;
  /** OpenAPI title and description. */
  title: string;
  description: string;
  /** Default port when PORT is not set. */
  defaultPort: number;
  /** Which ports the service uses; readiness checks each of them. */
  uses: { bus?: boolean; store?: boolean; vector?: boolean };
  /** Extra env fragments beyond the platform's. */
  env?: EnvFragment[];
  /** The domain feature module. */
  module: (ctx: ServiceContext) => Type | DynamicModule;
  /** False for services that stream request bodies (the gateway proxies them untouched). */
  parseJsonBody?: boolean;
  /**
   * Paths (each with everything under it, `/api/v1/...` or an unprefixed mount) whose JSON body may
   * be any JSON value: `null`, `42`, `"x"`, `true` are parsed instead of refused with INVALID_JSON,
   * for routes whose body is a document or a message rather than a DTO.
   */
  anyJsonBodyPaths?: (ctx: ServiceContext) => string[];
  /**
   * Mounts served outside the /api/v1 prefix, each with everything under it (the hub's
   * `WS_MOUNT_PATH`). Probes, metrics and /internal are always outside it.
   */
  unprefixedMounts?: (ctx: ServiceContext) => string[];
  /** Called before the app initialises, for raw Express middleware (the gateway's proxy). */
  configure?: (app: INestApplication, ctx: ServiceContext) => void | Promise<void>;
  /**
   * Optional fast path in front of Express, built once the app is initialised: return true when it
   * answered the request itself (the gateway proxies /api/v1 this way, skipping Nest's pipeline).
   */
  interceptRequest?: (app: INestApplication, ctx: ServiceContext) => (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Called once the HTTP server listens, for upgrade handlers (WebSockets). */
  onListen?: (app: INestApplication, server: Server, ctx: ServiceContext) => void | Promise<void>;
}
