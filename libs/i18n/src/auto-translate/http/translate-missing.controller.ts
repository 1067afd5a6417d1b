import { Body, Controller, HttpCode, HttpStatus, Inject, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { FillTranslations } from '../auto-translate.ports';
import { TranslateMissingDto, TranslateMissingResultDto } from './translate-missing.dto';

/**
 * Bulk AI translation into every active locale (admin): at most I18N_TRANSLATE_KEYS_PER_REQUEST keys
 * within I18N_TRANSLATE_REQUEST_DEADLINE_MS per call; idempotent, re-run until keysProcessed is 0.
 */
@ApiTags('i18n')
@Controller('admin/i18n/translations')
export class TranslateMissingController {
  constructor(
    @Inject(FillTranslations) private readonly fill: FillTranslations,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  @Post('translate-missing')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Translate missing cells (with overwrite, every eligible cell) of a batch of keys; re-run until keysProcessed is 0' })
  @ApiOkResponse({ type: TranslateMissingResultDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async run(@Body() dto: TranslateMissingDto, @CurrentPrincipal() who: Principal): Promise<TranslateMissingResultDto> {
    const report = await this.fill.run({
      mode: dto.mode ?? 'missing',
      ...(dto.ns !== undefined ? { ns: dto.ns } : {}),
      ...(dto.keys?.length ? { keys: dto.keys } : { allKeys: true }),
      ...(dto.prefix ? { prefix: dto.prefix } : {}),
      ...(dto.locales ? { locales: dto.locales } : {}),
      overwrite: dto.overwrite === true,
      includeProtected: dto.overwrite === true && dto.includeProtected === true,
      review: dto.review === true,
      dryRun: dto.dryRun === true,
      limit: this.config.translateKeysPerRequest,
      deadline: Date.now() + this.config.translateRequestDeadlineMs,
      // The deadline only stops new keys; a model call still running well past it is cut off, so the
      // answer beats the gateway's upstream timeout and the key is counted in `remaining`.
      signal: AbortSignal.timeout(Math.round(this.config.translateRequestDeadlineMs * 1.15)),
      usageContext: { purpose: 'translate-missing', ...(who?.sub ? { userId: who.sub } : {}) },
    });
    return { ...report, missingSource: report.missingSource ?? 0 };
  }
}
