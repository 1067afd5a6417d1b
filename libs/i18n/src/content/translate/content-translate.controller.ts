import { Body, Controller, Get, HttpCode, HttpStatus, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { currentLocale, ErrorBodyDto } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { PublicPageDto } from '../dto/content.dto';
import { checkSlug } from '../use-cases/page-writes.use-case';
import { ContentSweep, SweepReports } from './content-sweep';
import {
  ApproveContentDto,
  ApprovedContentDto,
  ContentTranslateReportDto,
  ContentTranslateRunDto,
  LastSweepDto,
  PendingContentDto,
  PreviewQueryDto,
  RejectContentDto,
  RejectedContentDto,
} from './content-translate.dto';
import { ContentTranslator } from './content-translator';
import { ContentTranslationQueue } from './translation-queue';

/** Translation of pages and fragments: a run, the review queue and the last sweep (admin, under /api/v1/admin/content/translations). */
@ApiTags('content')
@Controller('admin/content/translations')
export class ContentTranslationsController {
  constructor(
    @Inject(ContentTranslator) private readonly translator: ContentTranslator,
    @Inject(ContentTranslationQueue) private readonly queue: ContentTranslationQueue,
    @Inject(ContentSweep) private readonly sweep: ContentSweep,
    @Inject(SweepReports) private readonly reports: SweepReports,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  @Post('run')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Translate ready pages and fragments now (no quiet period); re-run while reason is budget_exhausted' })
  @ApiOkResponse({ type: ContentTranslateReportDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  run(@Body() dto: ContentTranslateRunDto, @CurrentPrincipal() who: Principal): Promise<ContentTranslateReportDto> {
    return this.translator.run({
      ...(dto.pages ? { pages: dto.pages } : {}),
      ...(dto.fragments ? { fragments: dto.fragments } : {}),
      ...(dto.locales ? { locales: dto.locales } : {}),
      force: dto.force === true,
      dryRun: dto.dryRun === true,
      ...(dto.budget !== undefined ? { budget: dto.budget } : {}),
      // A request has a deadline: no record starts after it, and a model call still running well
      // past it is cut off, so the answer beats the gateway's upstream timeout; the rest counts in `remaining`.
      deadline: Date.now() + this.config.translateRequestDeadlineMs,
      signal: AbortSignal.timeout(Math.round(this.config.translateRequestDeadlineMs * 1.15)),
      usageContext: { purpose: 'content', ...(who?.sub ? { userId: who.sub } : {}) },
    });
  }

  @Get('pending')
  @I18nAdmin()
  @ApiOperation({ summary: 'Translations held for review, each with its source and what readers see now' })
  @ApiOkResponse({ type: PendingContentDto })
  pending(): Promise<PendingContentDto> {
    return this.queue.pending();
  }

  @Post('approve')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Publish held translations of a record in one locale (one unit, or all), optionally with edited text' })
  @ApiOkResponse({ type: ApprovedContentDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'No such record, or nothing held for it in that locale (and unit).' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'The source moved since the candidate was made (CONTENT_CANDIDATE_STALE); send force: true to publish anyway.' })
  approve(@Body() dto: ApproveContentDto): Promise<ApprovedContentDto> {
    return this.queue.approve(dto);
  }

  @Post('reject')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Discard held translations of a record in one locale; the next run makes fresh ones' })
  @ApiOkResponse({ type: RejectedContentDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'No such record, or nothing held for it in that locale (and unit).' })
  reject(@Body() dto: RejectContentDto): Promise<RejectedContentDto> {
    return this.queue.reject(dto);
  }

  @Get('last-sweep')
  @I18nAdmin()
  @ApiOperation({ summary: 'The content sweep settings and the report of the last sweep' })
  @ApiOkResponse({ type: LastSweepDto })
  async lastSweep(): Promise<LastSweepDto> {
    return {
      enabled: this.sweep.enabled,
      quietMinutes: this.config.contentQuietMs / 60_000,
      budget: this.config.contentBudget > 0 ? this.config.contentBudget : null,
      last: ((await this.reports.last()) as unknown as Record<string, unknown> | null) ?? null,
    };
  }
}

/** A page as readers would see it with its held translations approved (admin). */
@ApiTags('content')
@Controller('admin/content/pages')
export class ContentPreviewController {
  constructor(
    @Inject(ContentTranslationQueue) private readonly queue: ContentTranslationQueue,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  @Get(':slug/preview')
  @I18nAdmin()
  @ApiParam({ name: 'slug', example: 'privacy' })
  @ApiOperation({ summary: 'Preview a page in a locale with its held translations approved (the public read’s shape)' })
  @ApiOkResponse({ type: PublicPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto })
  async preview(@Param('slug') slug: string, @Query() q: PreviewQueryDto, @Res({ passthrough: true }) res: Response): Promise<PublicPageDto> {
    checkSlug(slug);
    const { page, contentLocale } = await this.queue.preview(slug, q.locale ?? (currentLocale() || this.config.defaultLocale));
    res.setHeader('Content-Language', contentLocale);
    res.setHeader('Cache-Control', 'no-store');
    return page;
  }
}
