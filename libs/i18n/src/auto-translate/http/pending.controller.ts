import { Body, Controller, Get, HttpCode, HttpStatus, Inject, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { TranslationRowViewDto } from '../../translations/dto/translation-row.dto';
import { PendingTranslationsUseCases } from '../fill/pending-translations.use-cases';
import { ApprovePendingDto, ListPendingQueryDto, PendingEntryViewDto, PendingPageDto, RejectPendingDto } from './pending.dto';

/** The review queue of catalog keys (admin, under /api/v1/admin/i18n/translations/pending). */
@ApiTags('i18n')
@ApiExtraModels(PendingEntryViewDto)
@Controller('admin/i18n/translations/pending')
export class PendingTranslationsController {
  constructor(@Inject(PendingTranslationsUseCases) private readonly pending: PendingTranslationsUseCases) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Keys with held or rejected candidates, beside the source and what readers see now' })
  @ApiOkResponse({ type: PendingPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  list(@Query() q: ListPendingQueryDto): Promise<PendingPageDto> {
    return this.pending.list(q);
  }

  @Post('approve')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Publish a held candidate: as machine text, or as human text when edited' })
  @ApiOkResponse({ type: TranslationRowViewDto, description: 'The row after the write.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'Nothing is held for that key and locale.' })
  approve(@Body() dto: ApprovePendingDto, @CurrentPrincipal() who: Principal): Promise<TranslationRowViewDto> {
    return this.pending.approve(dto, who?.sub);
  }

  @Post('reject')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Reject a held candidate: it blocks re-translation until the source or the note changes' })
  @ApiOkResponse({ type: TranslationRowViewDto, description: 'The row after the write.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'Nothing is held for that key and locale.' })
  reject(@Body() dto: RejectPendingDto, @CurrentPrincipal() who: Principal): Promise<TranslationRowViewDto> {
    return this.pending.reject(dto, who?.sub);
  }
}
