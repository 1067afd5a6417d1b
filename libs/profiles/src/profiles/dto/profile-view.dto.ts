import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const MASK_EXAMPLE = '\u2022'.repeat(8);

/** A profile as the admin API shows it: sensitive values masked. */
export class ProfileViewDto {
  @ApiProperty({ example: 'llm' })
  module!: string;

  @ApiProperty({ example: 'llm-chat' })
  kind!: string;

  @ApiProperty({ example: 'openai-prod' })
  profileId!: string;

  @ApiProperty({ example: 'OpenAI (production)' })
  name!: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { providerID: 'openai', apiKey: MASK_EXAMPLE, model: 'gpt-4o-mini' },
    description:
      'Values by field key; a sensitive value that is set reads as the mask token (eight U+2022 bullets).',
  })
  config!: Record<string, unknown>;

  @ApiProperty({ type: [String], example: ['apiKey'], description: 'Sensitive fields that hold a value.' })
  secretsSet!: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** Answer of `DELETE /admin/profiles/{module}/{kind}/{id}`. */
export class DeletedProfileDto {
  @ApiProperty({ example: 'llm' })
  module!: string;

  @ApiProperty({ example: 'llm-chat' })
  kind!: string;

  @ApiProperty({ example: 'openai-prod' })
  profileId!: string;

  @ApiProperty({ enum: [true] })
  deleted!: true;
}
