import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { INDEX_NAME } from '../domain/search.types';

/** A document id: a non-empty string (at most 512 characters) or a non-negative integer. */
function IsDocumentId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDocumentId',
      validator: {
        validate: (v: unknown) =>
          (typeof v === 'string' && v.length > 0 && v.length <= 512) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0),
        defaultMessage: () => '$property must be a non-empty string (at most 512 characters) or a non-negative integer',
      },
    },
    options,
  );
}

const ID_DOC =
  'Document id. Unsigned-integer strings are stored as integer point ids, UUIDs as they are, any other string as its UUIDv5 ' +
  '(namespace 6f0c1f8e-3a57-4d2b-9a64-0c6de6b1f1a2) with the original kept in `payload._id`; hits always return the original id.';

export class SearchDocumentDto {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }], description: ID_DOC, example: 'faq-42' })
  @IsDocumentId()
  id!: string | number;

  @ApiPropertyOptional({ description: 'Text to embed with the configured embedder. Exactly one of text or vector.' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  text?: string;

  @ApiPropertyOptional({ type: [Number], description: 'The vector itself; its length must equal the index dimension.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(65_536)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  vector?: number[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'JSON payload returned with hits; the key `_id` is reserved.' })
  @IsOptional()
  @IsObject()
  payload?: Record<string, unknown>;
}

export class UpsertDocumentsDto {
  @ApiProperty({ type: [SearchDocumentDto], description: 'At most SEARCH_MAX_BATCH (default 1000) documents; text documents are embedded in one call.' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SearchDocumentDto)
  documents!: SearchDocumentDto[];
}

export class DeleteDocumentsDto {
  @ApiProperty({ type: [String], description: 'Document ids as given on upsert; unknown ids are ignored.' })
  @IsArray()
  @IsDocumentId({ each: true })
  ids!: Array<string | number>;
}

export class SearchQueryDto {
  @ApiPropertyOptional({ description: 'Query text, embedded with the configured embedder. Exactly one of text or vector.' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  text?: string;

  @ApiPropertyOptional({ type: [Number] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(65_536)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  vector?: number[];

  @ApiPropertyOptional({ description: 'Top-K; default `search.default_limit` (10), capped at SEARCH_MAX_LIMIT (100).', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  limit?: number;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Exact-match shortcut: every key (dotted for nested fields) must equal its string, number or boolean value.', example: { lang: 'en' } })
  @IsOptional()
  @IsObject()
  payload?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Qdrant filter, forwarded as is: `must`, `should`, `must_not`, `min_should` with `{key, match: {value|any|except}}`, `{key, range: {gt,gte,lt,lte}}`, `{key, geo_radius: {center: {lon, lat}, radius}}` (metres; the payload field holds `{lon, lat}` points), `is_empty`, `is_null`, `has_id` (document ids, as upserted), `nested`. The embedded backend evaluates the same clauses and answers 400 naming any other (full-text, geo bounding box and polygon, values_count, datetime ranges). Any other top-level key is a 400 naming it on both backends (exact matches go in `payload`).',
    example: { must: [{ key: 'year', range: { gte: 2020 } }], must_not: [{ key: 'draft', match: { value: true } }] },
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

export class CreateIndexDto {
  @ApiProperty({ example: 'faq', description: 'Logical name: 1-64 letters, digits, "_" or "-"; stored as `<prefix><name>`.' })
  @IsString()
  @Matches(INDEX_NAME, { message: 'name must be 1-64 letters, digits, "_" or "-", starting with a letter, digit or "_"' })
  name!: string;

  @ApiProperty({ example: 768, minimum: 1, maximum: 65536 })
  @IsInt()
  @Min(1)
  @Max(65_536)
  dim!: number;

  @ApiPropertyOptional({ enum: ['cosine', 'dot', 'euclid'], description: 'Default `search.default_distance` (cosine).' })
  @IsOptional()
  @IsIn(['cosine', 'dot', 'euclid'])
  distance?: 'cosine' | 'dot' | 'euclid';
}

export class SearchIndexViewDto {
  @ApiProperty() name!: string;
  @ApiProperty() dim!: number;
  @ApiProperty({ enum: ['cosine', 'dot', 'euclid'] }) distance!: string;
  @ApiProperty({ description: 'Points stored.' }) points!: number;
}

export class CreatedIndexViewDto extends SearchIndexViewDto {
  @ApiProperty({ description: 'False when the index already existed with the same parameters (then 200, else 201).' }) created!: boolean;
}

export class IndexListDto {
  @ApiProperty({ type: [SearchIndexViewDto], description: 'Indexes under the current prefix, prefix stripped.' }) indexes!: SearchIndexViewDto[];
}

export class SearchHitDto {
  @ApiProperty({ description: 'The document id as given on upsert.' }) id!: string;
  @ApiProperty({ description: 'cosine: similarity (higher is better); dot: dot product; euclid: distance (lower is better). Hits are best first.' }) score!: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload!: Record<string, unknown>;
}

export class SearchResultDto {
  @ApiProperty() index!: string;
  @ApiProperty({ type: [SearchHitDto] }) hits!: SearchHitDto[];
  @ApiProperty({ description: 'The limit applied.' }) limit!: number;
  @ApiProperty({ description: 'True when fewer than `limit` points matched (the filter or the index has nothing more).' }) exhausted!: boolean;
}

export class SearchStatusDto {
  @ApiProperty({ enum: ['embedded', 'vectordb'] }) backend!: string;
  @ApiProperty({ description: 'Current index prefix (search.index_prefix).' }) prefix!: string;
  @ApiProperty() embeddingProvider!: string;
  @ApiProperty() embeddingModel!: string;
  @ApiProperty() embeddingDimension!: number;
  @ApiProperty({ enum: ['cosine', 'dot', 'euclid'] }) defaultDistance!: string;
  @ApiProperty() defaultLimit!: number;
  @ApiProperty() maxLimit!: number;
}

export class UpsertResultDto {
  @ApiProperty() index!: string;
  @ApiProperty() upserted!: number;
  @ApiProperty({ description: 'How many of them were embedded from text.' }) embedded!: number;
}

export class DeleteResultDto {
  @ApiProperty() index!: string;
  @ApiProperty({ description: 'Ids processed (unknown ids are ignored).' }) requested!: number;
}

export class ReindexResultDto {
  @ApiProperty() index!: string;
  @ApiProperty({ description: 'Documents re-embedded and upserted.' }) documents!: number;
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({ nullable: true, type: Number, description: 'Stale points removed: those of the old generation whose id the owner no longer lists (dropped with it at the switch), plus any PruneStale removed after the switch; null when counting or PruneStale failed (logged; the rebuild stands).' }) pruned!: number | null;
}

export class ReindexableEntryDto {
  @ApiProperty() index!: string;
  @ApiProperty() module!: string;
}

export class EntitiesDto {
  @ApiProperty({ type: [String], description: 'Index names with a registered owner (POST .../reindex works for them).' }) reindexable!: string[];
  @ApiProperty({ type: [ReindexableEntryDto] }) owners!: ReindexableEntryDto[];
}
