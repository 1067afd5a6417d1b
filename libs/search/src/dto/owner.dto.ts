import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { INDEX_NAME } from '../domain/search.types';

const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export class OwnedIndexDto {
  @ApiProperty() @IsString() @Matches(INDEX_NAME, { message: 'index must be 1-64 letters, digits, "_" or "-"' }) index!: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(1) @Max(65_536) dim?: number;
  @ApiPropertyOptional({ enum: ['cosine', 'dot', 'euclid'] }) @IsOptional() @IsIn(['cosine', 'dot', 'euclid']) distance?: 'cosine' | 'dot' | 'euclid';
  @ApiPropertyOptional({ description: 'Register a reindexer for this index (default true).' }) @IsOptional() @IsBoolean() reindex?: boolean;
}

export class OwnerConsumerDto {
  @ApiProperty({ example: 'product.updated' }) @IsString() @Matches(TOPIC, { message: 'topic must be a topic name such as product.updated' }) topic!: string;
  @ApiProperty({ example: 'search-catalog-products' }) @IsString() @Matches(TOPIC, { message: 'groupId must be 1-200 letters, digits, ".", "_" or "-"' }) groupId!: string;
  @ApiProperty() @IsString() @Matches(INDEX_NAME, { message: 'index must be 1-64 letters, digits, "_" or "-"' }) index!: string;
}

/** Body of `PUT /internal/search/owners/{module}`. */
export class RegisterSearchOwnerDto {
  @ApiProperty({ description: 'Base URL of the owner document source.' })
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  sourceUrl!: string;

  @ApiPropertyOptional({ type: [String], description: "The module's events list; consumers are registered only with it, and only for topics in it." })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  events?: string[];

  @ApiProperty({ type: [OwnedIndexDto] })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => OwnedIndexDto)
  indexes!: OwnedIndexDto[];

  @ApiPropertyOptional({ type: [OwnerConsumerDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => OwnerConsumerDto)
  consumers?: OwnerConsumerDto[];
}
