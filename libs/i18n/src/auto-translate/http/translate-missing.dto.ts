import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsISO8601, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsNamespace, MAX_KEY_LENGTH, NO_CONTROL_CHARS } from '../../shared/i18n-fields';
import { TargetLocalesField } from '../../shared/target-locales.field';
import { TranslationUsageDto } from '../../shared/translation-usage.dto';

/** Body of `POST /admin/i18n/translations/translate-missing`; an empty object is valid. */
export class TranslateMissingDto {
  @ApiPropertyOptional({
    enum: ['missing', 'missing_and_stale'],
    // No `default:` here: generated clients would then require the field in requests.
    description: '`missing` (when absent) fills only locales without text; `missing_and_stale` also re-translates machine text whose source text or translator note changed since it was made (what `i18n-translate` sends).',
  })
  @IsOptional()
  @IsIn(['missing', 'missing_and_stale'], { message: 'mode must be missing or missing_and_stale' })
  mode?: 'missing' | 'missing_and_stale';

  @ApiPropertyOptional({
    description:
      'Also replace text that exists: every machine translation written before the overwrite pass started (current or stale, from any model, the `local` pseudo-localizer included) and text of unknown origin. ' +
      'Human, code/seed and admin-approved machine text only with includeProtected (else counted in skippedProtected). ' +
      'A pass starts with the first overwrite call of a selection and continues while calls with the same selection follow (30 minutes at most between them); text written since it started is its own and is not redone, so re-running until keysProcessed is 0 ends.',
  })
  @IsOptional()
  @IsBoolean()
  overwrite?: boolean;

  @ApiPropertyOptional({ description: 'With overwrite, also replace human, code/seed and admin-approved machine text.' })
  @IsOptional()
  @IsBoolean()
  includeProtected?: boolean;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-01-01T00:00:00.000Z',
    description: 'With overwrite: replace machine text written before this instant instead of the start of the pass (the `overwriteBefore` an earlier answer gave). Not in the future (a minute of clock slack between replicas is allowed).',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'overwriteBefore must be an ISO 8601 date-time' })
  overwriteBefore?: string;

  @TargetLocalesField()
  locales?: string[];

  @ApiPropertyOptional({ default: false, description: 'Run the review gate before writing.' })
  @IsOptional()
  @IsBoolean()
  review?: boolean;

  @ApiPropertyOptional({ description: 'Namespace; absent: every namespace.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiPropertyOptional({ example: 'checkout.', description: 'Only keys starting with this.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_KEY_LENGTH)
  @Matches(NO_CONTROL_CHARS, { message: 'prefix must not contain control characters' })
  prefix?: string;

  @ApiPropertyOptional({ type: [String], description: 'Only these keys.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_KEY_LENGTH, { each: true })
  @Matches(NO_CONTROL_CHARS, { each: true, message: 'keys must not contain control characters' })
  keys?: string[];

  @ApiPropertyOptional({ description: 'Report what would be done without calling a model or writing.' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
}

export class FailedCellDto {
  @ApiProperty()
  key!: string;

  @ApiPropertyOptional({ description: 'Present when the key lives outside the default namespace.' })
  ns?: string;

  @ApiProperty()
  locale!: string;

  @ApiProperty()
  reason!: string;
}

/** Answer of `POST /admin/i18n/translations/translate-missing`. */
export class TranslateMissingResultDto {
  @ApiProperty({ description: 'Keys worked on by this call; re-run until it is 0.' })
  keysProcessed!: number;

  @ApiProperty({ description: '(key, locale) cells written live.' })
  localesFilled!: number;

  @ApiProperty({ description: 'Human or code/seed cells an overwrite left alone (no includeProtected).' })
  skippedProtected!: number;

  @ApiProperty({ description: 'Candidates held for review (the key has a translator note and the reviewer flagged them).' })
  held!: number;

  @ApiProperty({ type: [FailedCellDto] })
  failed!: FailedCellDto[];

  @ApiProperty({ description: 'Keys that still need work after this call.' })
  remaining!: number;

  @ApiProperty({ description: 'Cells filled from translation memory instead of a model call.' })
  memoryHits!: number;

  @ApiProperty({ description: 'Keys skipped because they have no source-language text.' })
  missingSource!: number;

  @ApiProperty({ type: TranslationUsageDto })
  usage!: TranslationUsageDto;

  @ApiPropertyOptional({ format: 'date-time', description: 'With overwrite: machine text written before this instant is replaced (the start of the pass).' })
  overwriteBefore?: string;
}
