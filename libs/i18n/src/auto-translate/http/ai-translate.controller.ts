import { Body, Controller, HttpCode, HttpStatus, Inject, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { LocaleRepository } from '../../locales/persistence/locale.repository';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { TranslationEngine } from '../auto-translate.ports';
import { targetLocales } from '../engine/target-locales';
import { toAiTranslateException } from './ai-errors';
import { AiTranslateDto, AiTranslateResultDto } from './ai-translate.dto';

/**
 * One text into several locales through the translation model (admin, under /api/v1/admin/ai).
 * Every translation is checked against the source's format signature; a locale whose candidate
 * stays broken after one retry, or that the model could not answer, is listed in `omitted` with
 * the reason, so the caller keeps the source for it. Writes nothing.
 */
@ApiTags('i18n')
@Controller('admin/ai')
export class AiTranslateController {
  constructor(
    @Inject(TranslationEngine) private readonly engine: TranslationEngine,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  @Post('translate')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Translate one text into several locales, keeping its placeholders, plural branches and tags' })
  @ApiOkResponse({ type: AiTranslateResultDto, description: 'Every locale asked for is in translations or in omitted (with the reason).' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'The ai/* settings name a profile or provider that cannot be used.' })
  async translate(@Body() dto: AiTranslateDto, @CurrentPrincipal() who: Principal): Promise<AiTranslateResultDto> {
    const sourceLocale = dto.sourceLocale ?? this.config.sourceLocale;
    const registry = await this.locales.list();
    const [source] = targetLocales([sourceLocale], registry);
    try {
      return await this.engine.translate({
        text: dto.text,
        sourceLocale: source.language,
        locales: targetLocales(dto.locales, registry),
        context: dto.context,
        label: dto.label,
        usageContext: { userId: who?.sub, purpose: 'ai-translate' },
      });
    } catch (error) {
      throw toAiTranslateException(error);
    }
  }
}
