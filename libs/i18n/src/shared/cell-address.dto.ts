import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsLocaleCode, IsMessageKey, IsNamespace } from './i18n-fields';

/** One (namespace, key, locale) cell, as the bodies and queries that act on a single cell name it. */
export class CellAddressDto {
  @ApiPropertyOptional({ description: 'Namespace; absent or empty is the default bucket.', example: '' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiProperty({ example: 'checkout.pay' })
  @IsMessageKey()
  key!: string;

  @ApiProperty({ example: 'pl' })
  @IsLocaleCode()
  locale!: string;
}
