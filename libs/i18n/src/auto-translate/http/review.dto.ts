import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsLocaleTextMap, IsMessageKey, IsNamespace, MAX_CONTEXT_LENGTH } from '../../shared/i18n-fields';
import { TranslationUsageDto } from '../../shared/translation-usage.dto';

/** Most keys of one `POST /admin/i18n/translations/review` (Limits). */
export const MAX_REVIEW_ITEMS = 40;

/** One key to review. */
export class ReviewItemDto {
  @ApiProperty({ example: 'checkout.pay' })
  @IsMessageKey()
  key!: string;

  @ApiPropertyOptional({ example: '', description: 'Namespace; absent or empty is the default bucket.' })
  @IsOptional()
  @IsNamespace()
  ns?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { de: 'Bezahlen' }, description: "Locale to candidate text; default the row's stored translations (the source locale excluded)." })
  @IsOptional()
  @IsObject()
  @IsLocaleTextMap()
  candidates?: Record<string, string>;

  @ApiPropertyOptional({ example: 'Button that submits the payment', description: "Translator note; default the row's stored note." })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CONTEXT_LENGTH)
  context?: string;
}

/** Body of `POST /admin/i18n/translations/review`. */
export class ReviewRequestDto {
  @ApiProperty({ type: [ReviewItemDto], minItems: 1, maxItems: MAX_REVIEW_ITEMS })
  @IsArray()
  @ArrayMinSize(1, { message: 'items must hold at least one key' })
  @ArrayMaxSize(MAX_REVIEW_ITEMS, { message: `items may hold at most ${MAX_REVIEW_ITEMS} keys` })
  @ValidateNested({ each: true })
  @Type(() => ReviewItemDto)
  items!: ReviewItemDto[];
}

/** The gate's verdict on one candidate. */
export class ReviewVerdictDto {
  @ApiProperty({ example: false })
  ok!: boolean;

  @ApiPropertyOptional({ example: 'wrong sense' })
  reason?: string;

  @ApiPropertyOptional({ example: 'Bezahlen' })
  suggestion?: string;
}

export class ReviewedKeyDto {
  @ApiProperty({ example: 'checkout.pay' })
  key!: string;

  @ApiPropertyOptional({ example: 'shop', description: 'Present for a key outside the default namespace.' })
  ns?: string;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/ReviewVerdictDto' } })
  verdicts!: Record<string, ReviewVerdictDto>;
}

/** Answer of `POST /admin/i18n/translations/review`. */
export class ReviewResultDto {
  @ApiProperty({ type: [ReviewedKeyDto] })
  items!: ReviewedKeyDto[];

  @ApiProperty({ type: TranslationUsageDto })
  usage!: TranslationUsageDto;
}
