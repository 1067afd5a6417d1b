import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

/** Template id convention `<module>/<slug>`. */
export const TEMPLATE_ID = /^[a-z0-9][a-z0-9-]*\/[a-z0-9][a-z0-9._-]*$/;

/** A name or description is one line: the picker renders it on one card line (no CR, LF, or Unicode line or paragraph separators). */
const ONE_LINE = /^[^\r\n\u2028\u2029\u0085]*$/;

/** A template summary (the list route carries no documents). */
export class TemplateSummaryView {
  @ApiProperty({ example: 'flow/echo' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'Owning module.' }) source!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
}

/** One template a remote module registers. */
export class RegisteredTemplateDto {
  @ApiProperty({ example: 'assistant/handoff-notification' })
  @Matches(TEMPLATE_ID, { message: 'id must look like <module>/<slug> in lowercase' })
  id!: string;

  @ApiProperty({ description: 'One line.' }) @IsString() @MaxLength(200) @Matches(ONE_LINE, { message: 'name must be one line (no line breaks)' }) name!: string;
  @ApiProperty({ description: 'One line.' }) @IsString() @MaxLength(1000) @Matches(ONE_LINE, { message: 'description must be one line (no line breaks)' }) description!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) source?: string;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) tags?: string[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'IR flow document.' }) @IsObject() document!: Record<string, unknown>;
}

/** Body of PUT /internal/templates/providers/{source}. */
export class RegisterTemplatesDto {
  @ApiProperty({ type: [RegisteredTemplateDto] })
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => RegisteredTemplateDto)
  templates!: RegisteredTemplateDto[];

  @ApiPropertyOptional({ default: 0, description: 'Higher wins on duplicate ids; bundled templates are -100.' })
  @IsOptional()
  @IsInt()
  priority?: number;
}
