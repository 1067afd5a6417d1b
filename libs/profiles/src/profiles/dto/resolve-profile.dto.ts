import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { VALUE_SOURCES, type ValueSource } from '@flowplane/contracts';

/** Body of `POST /admin/profiles/resolve`: a profile and a node config to merge over it. */
export class ResolveProfileDto {
  @ApiProperty({ example: 'llm' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  module!: string;

  @ApiProperty({ example: 'llm-chat' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  kind!: string;

  @ApiProperty({ example: 'openai-prod' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  profileId!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { model: 'gpt-4o', temperature: '' },
    description:
      "The node's own config; a key present there wins (blank values on overridable fields defer to the profile).",
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
}

/** Effective values and where each came from. */
export class ResolvedProfileDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { providerID: 'openai', apiKey: '\u2022'.repeat(8), model: 'gpt-4o', temperature: 0.2 },
    description: 'Effective values; sensitive ones masked whichever layer set them.',
  })
  values!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [...VALUE_SOURCES] },
    example: { providerID: 'profile', apiKey: 'profile', model: 'node', temperature: 'profile' },
    description:
      'Per key: node, profile, setting (a module setting of a `setting_ref` field, stored or from its env var) or default.',
  })
  sources!: Record<string, ValueSource>;
}
