import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { NO_CONTROL_CHARS } from '../../shared/i18n-fields';
import { LOCALE_CODE_PATTERN } from '../domain/locale.entity';

/** Body of `POST /admin/i18n/locales`. */
export class CreateLocaleDto {
  @ApiProperty({ example: 'cz', description: 'How the language appears in URLs; the id of the locale.', pattern: LOCALE_CODE_PATTERN.source })
  @IsString()
  @Matches(LOCALE_CODE_PATTERN, { message: 'code must have the shape of a URL segment: letters and digits joined by "-" or "_" (cz, pt-BR)' })
  code!: string;

  @ApiPropertyOptional({ example: 'cs', description: 'BCP 47 tag; unset means the alias table, then the code.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  language?: string;

  @ApiPropertyOptional({ example: 'Čeština' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(NO_CONTROL_CHARS, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** Body of `PUT /admin/i18n/locales/{code}`: the fields it names change, the others stay. */
export class UpdateLocaleDto {
  @ApiPropertyOptional({ example: 'cs', nullable: true, description: 'BCP 47 tag; empty or null clears it (back to the alias table).' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  language?: string | null;

  @ApiPropertyOptional({ example: 'Čeština' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(NO_CONTROL_CHARS, { message: 'name must not contain control characters' })
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** A locale as the admin routes show it. */
export class LocaleViewDto {
  @ApiProperty({ example: 'cz' })
  code!: string;

  @ApiPropertyOptional({ example: 'cs', description: 'As set by an admin.' })
  language?: string;

  @ApiProperty({ example: 'cs', description: 'The BCP 47 language, never empty (rule 10).' })
  languageTag!: string;

  @ApiPropertyOptional({ example: 'Čeština' })
  name?: string;

  @ApiProperty()
  active!: boolean;

  @ApiProperty({ description: 'The configured default locale (I18N_DEFAULT_LOCALE).' })
  isDefault!: boolean;

  @ApiProperty({ description: 'The configured fallback locale (I18N_FALLBACK_LOCALE).' })
  isFallback!: boolean;

  @ApiProperty({ description: 'The source locale of inline default labels (I18N_SOURCE_LOCALE).' })
  isSource!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null when the locale was stored without it (by an older version or by hand).' })
  createdAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null when the locale was stored without it (by an older version or by hand).' })
  updatedAt!: string | null;
}

/** An active locale as frontends and sitemaps see it. */
export class PublicLocaleDto {
  @ApiProperty({ example: 'cz' })
  code!: string;

  @ApiProperty({ example: 'cs' })
  languageTag!: string;

  @ApiProperty({ example: 'Čeština' })
  name!: string;
}

/** Answer of `DELETE /admin/i18n/locales/{code}`. */
export class DeletedLocaleDto {
  @ApiProperty()
  deleted!: boolean;

  @ApiProperty()
  code!: string;
}
