import { Controller, type DynamicModule, Get, Global, Inject, Module, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import type { Registry } from 'prom-client';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { AuthModule, Internal } from '@flowplane/platform/auth';
import { BusModule } from '@flowplane/platform/bus';
import { HealthController, HTTP_METRICS, type HttpMetricsMiddleware, METRICS_REGISTRY, MetricsController, ReadinessRegistry } from '@flowplane/platform/health';
import { AllExceptionsFilter, createValidationPipe, requestIdOf } from '@flowplane/platform/http';
import { BusProbeResponder } from './bus-probe';
import { ServiceClients } from './service-clients';
import type { Options as PinoHttpOptions } from 'pino-http';
import { accessLogOptions, prettyLogStream } from './access-log';
import { loggerRedactPaths } from './redaction';
import type { ServiceContext } from './service-definition';
import { SERVICE_CONFIG, SERVICE_CONTEXT, STORE, VECTOR_STORE } from './tokens';

const startedAt = new Date();

/** `/internal/info`: who this service is, for the gateway's admin view and for operators. */
@ApiExcludeController()
@Controller('internal/info')
class InternalInfoController {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  @Get()
  @Internal(INTERNAL_PERMS.info)
  async info() {
    return {
      service: this.ctx.name,
      version: process.env.npm_package_version ?? '0.1.0',
      startedAt: startedAt.toISOString(),
      uptimeSeconds: Math.round(process.uptime()),
      adapters: {
        bus: this.ctx.bus?.kind,
        store: this.ctx.store?.engine,
        vector: this.ctx.vector ? (this.ctx.config.SEARCH_BACKEND as string) : undefined,
      },
      ...(await this.consumers()),
    };
  }

  /**
   * This service's consumer groups with their lag per partition, from the bus (on Kafka: the
   * admin API's committed offsets against the log ends). Bounded, so a slow broker cannot hold the
   * admin view; the reason is given instead.
   */
  private async consumers(): Promise<{ consumers?: unknown[]; consumersError?: string }> {
    const bus = this.ctx.bus;
    if (!bus) return {};
    let timer: NodeJS.Timeout | undefined;
    try {
      const stats = await Promise.race([
        bus.stats(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the bus did not report its consumers within 2000 ms')), 2000);
        }),
      ]);
      return { consumers: stats.consumers };
    } catch (e) {
      return { consumersError: (e as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Cross-cutting wiring of every service: logging, auth, errors, validation, health, metrics, adapters. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(ctx: ServiceContext, registry: Registry, readiness: ReadinessRegistry, httpMetrics: HttpMetricsMiddleware): DynamicModule {
    const c = ctx.config;
    const httpLog: PinoHttpOptions = {
      ...accessLogOptions(c.LOG_LEVEL),
      // Request logs name their service; Nest's own logs carry their context instead, because
      // Nest's logger is process-wide and standalone runs every service in one process.
      base: undefined,
      customProps: () => ({ service: ctx.name }),
      genReqId: (req) => (req as { id?: string }).id ?? requestIdOf(req),
      redact: { paths: loggerRedactPaths, censor: '[redacted]' },
    };
    return {
      module: PlatformModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        LoggerModule.forRoot({
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
          // At silent no access line or request log can be written, so pino-http's per-request
          // child loggers and listeners are skipped; the request id comes from requestIdMiddleware
          // either way, and the root logger (PinoLogger.root) still exists.
          ...(c.LOG_LEVEL === 'silent' ? { exclude: [{ path: '{*path}', method: RequestMethod.ALL }] } : {}),
          pinoHttp: c.LOG_PRETTY ? [httpLog, prettyLogStream()] : httpLog,
        }),
        AuthModule.forRoot({
          service: ctx.name,
          jwtSecret: c.AUTH_JWT_SECRET,
          jwksUrl: c.AUTH_JWKS_URL,
          issuer: c.AUTH_ISSUER,
          audience: c.AUTH_AUDIENCE,
          serviceSecret: c.AUTH_SERVICE_SECRET,
        }),
        ...(ctx.bus ? [BusModule.forRoot({ bus: ctx.bus })] : []),
      ],
      // With METRICS_PORT the metrics have their own listener and the service port does not serve them.
      controllers: [HealthController, ...(c.METRICS_PORT === undefined ? [MetricsController] : []), InternalInfoController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: c },
        { provide: SERVICE_CONTEXT, useValue: ctx },
        { provide: STORE, useValue: ctx.store ?? null },
        { provide: VECTOR_STORE, useValue: ctx.vector ?? null },
        { provide: METRICS_REGISTRY, useValue: registry },
        { provide: HTTP_METRICS, useValue: httpMetrics },
        { provide: ReadinessRegistry, useValue: readiness },
        ...(ctx.bus ? [BusProbeResponder] : []),
        ServiceClients,
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
      exports: [SERVICE_CONFIG, SERVICE_CONTEXT, STORE, VECTOR_STORE, METRICS_REGISTRY, HTTP_METRICS, ReadinessRegistry, ServiceClients],
    };
  }
}
