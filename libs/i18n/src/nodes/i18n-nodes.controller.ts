import { type ArgumentsHost, Body, Catch, Controller, HttpCode, Inject, Post, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { RemoteNodeHandler } from '@flowplane/platform/auth';
import { AllExceptionsFilter, DomainException } from '@flowplane/platform/http';
import { I18nConfig } from '../i18n.config';
import { TranslationService } from '../translations/translation.service';
import { errorOutput, NOT_CONFIGURED, type NodeStep, resolveLocaleStep, translateStep } from './i18n-node-steps';
import { I18N_RESOLVE_LOCALE_NODE, I18N_TRANSLATE_NODE } from './i18n-nodes';

/**
 * In disabled mode every i18n route answers 503 before its handler runs; a node step instead
 * outputs `{error: 'i18n not configured'}` on its Error port, so a flow can branch on it. Any other
 * error (a step token refused, a store outage) keeps its standard answer.
 */
@Catch()
export class NodeNotConfiguredFilter extends AllExceptionsFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (exception instanceof DomainException && exception.code === 'I18N_NOT_CONFIGURED' && host.getType() === 'http') {
      host.switchToHttp().getResponse<Response>().status(200).json(errorOutput(NOT_CONFIGURED));
      return;
    }
    super.catch(exception, host);
  }
}

/**
 * The invoke routes of `i18n/translate` and `i18n/resolve-locale` (flow-runtime calls them with the
 * step token of the node, valid for that node type only). Both read their input packet, not settings.
 */
@ApiExcludeController()
@Controller('internal/nodes/i18n')
@UseFilters(NodeNotConfiguredFilter)
export class I18nNodesController {
  constructor(
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(TranslationService) private readonly translations: TranslationService,
  ) {}

  @Post('translate')
  @HttpCode(200)
  @RemoteNodeHandler(I18N_TRANSLATE_NODE)
  translate(@Body() step: Record<string, unknown>) {
    if (!this.config.enabled) return errorOutput(NOT_CONFIGURED);
    return translateStep(step as NodeStep, this.config.defaultLocale, (ns, key, locale, args) =>
      // A cache hit answers without a promise; otherwise the async path loads the buckets.
      this.translations.translateCached(ns, key, locale, args) ?? this.translations.translateLocale(ns, locale, key, args),
    );
  }

  @Post('resolve-locale')
  @HttpCode(200)
  @RemoteNodeHandler(I18N_RESOLVE_LOCALE_NODE)
  resolveLocale(@Body() step: Record<string, unknown>) {
    if (!this.config.enabled) return errorOutput(NOT_CONFIGURED);
    return resolveLocaleStep(step as NodeStep, this.config.defaultLocale);
  }
}
