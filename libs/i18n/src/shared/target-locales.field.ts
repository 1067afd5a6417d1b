import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import { LOCALE_CODE_PATTERN } from '../locales/domain/locale.entity';

/** The optional `locales` of a translation run: the locale codes to translate into (at most 100). */
export const TargetLocalesField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: [String], example: ['de', 'fr'], description: 'Locale codes; absent: every active locale but the source.' }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    Matches(LOCALE_CODE_PATTERN, { each: true, message: 'each of locales must be a locale code (pl, pt-BR)' }),
  );
