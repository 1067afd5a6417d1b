import { type INestApplication, Logger as NestLogger, type LoggerService, Module, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { json, type Request, type Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthEnv, BusEnv, HttpEnv, KafkaEnv, LogEnv, loadConfig, MongoEnv, StoreEnv, VectorEnv } from '@flowplane/platform/config';
import { dlqTopic, type EventBus } from '@flowplane/platform/bus';
import { FIXED_TOPICS } from '@flowplane/contracts';
import { createMetricsRegistry, createMetricsServer, ReadinessRegistry, registerBusMetrics } from '@flowplane/platform/health';
import { expressErrorHandler, installClientErrorHandler, jsonBodyVerifier, pathEncodingGuard, requestIdMiddleware, routeNotFoundHandler } from '@flowplane/platform/http';
import { defaultLocaleFromEnv, requestLocaleMiddleware } from '@flowplane/platform/http';
import { frameAncestorsFromEnv, securityHeaders } from '@flowplane/platform/http';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { listRoutes } from '@flowplane/platform/auth';
import type { Store } from '@flowplane/platform/store';
import type { VectorStore } from '@flowplane/platform/vector';
import { busFromConfig, storeFromConfig, vectorFromConfig } from './adapters';
import { healthzFastPath } from './healthz-fast-path';
import { PlatformModule } from './platform.module';
import type { ServiceConfig, ServiceContext, ServiceDefinition } from './service-definition';
import { API_PREFIX } from './tokens';
import { completeOperations } from './openapi-operations';

/** What the caller may supply instead of the environment (standalone shares one bus; tests use memory stores). */
export interface ServiceOverrides {
  env?: Record<string, string | undefined>;
  bus?: EventBus;
  store?: Store;
  vector?: VectorStore;
  /** Shared, filled by the launcher as services start; read when a service client is first made. */
  serviceUrls?: Record<string, string>;
}

/** A booted service. `close()` shuts it down gracefully. */
export interface RunningService {
  name: string;
  app: INestApplication;
  server: Server;
  port: number;
  url: string;
  /** Port of the metrics-only listener when METRICS_PORT is set. */
  metricsPort?: number;
  ctx: ServiceContext;
  close(): Promise<void>;
}

/** The env fragments a service validates at boot, given what it uses. */
export function envFragmentsFor(def: ServiceDefinition) {
  return [
    HttpEnv,
    LogEnv,
    AuthEnv,
    ...(def.uses.bus ? [BusEnv, KafkaEnv] : []),
    ...(def.uses.store || def.uses.vector ? [StoreEnv, MongoEnv] : []),
    ...(def.uses.vector ? [VectorEnv] : []),
    ...(def.env ?? []),
  ];
}

/** Loads and validates a service's config; throws ConfigValidationError listing every bad variable. */
export function loadServiceConfig(def: ServiceDefinition, env: Record<string, string | undefined>): ServiceConfig {
  const withPort = { ...env, PORT: env.PORT ?? String(def.defaultPort) };
  return loadConfig(envFragmentsFor(def), withPort) as unknown as ServiceConfig;
}

/** Boots one service: config, adapters, Nest app with the platform wiring, HTTP listener. */
export async function startService(def: ServiceDefinition, overrides: ServiceOverrides = {}): Promise<RunningService> {
  const env = { ...process.env, ...overrides.env };
  const config = loadServiceConfig(def, env);
  const owned: Array<{ close(): Promise<void> }> = [];
  const ctx: ServiceContext = { name: def.name, config, env, serviceUrls: overrides.serviceUrls ?? {} };
  try {
    if (def.uses.bus) {
      ctx.bus = overrides.bus ?? busFromConfig(config, def.name);
      if (!overrides.bus) owned.push(ctx.bus);
      // Kafka: the platform's topics and their dead-letter topics exist, as configured, before any
      // consumer joins; a broker that refuses stops the start with its reason.
      if (!overrides.bus && ctx.bus.provision && config.KAFKA_PROVISION_TOPICS !== false) {
        await ctx.bus.provision([...FIXED_TOPICS, ...FIXED_TOPICS.map(dlqTopic)]);
      }
    }
    if (def.uses.store) {
      ctx.store = overrides.store ?? (await storeFromConfig(config, def.name));
      if (!overrides.store) owned.push(ctx.store);
    }
    if (def.uses.vector) {
      ctx.vector = overrides.vector ?? (await vectorFromConfig(config, def.name));
      if (!overrides.vector) owned.push(ctx.vector);
    }
    return await boot(def, ctx, owned);
  } catch (e) {
    await Promise.allSettled(owned.map((o) => o.close()));
    throw e;
  }
}

async function boot(def: ServiceDefinition, ctx: ServiceContext, owned: Array<{ close(): Promise<void> }>): Promise<RunningService> {
  const config = ctx.config;
  // Before anything is built: a malformed I18N_DEFAULT_LOCALE fails the boot.
  const defaultLocale = defaultLocaleFromEnv(ctx.env);
  const { registry, httpMiddleware } = createMetricsRegistry(def.name);
  const readiness = new ReadinessRegistry();
  if (ctx.bus) {
    const bus = ctx.bus;
    // Ready when the bus answers; the consumer lag rides along for operators (it never fails readiness).
    readiness.add('bus', async () => {
      await bus.ping();
      const { consumers } = await bus.stats();
      return { lag: consumers.reduce((n, c) => n + c.lag, 0), consumers: consumers.length };
    });
    registerBusMetrics(registry, bus);
  }
  if (ctx.store) readiness.add('store', () => ctx.store!.ping());
  if (ctx.vector) readiness.add('vector', () => ctx.vector!.ping());

  @Module({ imports: [PlatformModule.forRoot(ctx, registry, readiness, httpMiddleware), def.module(ctx)] })
  class ServiceRootModule {}
  Object.defineProperty(ServiceRootModule, 'name', { value: `${def.name}RootModule` });

  const app = await NestFactory.create<NestExpressApplication>(ServiceRootModule, { bufferLogs: true, bodyParser: false, abortOnError: false });
  app.useLogger(new QuietStartupLogger(app.get(Logger)));
  app.flushLogs();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');

  app.use(requestIdMiddleware);
  // Every service knows the caller's language (query lang, cookie lang, Accept-Language, default).
  app.use(requestLocaleMiddleware(defaultLocale));
  app.use(securityHeaders(frameAncestorsFromEnv(ctx.env)));
  app.use(httpMiddleware);
  app.use(pathEncodingGuard);
  if (def.parseJsonBody !== false) {
    // Depth and UTF-8 are checked on the raw bytes, before anything recursive sees the body.
    // Registered first, the non-strict parser reads the body of its paths; the strict one then
    // finds the request already read and leaves it.
    for (const path of def.anyJsonBodyPaths?.(ctx) ?? []) app.use(path, json({ limit: config.HTTP_BODY_LIMIT, verify: jsonBodyVerifier(), strict: false }));
    app.useBodyParser('json', { limit: config.HTTP_BODY_LIMIT, verify: jsonBodyVerifier() });
    // YAML documents (flow versions) arrive as text; the route parses them.
    app.useBodyParser('text', { limit: config.HTTP_BODY_LIMIT, type: ['application/yaml', 'application/x-yaml', 'text/yaml'] });
  }
  // Errors of the middleware above get their codes here: Nest's own handler would turn a JSON
  // syntax error or a bad path into a 400 without one.
  app.use(expressErrorHandler());
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'healthz', method: RequestMethod.ALL },
      { path: 'readyz', method: RequestMethod.ALL },
      { path: 'metrics', method: RequestMethod.ALL },
      { path: 'internal/{*path}', method: RequestMethod.ALL },
      ...(def.unprefixedMounts?.(ctx) ?? []).flatMap((mount) => {
        const path = mount.replace(/^\/+|\/+$/g, '');
        return [
          { path, method: RequestMethod.ALL },
          { path: `${path}/{*path}`, method: RequestMethod.ALL },
        ];
      }),
    ],
  });
  let document: OpenAPIObject | undefined;
  const express = app.getHttpAdapter().getInstance() as { get(path: string, h: (req: Request, res: Response) => void): void };
  express.get('/openapi.json', (_req: Request, res: Response) => {
    document ??= buildOpenApi(app, def);
    res.json(document);
  });
  await def.configure?.(app, ctx);
  await app.init();
  app.use(expressErrorHandler());
  // Unknown routes: Nest answers 404 through the exception filter; this catches what bypasses Nest.
  app.use(routeNotFoundHandler());

  const server = app.getHttpServer() as Server;
  // Before listening: a malformed first request must already get the JSON error body.
  installClientErrorHandler(server);
  await app.listen(config.PORT, config.HOST);
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  let metricsServer: Server | undefined;
  if (config.METRICS_PORT !== undefined) {
    try {
      metricsServer = createMetricsServer(registry);
      installClientErrorHandler(metricsServer);
      await listen(metricsServer, config.METRICS_PORT, config.METRICS_HOST ?? config.HOST);
    } catch (e) {
      await app.close();
      throw e;
    }
  }
  // One request listener in front of Express: in-flight tracking (so shutdown can wait for running
  // requests after the listener stops accepting) and the definition's fast path, if any.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const expressListeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const intercept = def.interceptRequest?.(app, ctx);
  const healthz = healthzFastPath(httpMiddleware, frameAncestorsFromEnv(ctx.env));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    if (healthz(req, res) || intercept?.(req, res)) return;
    for (const l of expressListeners) l(req, res);
  });
  await def.onListen?.(app, server, ctx);
  const log = new NestLogger(def.name);
  log.log(`listening on port ${port}`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // 1. Stop accepting; let in-flight requests finish (bounded by SHUTDOWN_TIMEOUT_MS).
      const stopped = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((r) => (drained = r)), new Promise((r) => setTimeout(r, config.SHUTDOWN_TIMEOUT_MS).unref())]);
      }
      server.closeAllConnections();
      await stopped;
      if (metricsServer) {
        const metricsStopped = new Promise<void>((r) => metricsServer!.close(() => r()));
        metricsServer.closeAllConnections();
        await metricsStopped;
      }
      // 2. Nest shutdown hooks: bus consumers stop after committing what they finished.
      await app.close();
      // 3. Adapters this service owns: flush the store, close connections.
      await Promise.allSettled(owned.map((o) => o.close()));
    })());
  const metricsPort = metricsServer ? (metricsServer.address() as AddressInfo).port : undefined;
  return { name: def.name, app, server, port, url: `http://127.0.0.1:${port}`, metricsPort, ctx, close };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Nest's per-module and per-route boot messages go to debug: eight services would print hundreds of lines. */
class QuietStartupLogger implements LoggerService {
  private static readonly quiet = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'LegacyRouteConverter']);
  constructor(private readonly inner: Logger) {}
  log(message: unknown, ...rest: unknown[]) {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && QuietStartupLogger.quiet.has(context)) this.inner.debug(message, ...rest);
    else this.inner.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.inner.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.inner.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.inner.debug(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.inner.verbose(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.inner.fatal(message, ...rest);
  }
}

function buildOpenApi(app: INestApplication, def: ServiceDefinition): OpenAPIObject {
  const cfg = new DocumentBuilder()
    .setTitle(def.title)
    .setDescription(def.description)
    .setVersion(process.env.npm_package_version ?? '0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const operationId = (controller: string, method: string) => `${def.name}_${controller.replace(/Controller$/, '')}_${method}`;
  // Each operation names its own security and error answers, derived from its access declaration.
  return completeOperations(SwaggerModule.createDocument(app, cfg, { operationIdFactory: operationId, extraModels: [ErrorBodyDto] }), listRoutes(app), operationId);
}
