import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { IsLocaleCode, NO_CONTROL_CHARS } from '../../shared/i18n-fields';

/** Most entries a glossary holds. */
export const MAX_GLOSSARY_ENTRIES = 500;
/** Longest glossary term. */
export const MAX_GLOSSARY_TERM = 200;
/** Longest rendering of a term. */
export const MAX_GLOSSARY_TRANSLATION = 1_000;

/** One glossary entry: a term kept verbatim, or rendered as `translation` in `locale` (every locale when absent). */
export class GlossaryEntryDto {
  @ApiProperty({ example: 'Flowplane', minLength: 1, maxLength: MAX_GLOSSARY_TERM })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_GLOSSARY_TERM)
  @Matches(NO_CONTROL_CHARS, { message: 'term must not contain control characters' })
  term!: string;

  @ApiPropertyOptional({ example: 'de', description: 'Locale the translation is for; absent: every locale.' })
  @IsOptional()
  @IsLocaleCode()
  locale?: string;

  @ApiPropertyOptional({ example: 'Arbeitsablauf', description: 'Required unless doNotTranslate is true.' })
  @ValidateIf((e: GlossaryEntryDto) => e.doNotTranslate !== true || e.translation !== undefined)
  @IsString()
  @IsNotEmpty({ message: 'translation is required unless doNotTranslate is true' })
  @MaxLength(MAX_GLOSSARY_TRANSLATION)
  translation?: string;

  @ApiPropertyOptional({ description: 'Keep the term verbatim in every translation.' })
  @IsOptional()
  @IsBoolean()
  doNotTranslate?: boolean;
}

/** Body of `PUT /admin/i18n/glossary` and answer of both glossary routes: the whole list. */
export class GlossaryDto {
  @ApiProperty({ type: [GlossaryEntryDto], maxItems: MAX_GLOSSARY_ENTRIES })
  @IsArray()
  @ArrayMaxSize(MAX_GLOSSARY_ENTRIES, { message: `entries may hold at most ${MAX_GLOSSARY_ENTRIES} entries` })
  @ValidateNested({ each: true })
  @Type(() => GlossaryEntryDto)
  entries!: GlossaryEntryDto[];
}
