import { Body, Controller, Get, Headers, HttpCode, HttpStatus, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBadRequestResponse, ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { CatalogDto, CatalogQueryDto, ReportKeysDto, ReportKeysResultDto } from '../dto/catalog.dto';
import { TranslationService } from '../translation.service';
import { matchesEtag, PublicCatalogService } from '../use-cases/public-catalog.service';
import { ReportKeysUseCase } from '../use-cases/report-keys.use-case';
import { AutoregisterEnabledGuard, ReportKeysRateLimitGuard } from './report-keys.guards';

/** The public catalog (under /api/v1/i18n): messages for frontends and key auto-registration. */
@ApiTags('i18n')
@Controller('i18n')
export class CatalogController {
  constructor(
    private readonly catalog: PublicCatalogService,
    private readonly translations: TranslationService,
    private readonly reportKeys: ReportKeysUseCase,
  ) {}

  @Get('messages')
  @Public()
  @ApiOperation({ summary: 'The message catalog of a locale and namespace, with a strong ETag' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'ETag of a catalog the client holds; 304 when unchanged.' })
  @ApiOkResponse({ type: CatalogDto })
  @ApiResponse({ status: 304, description: 'Not modified: the ETag in If-None-Match is current.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async messages(
    @Query() q: CatalogQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const locale = q.locale || this.translations.contextLocale();
    const body = await this.catalog.body(q.ns ?? '', locale);
    res.setHeader('ETag', body.etag);
    // Stored by browsers and CDNs, revalidated on every use (a 304 costs one small round trip).
    res.setHeader('Cache-Control', 'public, no-cache');
    if (!q.locale) res.setHeader('Vary', 'Accept-Language, Cookie');
    if (matchesEtag(ifNoneMatch, body.etag)) {
      res.status(HttpStatus.NOT_MODIFIED).end();
      return;
    }
    res.status(HttpStatus.OK).type('application/json').send(body.json);
  }

  @Post('report-keys')
  @Public()
  @UseGuards(AutoregisterEnabledGuard, ReportKeysRateLimitGuard)
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Register keys a frontend uses (write-once text, upserted note, accumulated modules)' })
  @ApiOkResponse({ type: ReportKeysResultDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'More than 500 keys, a key over 200 or a text over 10,000 characters, unknown fields.' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'I18N_AUTOREGISTER=false (code I18N_AUTOREGISTER_DISABLED): a build-time extractor registers keys through the admin route POST /admin/i18n/report-keys instead.' })
  @ApiTooManyRequestsResponse({ type: ErrorBodyDto, description: 'Too many calls from this address (I18N_REPORT_KEYS_RATE_LIMIT per minute).' })
  report(@Body() dto: ReportKeysDto): Promise<ReportKeysResultDto> {
    return this.reportKeys.execute(dto);
  }
}
