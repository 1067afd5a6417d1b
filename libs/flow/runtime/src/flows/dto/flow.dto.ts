import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, Min, ValidateNested } from 'class-validator';

/** Body of POST /flows. */
export class CreateFlowDto {
  @ApiPropertyOptional({ example: 'welcome-mail', description: 'Generated from the name when absent.' })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9._-]{0,127}$/, { message: 'id must be 1-128 lowercase letters, digits, dots, dashes or underscores' })
  id?: string;

  @ApiProperty({ example: 'Welcome mail' }) @IsString() @MaxLength(200) name!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2000) description?: string;
}

export class PublishVariantDto {
  @ApiProperty({ example: 'stable' }) @IsString() @MaxLength(64) label!: string;
  @ApiProperty({ example: 'welcome-mail@v2' }) @IsString() versionID!: string;
  @ApiProperty({ example: 90, description: 'Relative weight; 0 is declared and never selected.' }) @IsInt() @Min(0) weight!: number;
}

/** Body of POST /flows/{id}/publish: one version, or a weighted split. */
export class PublishFlowDto {
  @ApiPropertyOptional({ example: 'welcome-mail@v2' }) @IsOptional() @IsString() versionID?: string;

  @ApiPropertyOptional({ type: [PublishVariantDto] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => PublishVariantDto)
  variants?: PublishVariantDto[];
}

/** Body of POST /flows/{id}/rollback. */
export class RollbackFlowDto {
  @ApiPropertyOptional({ description: 'Version to publish again; default the publish before the current one.' })
  @IsOptional()
  @IsString()
  versionID?: string;
}

/** Body of PUT /internal/flows/{id}: a module's flow (IR) to create, or to upgrade when its schemaVersion rose. */
export class SeedFlowDto {
  @IsString()
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsObject()
  document!: Record<string, unknown>;
}

export class FlowView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiPropertyOptional() description?: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty() createdBy!: string;
  @ApiPropertyOptional({ description: 'Template the flow was activated from.' }) templateId?: string;
  @ApiPropertyOptional({ description: 'Current publish pointer: `{versionId}` or `{variants: [{label, versionId, weight}]}`.', type: 'object', additionalProperties: true })
  published?: Record<string, unknown>;
  @ApiPropertyOptional({ format: 'date-time' }) publishedAt?: string;
}

export class ValidationIssueView {
  @ApiProperty({ example: '/nodes/2/config/url' }) path!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ enum: ['error', 'warning'] }) severity!: string;
  @ApiProperty() code!: string;
}

export class VersionView {
  @ApiProperty({ example: 'welcome-mail@v1' }) versionId!: string;
  @ApiProperty() number!: number;
  @ApiProperty() hash!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty() createdBy!: string;
  @ApiPropertyOptional({ description: 'Owning module when a module service created the version.' }) module?: string;
  @ApiProperty({ type: [ValidationIssueView] }) warnings!: ValidationIssueView[];
}

export class PublishView {
  @ApiProperty() flowId!: string;
  @ApiProperty() seq!: number;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'null for an unpublish' }) target!: Record<string, unknown> | null;
  @ApiProperty({ enum: ['publish', 'rollback', 'unpublish', 'auto_upgrade'] }) reason!: string;
  @ApiProperty({ format: 'date-time' }) publishedAt!: string;
  @ApiProperty() publishedBy!: string;
}
