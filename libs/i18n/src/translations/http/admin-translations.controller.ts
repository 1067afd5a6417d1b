import { Body, Controller, Get, HttpStatus, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { ListTranslationsQueryDto, TranslationPageDto, TranslationRowViewDto, UpsertTranslationRowDto } from '../dto/translation-row.dto';
import { TranslationQueries } from '../use-cases/translation.queries';
import { UpsertTranslationRowUseCase } from '../use-cases/upsert-translation-row.use-case';

/** Translation rows: one key with every locale (admin, under /api/v1/admin/i18n/translations). */
@ApiTags('i18n')
@Controller('admin/i18n/translations')
export class AdminTranslationsController {
  constructor(
    private readonly queries: TranslationQueries,
    private readonly upsertRow: UpsertTranslationRowUseCase,
  ) {}

  @Get()
  @I18nAdmin()
  @ApiOperation({ summary: 'Translation rows sorted by namespace and key, a page at a time' })
  @ApiOkResponse({ type: TranslationPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  list(@Query() q: ListTranslationsQueryDto): Promise<TranslationPageDto> {
    return this.queries.rows(q);
  }

  @Post()
  @I18nAdmin()
  @ApiOperation({ summary: 'Create or update a key: the locales named, and its translator note' })
  @ApiOkResponse({ type: TranslationRowViewDto, description: 'Updated.' })
  @ApiCreatedResponse({ type: TranslationRowViewDto, description: 'Created.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async upsert(
    @Body() dto: UpsertTranslationRowDto,
    @CurrentPrincipal() who: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TranslationRowViewDto> {
    const { row, created } = await this.upsertRow.execute(dto, who?.sub);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return row;
  }
}
