import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsLocaleCode, IsMessageKey, IsMessageText, IsNamespace, MAX_CONTEXT_LENGTH, MAX_MODULE_LENGTH, NO_CONTROL_CHARS } from '../../shared/i18n-fields';

/** Most keys in one report-keys call. */
export const MAX_REPORTED_KEYS = 500;

/** Query of `GET /i18n/messages`. */
export class CatalogQueryDto {
  @ApiPropertyOptional({ example: 'pl', description: 'Default: the request locale (lang query, lang cookie, Accept-Language), then the configured default.' })
  @IsOptional()
  @IsLocaleCode()
  locale?: string;

  @ApiPropertyOptional({ example: '', description: 'Namespace; absent or empty gives the merged catalog with the fallback chain, a namespace its raw translations.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  /** The request-locale middleware reads `lang`; accepted here so the whitelist does not refuse it. */
  @ApiPropertyOptional({ example: 'pl', description: 'Request locale (rule 4), used when `locale` is absent.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  lang?: string;
}

/** The catalog response. */
export class CatalogDto {
  @ApiProperty({ example: 'pl' })
  locale!: string;

  @ApiProperty({ example: '' })
  namespace!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'checkout.pay': 'Zapłać' } })
  messages!: Record<string, string>;
}

/** One key a frontend reports. */
export class ReportedKeyDto {
  @ApiProperty({ example: 'checkout.pay' })
  @IsMessageKey()
  key!: string;

  @ApiProperty({ example: 'Pay', description: 'Inline default text in the source locale; write-once.' })
  @IsMessageText('text')
  text!: string;

  @ApiProperty({ example: 'shop', description: 'The surface that uses the key; accumulates on the key.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_MODULE_LENGTH)
  @Matches(NO_CONTROL_CHARS, { message: 'module must not contain control characters' })
  module!: string;

  @ApiPropertyOptional({ example: 'Button that submits the payment', description: 'Translator note; upserted on new and existing keys.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CONTEXT_LENGTH)
  context?: string;
}

/** Body of `POST /i18n/report-keys`. */
export class ReportKeysDto {
  @ApiPropertyOptional({ example: '', description: 'Namespace of the keys; absent or empty is the default bucket.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiProperty({ type: [ReportedKeyDto], maxItems: MAX_REPORTED_KEYS })
  @IsArray()
  @ArrayMaxSize(MAX_REPORTED_KEYS, { message: `keys may hold at most ${MAX_REPORTED_KEYS} entries` })
  @ValidateNested({ each: true })
  @Type(() => ReportedKeyDto)
  keys!: ReportedKeyDto[];
}

/** Answer of `POST /i18n/report-keys`. */
export class ReportKeysResultDto {
  @ApiProperty({ description: 'Keys that did not exist and were stored with their text in the source locale.' })
  created!: number;

  @ApiProperty({ description: 'Keys that existed already (their text is never overwritten).' })
  existing!: number;

  @ApiProperty({ description: 'Keys whose translator note was set or changed.' })
  contextUpdated!: number;

  @ApiProperty({ description: 'Module names newly added to keys.' })
  modulesAdded!: number;
}
