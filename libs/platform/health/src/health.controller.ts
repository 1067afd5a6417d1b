import { Controller, Get, Logger, Res, ServiceUnavailableException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '@flowplane/platform/auth';
import { errorBody } from '@flowplane/platform/http';
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
  private readonly logger = new Logger('Readiness');

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
  @ApiServiceUnavailableResponse({ description: 'A dependency is down or start-up seeding still runs: the standard error body (code `NOT_READY`) with `failing` naming each failing check and its reason (`seeding: {status: "down", message: "seeding", tasks}`), `info` the checks that are up and `checks` all of them.' })
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
        // The standard error body, with the checks beside it: `failing` the ones that are down.
        const { info, error: failing, details } = e.getResponse() as { info?: Record<string, unknown>; error?: Record<string, { message?: unknown }>; details?: Record<string, unknown> };
        const reasons = Object.entries(failing ?? {}).map(([name, v]) => (v?.message === name ? name : `${name}: ${String(v?.message ?? 'down')}`));
        const errorId = randomUUID();
        this.logger.warn({ errorId, failing }, `not ready: ${reasons.join('; ')}`);
        res.status(503);
        return errorBody(503, `not ready: ${reasons.join('; ')}`, { code: 'NOT_READY', status: 'error', info, failing, checks: details, errorId });
      }
      throw e;
    }
  }
}
