import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '@flowplane/platform/auth';
import { ReadinessRegistry } from './readiness.registry';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** Liveness and readiness endpoints (Kubernetes probes; the gateway aggregates `/readyz`). */
@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly registry: ReadinessRegistry,
  ) {}

  /** Liveness: the process is up and serving HTTP. */
  @Get('healthz')
  @Public()
  @ApiOkResponse({ description: 'The process is alive.' })
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: every dependency (bus, store, ...) answers and start-up seeding has finished. */
  @Get('readyz')
  @Public()
  @HealthCheck()
  @ApiServiceUnavailableResponse({ description: 'A dependency is down or start-up seeding still runs; `error` names the failing checks with their reason (`seeding: {message: "seeding", tasks}`).' })
  async readyz(@Res({ passthrough: true }) res: Response): Promise<unknown> {
    const checks = this.registry.entries().map(([name, check]) => async (): Promise<HealthIndicatorResult> => {
      const session = this.indicators.check(name);
      try {
        const details = await withTimeout(check(), CHECK_TIMEOUT_MS);
        return details && typeof details === 'object' ? session.up(details as Record<string, unknown>) : session.up();
      } catch (e) {
        const details = (e as { details?: unknown })?.details;
        return session.down({ message: (e as Error)?.message ?? String(e), ...(details && typeof details === 'object' ? details : {}) });
      }
    });
    try {
      return await this.health.check(checks);
    } catch (e) {
      if (e instanceof ServiceUnavailableException) {
        res.status(503);
        return e.getResponse();
      }
      throw e;
    }
  }
}
