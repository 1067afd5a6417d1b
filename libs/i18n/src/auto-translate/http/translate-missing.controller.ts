import { Body, Controller, HttpCode, HttpStatus, Inject, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';
import { I18nConfig } from '../../i18n.config';
import { I18nException } from '../../i18n.exception';
import { I18nAdmin } from '../../shared/i18n-access.decorators';
import { FillTranslations } from '../auto-translate.ports';
import { type OverwriteSelection, OverwritePassRepository } from '../fill/overwrite-pass.repository';
import { TranslateMissingDto, TranslateMissingResultDto } from './translate-missing.dto';

/** How far ahead of this replica's clock an overwriteBefore may be. */
const CLOCK_SLACK_MS = 60_000;

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
    @Inject(OverwritePassRepository) private readonly passes: OverwritePassRepository,
  ) {}

  @Post('translate-missing')
  @I18nAdmin()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Translate missing cells (with overwrite, every eligible cell) of a batch of keys; re-run until keysProcessed is 0' })
  @ApiOkResponse({ type: TranslateMissingResultDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'Invalid fields (named in details); overwriteBefore without overwrite or in the future.' })
  async run(@Body() dto: TranslateMissingDto, @CurrentPrincipal() who: Principal): Promise<TranslateMissingResultDto> {
    const mode = dto.mode ?? 'missing';
    const overwrite = dto.overwrite === true;
    if (dto.overwriteBefore !== undefined && !overwrite) throw I18nException.invalid([{ field: 'overwriteBefore', problems: ['overwriteBefore needs overwrite: true'] }]);
    const selection: OverwriteSelection = {
      mode,
      ...(dto.ns !== undefined ? { ns: dto.ns } : {}),
      ...(dto.prefix ? { prefix: dto.prefix } : {}),
      ...(dto.keys?.length ? { keys: dto.keys } : {}),
      ...(dto.locales ? { locales: dto.locales } : {}),
      includeProtected: overwrite && dto.includeProtected === true,
    };
    const overwriteBefore = overwrite ? await this.overwriteBefore(dto, selection) : undefined;
    const report = await this.fill.run({
      mode,
      ...(dto.ns !== undefined ? { ns: dto.ns } : {}),
      ...(dto.keys?.length ? { keys: dto.keys } : { allKeys: true }),
      ...(dto.prefix ? { prefix: dto.prefix } : {}),
      ...(dto.locales ? { locales: dto.locales } : {}),
      overwrite,
      includeProtected: selection.includeProtected,
      ...(overwriteBefore ? { overwriteBefore: overwriteBefore.getTime() } : {}),
      review: dto.review === true,
      dryRun: dto.dryRun === true,
      limit: this.config.translateKeysPerRequest,
      deadline: Date.now() + this.config.translateRequestDeadlineMs,
      // The deadline only stops new keys; a model call still running well past it is cut off, so the
      // answer beats the gateway's upstream timeout and the key is counted in `remaining`.
      signal: AbortSignal.timeout(Math.round(this.config.translateRequestDeadlineMs * 1.15)),
      usageContext: { purpose: 'translate-missing', ...(who?.sub ? { userId: who.sub } : {}) },
    });
    if (overwrite && !dto.dryRun && report.keysProcessed === 0 && report.remaining === 0) await this.passes.finish(selection);
    return { ...report, missingSource: report.missingSource ?? 0, ...(overwriteBefore ? { overwriteBefore: overwriteBefore.toISOString() } : {}) };
  }

  /** The instant before which machine text is replaced: the one given, else the start of the selection's pass. */
  private async overwriteBefore(dto: TranslateMissingDto, selection: OverwriteSelection): Promise<Date> {
    const now = new Date();
    if (dto.overwriteBefore === undefined) return this.passes.startedAt(selection, now, dto.dryRun !== true);
    const given = new Date(dto.overwriteBefore);
    // A future instant would take this pass's own writes for old ones and redo them; a minute of
    // slack lets an answer of one replica reach another whose clock is a little behind.
    if (given.getTime() > now.getTime() + CLOCK_SLACK_MS) throw I18nException.invalid([{ field: 'overwriteBefore', problems: ['overwriteBefore must not be in the future'] }]);
    return given;
  }
}
