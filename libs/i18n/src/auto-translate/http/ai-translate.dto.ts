import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { LOCALE_CODE_PATTERN } from '../../locales/domain/locale.entity';
import { IsLocaleCode, MAX_CONTEXT_LENGTH } from '../../shared/i18n-fields';
import { TranslationUsageDto } from '../../shared/translation-usage.dto';

/** Longest source of `POST /admin/ai/translate` (a long document goes one locale per call). */
export const MAX_AI_TRANSLATE_TEXT = 50_000;
/** Most target locales of one `POST /admin/ai/translate`. */
export const MAX_AI_TRANSLATE_LOCALES = 50;

/** Body of `POST /admin/ai/translate`. */
export class AiTranslateDto {
  @ApiProperty({ example: 'Press <b>Save</b> to keep {count} changes', maxLength: MAX_AI_TRANSLATE_TEXT, description: 'Source text: placeholders, ICU plural/select, Go-template fields and HTML tags are kept.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_AI_TRANSLATE_TEXT, { message: `text must be at most ${MAX_AI_TRANSLATE_TEXT} characters` })
  text!: string;

  @ApiPropertyOptional({ example: 'en', description: 'Locale of the text; default I18N_SOURCE_LOCALE.' })
  @IsOptional()
  @IsLocaleCode('sourceLocale')
  sourceLocale?: string;

  @ApiProperty({ type: [String], example: ['de', 'pl'], minItems: 1, maxItems: MAX_AI_TRANSLATE_LOCALES, description: 'Locale codes to translate into (language tags come from the locale registry).' })
  @IsArray()
  @ArrayMinSize(1, { message: 'locales must name at least one locale' })
  @ArrayMaxSize(MAX_AI_TRANSLATE_LOCALES, { message: `locales may name at most ${MAX_AI_TRANSLATE_LOCALES} locales` })
  @IsString({ each: true })
  @Matches(LOCALE_CODE_PATTERN, { each: true, message: 'each of locales must be a locale code: letters and digits in parts joined by "-" or "_" (pl, pt-BR)' })
  locales!: string[];

  @ApiPropertyOptional({ example: 'Button that saves the form', description: 'Translator note injected into the prompt.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CONTEXT_LENGTH)
  context?: string;

  @ApiPropertyOptional({ example: 'Save button', description: 'The field label: the note when `context` is blank.' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  label?: string;
}

/** Why a locale was left out (the caller keeps the source for it). */
export class OmittedLocaleDto {
  @ApiProperty({ example: 'de' })
  locale!: string;

  @ApiProperty({ example: 'dropped closing </b> (after one retry)' })
  reason!: string;
}

/** Answer of `POST /admin/ai/translate`: every locale asked for is in `translations` or in `omitted`. */
export class AiTranslateResultDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { de: 'Drücken Sie <b>Speichern</b>, um {count} Änderungen zu behalten' } })
  translations!: Record<string, string>;

  @ApiProperty({ type: [OmittedLocaleDto] })
  omitted!: OmittedLocaleDto[];

  @ApiProperty({ type: TranslationUsageDto })
  usage!: TranslationUsageDto;

  @ApiProperty({ example: 'local/local-echo', description: 'The provider and model that answered.' })
  by!: string;
}

