import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { FRAGMENT_KEY_MAX, FRAGMENT_KEY_PATTERN, SLUG_MAX, SLUG_PATTERN } from '../domain/content.entity';
import { TargetLocalesField } from '../../shared/target-locales.field';
import { TranslationUsageDto } from '../../shared/translation-usage.dto';

/** Body of `POST /admin/content/translations/run`; an empty object translates every ready record into every active locale. */
export class ContentTranslateRunDto {
  @ApiPropertyOptional({ type: [String], example: ['about-us'], description: 'Page slugs. With neither pages nor fragments: every page and fragment; with only one of them: only those records.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(SLUG_MAX, { each: true })
  @Matches(SLUG_PATTERN, { each: true, message: 'each of pages must be a page slug (about-us)' })
  pages?: string[];

  @ApiPropertyOptional({ type: [String], example: ['footer'], description: 'Fragment keys (see pages).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(FRAGMENT_KEY_MAX, { each: true })
  @Matches(FRAGMENT_KEY_PATTERN, { each: true, message: 'each of fragments must be a fragment key (nav.main)' })
  fragments?: string[];

  @TargetLocalesField()
  locales?: string[];

  @ApiPropertyOptional({ description: 'Translate every unit again, not only missing and stale ones.' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;

  @ApiPropertyOptional({ description: 'Count what would be translated; call no model, write nothing.' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({ minimum: 1, description: '(unit, locale) model translations this call makes at most; absent: no cap (the request deadline still applies).' })
  @IsOptional()
  @IsInt()
  @Min(1)
  budget?: number;
}

export class ContentFailureDto {
  @ApiProperty({ enum: ['page', 'fragment'] })
  type!: 'page' | 'fragment';

  @ApiProperty({ example: 'about-us' })
  id!: string;

  @ApiProperty({ example: 'body' })
  unit!: string;

  @ApiProperty({ example: 'de' })
  locale!: string;

  @ApiProperty()
  reason!: string;
}

export class ContentSkippedDto {
  @ApiProperty({ enum: ['page', 'fragment'] })
  type!: 'page' | 'fragment';

  @ApiProperty({ example: 'draft' })
  id!: string;

  @ApiProperty({ example: 'not ready', description: '`not ready` (TranslationReady is off), `not found`, or `waiting for quiet` (a sweep: edited within the quiet period).' })
  reason!: string;
}

export class ContentTranslateReportDto {
  @ApiProperty({ description: '(unit, locale) translations written live (on a dry run: that would be made).' })
  translated!: number;

  @ApiProperty({ type: [ContentFailureDto], description: 'Failed (unit, locale) translations: no text and no hash recorded; the next run retries exactly these.' })
  failed!: ContentFailureDto[];

  @ApiProperty({ description: '(unit, locale) candidates held for review (records with reviewRequired).' })
  pending!: number;

  @ApiProperty({ type: [ContentSkippedDto] })
  skipped!: ContentSkippedDto[];

  @ApiProperty({
    nullable: true,
    enum: ['nothing_to_do', 'budget_exhausted', 'waiting_for_quiet'],
    description: 'null: work was done and none was left for lack of budget. `nothing_to_do`: nothing needed translating. `budget_exhausted`: stopped with work left (`remaining`) at the budget or the deadline; run again. `waiting_for_quiet` (sweeps only): the only work is in records edited within the quiet period.',
  })
  reason!: 'nothing_to_do' | 'budget_exhausted' | 'waiting_for_quiet' | null;

  @ApiProperty({ description: '(unit, locale) pairs still needing work in the records taken.' })
  remaining!: number;

  @ApiProperty({ description: 'Records written.' })
  records!: number;

  @ApiProperty({ description: 'Translations reused from identical source text already translated for the locale (no model call, outside the budget).' })
  memoryHits!: number;

  @ApiProperty({ type: TranslationUsageDto })
  usage!: TranslationUsageDto;

  @ApiPropertyOptional()
  dryRun?: boolean;
}

export class PendingContentItemDto {
  @ApiProperty({ enum: ['page', 'fragment'] })
  type!: 'page' | 'fragment';

  @ApiProperty({ example: 'privacy' })
  id!: string;

  @ApiProperty({ example: 'body', description: 'A page field or a fragment leaf by JSON Pointer.' })
  unit!: string;

  @ApiProperty({ example: 'de' })
  locale!: string;

  @ApiProperty({ description: 'The held translation.' })
  candidate!: string;

  @ApiProperty({ description: 'The unit’s source text now.' })
  source!: string;

  @ApiProperty({ nullable: true, type: String, description: 'What readers of the locale see for the unit now (by the locale chain).' })
  current!: string | null;

  @ApiProperty({ description: 'The source moved since the candidate was made: approve needs `force`.' })
  sourceChanged!: boolean;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

export class PendingContentDto {
  @ApiProperty({ type: [PendingContentItemDto] })
  items!: PendingContentItemDto[];
}

export class ContentQueueTargetDto {
  @ApiProperty({ enum: ['page', 'fragment'] })
  @IsIn(['page', 'fragment'])
  type!: 'page' | 'fragment';

  @ApiProperty({ example: 'privacy', description: 'Page slug or fragment key.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(Math.max(SLUG_MAX, FRAGMENT_KEY_MAX))
  id!: string;

  @ApiProperty({ example: 'de' })
  @IsString()
  @Matches(LOCALE_CODE_PATTERN, { message: 'locale must be a locale code (pl, pt-BR)' })
  locale!: string;

  @ApiPropertyOptional({ example: 'body', description: 'One unit; absent: every held unit of the record in that locale.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(10_000)
  unit?: string;
}

export class ApproveContentDto extends ContentQueueTargetDto {
  @ApiPropertyOptional({ description: 'Publish this text instead of the candidate (needs `unit` when several units wait).' })
  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  text?: string;

  @ApiPropertyOptional({ description: 'Approve even when the source moved since the candidate was made.' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class RejectContentDto extends ContentQueueTargetDto {}

export class ApprovedUnitDto {
  @ApiProperty({ example: 'body' })
  unit!: string;

  @ApiProperty({ description: 'Approved with `force` over a moved source.' })
  forced!: boolean;
}

export class ApprovedContentDto {
  @ApiProperty({ enum: ['page', 'fragment'] }) type!: 'page' | 'fragment';
  @ApiProperty() id!: string;
  @ApiProperty() locale!: string;
  @ApiProperty({ type: [ApprovedUnitDto] }) approved!: ApprovedUnitDto[];
}

export class RejectedContentDto {
  @ApiProperty({ enum: ['page', 'fragment'] }) type!: 'page' | 'fragment';
  @ApiProperty() id!: string;
  @ApiProperty() locale!: string;
  @ApiProperty({ description: 'Candidates discarded; the next run makes fresh ones.' }) rejected!: number;
}

export class LastSweepDto {
  @ApiProperty({ description: 'False when CONTENT_TRANSLATE_QUIET_MINUTES is 0 (no sweep runs).' })
  enabled!: boolean;

  @ApiProperty({ description: 'CONTENT_TRANSLATE_QUIET_MINUTES.' })
  quietMinutes!: number;

  @ApiProperty({ nullable: true, type: Number, description: 'CONTENT_TRANSLATE_BUDGET; null when uncapped (0).' })
  budget!: number | null;

  @ApiProperty({ nullable: true, type: Object, description: 'The last sweep: `firedAt`, `scheduleId`, `startedAt`, `finishedAt`, `budget`, `quietMinutes` and its `report` (the run report); null before the first.' })
  last!: Record<string, unknown> | null;
}

export class PreviewQueryDto {
  @ApiPropertyOptional({ example: 'de', description: 'Locale to preview; absent: the request locale (lang query, cookie, Accept-Language, default).' })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_CODE_PATTERN, { message: 'locale must be a locale code (pl, pt-BR)' })
  locale?: string;
}
