import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { I18nConfig } from './i18n.config';
import { I18nException } from './i18n.exception';

/**
 * Catalog rule 8: under `I18N_STORE=none` every route of the service answers 503 `i18n not
 * configured`, whichever feature declares it. Probes, metrics and the OpenAPI document are served by
 * the platform outside /api/v1 and stay up, so an operator still sees the service alive.
 */
@Injectable()
export class I18nDisabledInterceptor implements NestInterceptor {
  constructor(@Inject(I18nConfig) private readonly config: I18nConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.config.enabled && context.getType() === 'http') {
      const path = context.switchToHttp().getRequest<Request>().path ?? '';
      if (path.startsWith('/api/') || path.startsWith('/internal/')) throw I18nException.notConfigured();
    }
    return next.handle();
  }
}
