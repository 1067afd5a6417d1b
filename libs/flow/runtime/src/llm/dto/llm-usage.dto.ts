import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsISO8601, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { USAGE_GROUP_FIELDS, type UsageGroupField } from '../usage.repository';

/** Query of GET /admin/llm/usage/by. */
export class UsageByQueryDto {
  @ApiProperty({ enum: USAGE_GROUP_FIELDS, description: 'Breakdown dimension (spec rule 23): profile, provider, model, flow, node, user, assistant; also variantLabel, the deployment variant whose run made the call.' })
  @IsIn(USAGE_GROUP_FIELDS)
  field!: UsageGroupField;

  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the range (ISO 8601, inclusive); default the start of the retention window (now minus LLM_USAGE_RETENTION_DAYS).' })
  @IsOptional()
  @IsISO8601()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'End of the range (ISO 8601, exclusive); default now.' })
  @IsOptional()
  @IsISO8601()
  to?: string;
}

/** Query of GET /admin/llm/usage. */
export class UsageListQueryDto {
  @ApiPropertyOptional({ description: 'Only rows of this llm-chat profile.' }) @IsOptional() @IsString() @MaxLength(200) profileId?: string;
  @ApiPropertyOptional({ description: 'Only rows of this flow.' }) @IsOptional() @IsString() @MaxLength(200) flowId?: string;
  @ApiPropertyOptional({ description: 'Only rows of this run.' }) @IsOptional() @IsString() @MaxLength(200) runId?: string;
  @ApiPropertyOptional({ description: 'Only rows of this provider.' }) @IsOptional() @IsString() @MaxLength(200) providerId?: string;
  @ApiPropertyOptional({ description: 'Only rows of this model.' }) @IsOptional() @IsString() @MaxLength(200) model?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Start (inclusive); default start of the retention window.' }) @IsOptional() @IsISO8601() from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'End (exclusive); default now.' }) @IsOptional() @IsISO8601() to?: string;
  @ApiPropertyOptional({ description: '`nextCursor` of the previous page.' }) @IsOptional() @IsString() @MaxLength(500) cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class UsageRowView {
  @ApiProperty() usageId!: string;
  @ApiProperty({ format: 'date-time' }) recordedAt!: string;
  @ApiProperty({ example: 'openai' }) providerId!: string;
  @ApiProperty({ example: 'gpt-4o-mini' }) model!: string;
  @ApiPropertyOptional({ description: 'LLMUsage.ProfileID: the llm-chat profile, stamped after the merge.' }) profileId?: string;
  @ApiPropertyOptional() flowId?: string;
  @ApiPropertyOptional() versionId?: string;
  @ApiPropertyOptional() nodeId?: string;
  @ApiPropertyOptional() runId?: string;
  @ApiPropertyOptional() userId?: string;
  @ApiPropertyOptional() sessionId?: string;
  @ApiPropertyOptional() variantLabel?: string;
  @ApiProperty({ description: 'True when the call served the assistant.' }) assistant!: boolean;
  @ApiPropertyOptional({ enum: ['chat', 'guard', 'embedding'] }) kind?: string;
  @ApiProperty() promptTokens!: number;
  @ApiProperty() completionTokens!: number;
  @ApiProperty() totalTokens!: number;
  @ApiProperty({ description: 'Wall time of the call, retries included.' }) latencyMs!: number;
  @ApiProperty({ enum: ['provider', 'estimated'], description: 'Whether the provider reported the counts or they were counted locally.' }) usageSource!: string;
  @ApiProperty({ enum: ['ok', 'error', 'aborted'] }) status!: string;
  @ApiPropertyOptional({ example: 'LLM_TIMEOUT' }) errorCode?: string;
  @ApiProperty({ enum: ['priced', 'unpriced'], description: '`unpriced` when the price table has no entry for the provider and model: such calls are never counted as zero.' }) pricing!: string;
  @ApiPropertyOptional({ description: 'Cost of the call in `currency`; absent when unpriced.' }) cost?: number;
  @ApiPropertyOptional({ example: 'USD' }) currency?: string;
  @ApiPropertyOptional({ description: 'Service that made the call.' }) service?: string;
}

export class UsagePageView {
  @ApiProperty({ type: [UsageRowView], description: 'Newest first.' }) items!: UsageRowView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page.' }) nextCursor?: string;
}

export class UsageGroupView {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'boolean' }], nullable: true, description: 'Value of the field; null for rows without one (for example calls outside flows have no flowId).' })
  key!: string | boolean | null;
  @ApiProperty() calls!: number;
  @ApiProperty({ description: 'Calls that failed or were aborted.' }) errors!: number;
  @ApiProperty() promptTokens!: number;
  @ApiProperty() completionTokens!: number;
  @ApiProperty() totalTokens!: number;
  @ApiProperty({ description: 'Calls whose token counts were estimated.' }) estimated!: number;
  @ApiProperty({ description: 'Calls without a known price (not included in cost).' }) unpriced!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Cost of the priced calls; null when none is priced or they span currencies (see costByCurrency).' }) cost!: number | null;
  @ApiProperty({ type: String, nullable: true }) currency!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' } }) costByCurrency!: Record<string, number>;
}

export class UsageByView {
  @ApiProperty({ enum: USAGE_GROUP_FIELDS }) field!: string;
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ type: [UsageGroupView], description: 'Most calls first.' }) groups!: UsageGroupView[];
}

/** One price. */
export class PriceEntryDto {
  @ApiPropertyOptional({ example: 'openai', description: 'Provider id; absent or `*` for any provider.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  providerId?: string;

  @ApiProperty({ example: 'gpt-4o-mini*', description: 'Exact model, or a prefix ending in `*`; `*` alone matches every model.' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model!: string;

  @ApiProperty({ example: 0.15, description: 'Price per million prompt tokens.' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  inputPerMillion!: number;

  @ApiProperty({ example: 0.6, description: 'Price per million completion tokens.' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  outputPerMillion!: number;
}

/** Body of PUT /admin/llm/prices: the whole table. */
export class PutPricesDto {
  @ApiProperty({ example: 'USD', description: 'ISO 4217 code of every price in the table.' })
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as USD' })
  currency!: string;

  @ApiProperty({ type: [PriceEntryDto], description: 'The most specific entry wins: a named provider over any, an exact model over a prefix, a longer prefix over a shorter.' })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => PriceEntryDto)
  prices!: PriceEntryDto[];
}

export class PriceTableView {
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ type: [PriceEntryDto] }) prices!: PriceEntryDto[];
  @ApiProperty({ description: 'True while no table was ever saved: the built-in default (local provider free, everything else unpriced) applies.' }) isDefault!: boolean;
  @ApiPropertyOptional({ format: 'date-time' }) updatedAt?: string;
  @ApiPropertyOptional() updatedBy?: string;
}
