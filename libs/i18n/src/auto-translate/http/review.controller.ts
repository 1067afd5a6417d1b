import { Body, Controller, HttpCode, HttpStatus, Inject, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { LocaleRepository } from '../../locales/persistence/locale.repository';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { TranslationRepository } from '../../translations/persistence/translation.repository';
import { addUsage, NO_USAGE, TranslationEngine, type TranslationUsage } from '../auto-translate.ports';
import { targetLocales } from '../engine/target-locales';
import { reviewKeyNotFound, toAiTranslateException } from './ai-errors';
import { type ReviewedKeyDto, ReviewRequestDto, ReviewResultDto, ReviewVerdictDto } from './review.dto';

/**
 * The review gate on demand (admin, under /api/v1/admin/i18n/translations/review): one model call
 * per key judges each candidate's meaning against the source text and translator note. Candidates
 * and note default to what the row stores (every translation but the source locale's). Writes
 * nothing. A key without a row or without source text answers 404; a reviewer outage 503.
 */
@ApiTags('i18n')
@ApiExtraModels(ReviewVerdictDto)
@Controller('admin/i18n/translations')
export class ReviewTranslationsController {
  constructor(
    @Inject(TranslationEngine) private readonly engine: TranslationEngine,
    @Inject(TranslationRepository) private readonly rows: TranslationRepository,
    @Inject(LocaleRepository) private readonly locales: LocaleRepository,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {}

  @Post('review')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Review translations of up to 40 keys for meaning (read-only)' })
  @ApiOkResponse({ type: ReviewResultDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'No items, more than 40, or a malformed one.' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'A key has no row, or no text in the source locale.' })
  @ApiServiceUnavailableResponse({ type: ErrorBodyDto, description: 'The reviewer could not answer (outage, timeout, unreadable answer).' })
  async review(@Body() dto: ReviewRequestDto, @CurrentPrincipal() who: Principal): Promise<ReviewResultDto> {
    const sourceCode = this.config.sourceLocale;
    const [source] = targetLocales([sourceCode], await this.locales.list());
    // Read every row first: an unknown key answers 404 before any model call.
    const work: Array<{ key: string; ns: string; source: string; candidates: Record<string, string>; context?: string }> = [];
    for (const item of dto.items) {
      const ns = item.ns ?? '';
      const row = await this.rows.find({ ns, key: item.key });
      const text = row?.translations[sourceCode];
      if (!row || text === undefined || !text.trim()) throw reviewKeyNotFound(item.key, ns, sourceCode);
      const stored = Object.fromEntries(Object.entries(row.translations).filter(([locale]) => locale !== sourceCode));
      work.push({ key: item.key, ns, source: text, candidates: item.candidates ?? stored, context: item.context ?? row.context });
    }
    const items: ReviewedKeyDto[] = new Array(work.length);
    let usage: TranslationUsage = NO_USAGE;
    let next = 0;
    const worker = async () => {
      while (next < work.length) {
        const i = next++;
        const w = work[i];
        const result = await this.engine.review({
          key: w.key,
          source: w.source,
          sourceLocale: source.language,
          context: w.context,
          candidates: w.candidates,
          usageContext: { userId: who?.sub, purpose: 'review' },
        });
        usage = addUsage(usage, result.usage);
        items[i] = { key: w.key, ...(w.ns ? { ns: w.ns } : {}), verdicts: result.verdicts };
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.config.aiConcurrency, work.length) }, worker));
    } catch (error) {
      throw toAiTranslateException(error);
    }
    return { items, usage };
  }
}
