import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { LOCALE_PATTERN } from '@flowplane/contracts';

// An empty locale is allowed: it means the source language (localization.md, settings rule 9).
const LOCALE_OR_EMPTY = new RegExp(`^$|${LOCALE_PATTERN.source}`);

/** Query of the public setting read. */
export class PublicSettingQueryDto {
  @ApiPropertyOptional({ description: 'Locale for a localized setting (`pl`, `pt-BR`). Absent: the request locale (`lang`, the `lang` cookie, Accept-Language, the default locale). Empty: the source language.', example: 'pl' })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_OR_EMPTY, { message: 'locale must be a locale such as en, pl or pt-BR' })
  locale?: string;

  @ApiPropertyOptional({ description: 'The `lang` parameter every public read takes (a frontend proxy forwards it); `locale` wins. Empty: the source language.', example: 'pl' })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_OR_EMPTY, { message: 'lang must be a locale such as en, pl or pt-BR' })
  lang?: string;
}

/** A public setting. */
export class PublicSettingDto {
  @ApiProperty({ example: 'site' })
  module!: string;

  @ApiProperty({ example: 'name' })
  key!: string;

  @ApiProperty({
    description:
      'The effective value (stored, else the env var, else the default). For a localized setting, one string chosen by the chain: requested locale, its base language, the source locale, then any non-empty value. Null when nothing is set.',
    nullable: true,
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array', items: {} }],
    example: 'Flowplane',
  })
  value!: unknown;

  @ApiPropertyOptional({ description: 'Localized settings: the locale the text was found under.', example: 'en' })
  locale?: string;
}
