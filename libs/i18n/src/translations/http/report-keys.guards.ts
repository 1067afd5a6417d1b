import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainException } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { I18nException } from '../../i18n.exception';

/** 404 while I18N_AUTOREGISTER=false, before the body is validated (the route does not exist then). */
@Injectable()
export class AutoregisterEnabledGuard implements CanActivate {
  constructor(@Inject(I18nConfig) private readonly config: I18nConfig) {}

  canActivate(): boolean {
    if (!this.config.autoregister) throw I18nException.autoregisterDisabled();
    return true;
  }
}

/**
 * I18N_REPORT_KEYS_RATE_LIMIT calls per minute per client address (the route is public). Behind the
 * gateway the client is the last X-Forwarded-For entry, the one the gateway appended; earlier ones
 * are the client's own claims and are ignored.
 */
@Injectable()
export class ReportKeysRateLimitGuard implements CanActivate {
  private readonly limiter?: RateLimiterMemory;

  constructor(@Inject(I18nConfig) config: I18nConfig) {
    if (config.reportKeysRateLimit > 0) this.limiter = new RateLimiterMemory({ points: config.reportKeysRateLimit, duration: 60 });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.limiter) return true;
    const req = context.switchToHttp().getRequest<Request>();
    try {
      await this.limiter.consume(clientAddress(req));
      return true;
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const wait = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(wait));
      throw new DomainException('RATE_LIMITED', 429, `too many key reports from this address; retry in ${wait} s`);
    }
  }
}

function clientAddress(req: Request): string {
  const fwd = req.headers['x-forwarded-for'];
  const list = (Array.isArray(fwd) ? fwd.join(',') : fwd ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return list[list.length - 1] ?? req.socket.remoteAddress ?? 'unknown';
}
