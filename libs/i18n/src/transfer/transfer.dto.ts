import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { TRANSFER_FORMATS, type TransferFormat } from './transfer.model';

const BOOLEAN = ['true', 'false'] as const;

export class ExportQueryDto {
  @ApiPropertyOptional({ description: 'Namespace; absent or empty means the default one.', default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  ns?: string;

  @ApiProperty({ description: 'Target locale: the texts the file carries (raw, no fallback).', example: 'pl' })
  @IsString()
  @MaxLength(64)
  locale!: string;

  @ApiPropertyOptional({ enum: TRANSFER_FORMATS, default: 'json' })
  @IsOptional()
  @IsIn(TRANSFER_FORMATS)
  format?: TransferFormat;

  @ApiPropertyOptional({ enum: BOOLEAN, default: 'false', description: 'JSON only: nest keys on dots (`{"cart": {"empty": …}}`) instead of flat keys.' })
  @IsOptional()
  @IsIn(BOOLEAN)
  nested?: 'true' | 'false';
}

export class ImportQueryDto {
  @ApiPropertyOptional({ description: 'Namespace written to; absent or empty means the default one (the file\'s own labels are not used).', default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  ns?: string;

  @ApiPropertyOptional({ description: 'Target locale. Required for JSON; XLIFF (trgLang) and PO (Language header) name it themselves and must agree.', example: 'pl' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  locale?: string;

  @ApiPropertyOptional({ enum: TRANSFER_FORMATS, description: 'File format; absent: from the Content-Type, or from the uploaded file name.' })
  @IsOptional()
  @IsIn(TRANSFER_FORMATS)
  format?: TransferFormat;

  @ApiPropertyOptional({ enum: BOOLEAN, default: 'false', description: 'Write the changes. Without it the import is a dry run that only reports.' })
  @IsOptional()
  @IsIn(BOOLEAN)
  apply?: 'true' | 'false';

  @ApiPropertyOptional({ enum: BOOLEAN, default: 'false', description: 'Write conflicting values and values that break their source\'s format too (reported in `overridden` and `broken`).' })
  @IsOptional()
  @IsIn(BOOLEAN)
  force?: 'true' | 'false';

  @ApiPropertyOptional({
    description: 'ISO time of the export the file was made from (the export\'s X-Exported-At). PO files exported here carry it in their header; otherwise human edits made after the export are not detected as conflicts.',
    example: '2026-11-25T20:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  since?: string;
}

export class ImportConflictDto {
  @ApiProperty() key!: string;
  @ApiProperty({
    enum: ['pending_review', 'changed_since_export', 'source_changed'],
    isArray: true,
    description:
      'pending_review: the locale has a machine candidate held or rejected by the review gate (writing would discard it). ' +
      'changed_since_export: the stored text is human and was changed after the export the file was made from (`since` or the PO header). ' +
      'source_changed: the file was translated from a source text that has changed since (bilingual formats).',
  })
  reasons!: string[];
  @ApiProperty({ description: 'Stored text (empty when the locale has none).' }) current!: string;
  @ApiProperty({ description: 'Text in the file.' }) imported!: string;
}

export class ImportBrokenCellDto {
  @ApiProperty() key!: string;
  @ApiProperty({
    description: 'Why the text breaks its source\'s format, as the machine-translation check names it: "placeholder {cart} missing", "template field {{ .Name }} missing", ' +
      '"plural branch \'few\' missing (pl needs one, few, many, other)", "ICU message syntax broken (…)", "dropped closing </b>", or attribute href of <a> changed from "/a" to "/b".',
    example: 'placeholder {cart} missing',
  })
  reason!: string;
  @ApiProperty({ description: 'The source-locale text it was checked against (the stored one; for a new key, the file\'s).' }) source!: string;
  @ApiProperty({ description: 'Text in the file.' }) imported!: string;
  @ApiProperty({ description: 'Written anyway because of force=true (always false on a dry run).' }) written!: boolean;
}

export class ImportReportDto {
  @ApiProperty({ description: 'True unless apply=true: nothing was written.' }) dryRun!: boolean;
  @ApiProperty({ enum: TRANSFER_FORMATS }) format!: string;
  @ApiProperty() ns!: string;
  @ApiProperty() locale!: string;
  @ApiProperty({ description: 'Translations the locale did not have (new keys included); on a dry run, those apply would create. Includes what force=true writes.' }) created!: number;
  @ApiProperty({ description: 'Translations whose text changes; on a dry run, those apply would change. Includes what force=true writes.' }) updated!: number;
  @ApiProperty({ description: 'Translations equal to the stored text.' }) unchanged!: number;
  @ApiProperty({ description: 'Entries the file leaves untranslated (empty target, fuzzy PO entries): never imported.' }) untranslated!: number;
  @ApiProperty({ type: [ImportConflictDto], description: 'Conflicts left alone (without force=true); not counted in created or updated.' }) conflicts!: ImportConflictDto[];
  @ApiProperty({ type: [ImportConflictDto], description: 'Conflicts written (on a dry run: that apply would write) because of force=true; counted in created or updated, not in conflicts.' })
  overridden!: ImportConflictDto[];
  @ApiProperty({
    type: [ImportBrokenCellDto],
    description: 'Every changed text that breaks its source\'s format signature (the one /admin/ai/translate validates with). Left alone unless force=true; then written (written: true) and counted in created or updated.',
  })
  broken!: ImportBrokenCellDto[];
  @ApiProperty({ description: 'Texts written only because of force=true: overridden conflicts and broken texts (0 on a dry run).' }) forced!: number;
}

export class CoverageQueryDto {
  @ApiPropertyOptional({ description: 'One namespace (empty: the default one); absent: every namespace.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  ns?: string;

  @ApiPropertyOptional({ description: 'One locale; absent: every active locale and every locale holding text.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  locale?: string;
}

export class CoveragePercentDto {
  @ApiProperty() translated!: number;
  @ApiProperty() machine!: number;
  @ApiProperty() human!: number;
  @ApiProperty() stale!: number;
  @ApiProperty() pending!: number;
}

export class CoverageItemDto {
  @ApiProperty() ns!: string;
  @ApiProperty() locale!: string;
  @ApiProperty({ description: 'Keys of the namespace.' }) keys!: number;
  @ApiProperty({ description: 'Keys with a text in this locale (raw namespaced form: no fallback).' }) translated!: number;
  @ApiProperty({ description: 'Translated keys whose provenance is machine.' }) machine!: number;
  @ApiProperty({ description: 'Translated keys whose provenance is human.' }) human!: number;
  @ApiProperty({ description: 'Machine translations whose source text or note changed since (fingerprints differ).' }) stale!: number;
  @ApiProperty({ description: 'Keys with a candidate held or rejected by the review gate.' }) pending!: number;
  @ApiProperty({ type: CoveragePercentDto, description: 'Each count as a percentage of keys, one decimal.' }) percent!: CoveragePercentDto;
}

export class CoverageViewDto {
  @ApiProperty({ type: [CoverageItemDto], description: 'One item per namespace and locale, sorted.' }) items!: CoverageItemDto[];
}
