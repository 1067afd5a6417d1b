import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { I18nPageQueryDto } from '../../shared/page-query.dto';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsLocaleCode, IsLocaleTextMap, IsMessageKey, IsNamespace, MAX_CONTEXT_LENGTH, MAX_KEY_LENGTH, NO_CONTROL_CHARS } from '../../shared/i18n-fields';

/** Body of `POST /admin/i18n/translations`: upsert the named locales of one key (an empty text removes one). */
export class UpsertTranslationRowDto {
  @ApiPropertyOptional({ example: '', description: 'Namespace; absent or empty is the default bucket.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiProperty({ example: 'checkout.pay' })
  @IsMessageKey()
  key!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { en: 'Pay', pl: 'Zapłać' },
    description: 'Locale to text; locales not named stay as they are, an empty text removes that locale.',
  })
  @IsOptional()
  @IsLocaleTextMap()
  translations?: Record<string, string>;

  @ApiPropertyOptional({ example: 'Button that submits the payment', description: 'Translator note; empty removes it.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CONTEXT_LENGTH)
  context?: string;
}

/** Query of `GET /admin/i18n/translations`. */
export class ListTranslationsQueryDto extends I18nPageQueryDto {
  @ApiPropertyOptional({ description: 'Namespace; absent means every namespace, empty the default one.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiPropertyOptional({ example: 'checkout.', description: 'Keys starting with this.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_KEY_LENGTH)
  @Matches(NO_CONTROL_CHARS, { message: 'prefix must not contain control characters' })
  prefix?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive text in the key, the note or any translation.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ example: 'de', description: 'Only keys without a translation in this locale.' })
  @IsOptional()
  @IsLocaleCode('missing')
  missing?: string;
}

/** A translation row: one key with every locale. */
export class TranslationRowViewDto {
  @ApiProperty({ example: '' })
  ns!: string;

  @ApiProperty({ example: 'checkout.pay' })
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { en: 'Pay', pl: 'Zapłać' } })
  translations!: Record<string, string>;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Locale to {source: machine|human|code|seed, by, at, source_hash, context_hash, review}; absent for older text.',
  })
  provenance!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Locale to a candidate held by the review gate.' })
  pending!: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Translator note.' })
  context?: string;

  @ApiProperty({ type: [String], description: 'Modules that reported the key.' })
  modules!: string[];
}

/** A page of translation rows. */
export class TranslationPageDto {
  @ApiProperty({ type: [TranslationRowViewDto] })
  items!: TranslationRowViewDto[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor!: string | null;
}
