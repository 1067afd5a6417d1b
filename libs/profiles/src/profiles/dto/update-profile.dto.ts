import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * Body of `PUT /admin/profiles/{module}/{kind}/{id}`: what changes; omitted parts stay as stored.
 * The object `GET` answered may be sent back as it is: its identity fields must equal the path and
 * its read-only fields are accepted and ignored.
 */
export class UpdateProfileDto {
  @ApiPropertyOptional({ example: 'llm', description: 'Must equal the path (a profile is not moved by an update).' })
  @IsOptional()
  @IsString()
  module?: string;

  @ApiPropertyOptional({ example: 'llm-chat', description: 'Must equal the path.' })
  @IsOptional()
  @IsString()
  kind?: string;

  @ApiPropertyOptional({ example: 'openai-prod', description: 'Must equal the path (duplicate the profile to store it under another id).' })
  @IsOptional()
  @IsString()
  profileId?: string;

  @ApiPropertyOptional({ example: 'OpenAI (staging)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: 'An empty string removes the description.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { model: 'gpt-4o', apiKey: '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022' },
    description:
      'Values by field key, merged over the stored config: keys sent replace their value, omitted keys stay, an empty string or null clears a field, the mask token on a sensitive field keeps the stored value.',
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], readOnly: true, description: 'Read-only (as GET shows it); ignored.' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  secretsSet?: string[];

  @ApiPropertyOptional({ format: 'date-time', readOnly: true, description: 'Read-only; ignored.' })
  @IsOptional()
  @IsISO8601()
  createdAt?: string;

  @ApiPropertyOptional({ format: 'date-time', readOnly: true, description: 'Read-only; ignored.' })
  @IsOptional()
  @IsISO8601()
  updatedAt?: string;
}
