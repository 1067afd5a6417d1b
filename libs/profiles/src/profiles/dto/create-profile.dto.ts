import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PROFILE_ID_PATTERN } from '../domain/profile.entity';

/** Body of `POST /admin/profiles`: the whole profile (create, or replace the one at that address). */
export class CreateProfileDto {
  @ApiProperty({ example: 'llm', description: 'Owner module of the kind.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  module!: string;

  @ApiProperty({ example: 'llm-chat', description: 'Kind id (see GET /admin/profiles/kinds).' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  kind!: string;

  @ApiProperty({ example: 'openai-prod', pattern: PROFILE_ID_PATTERN.source })
  @IsString()
  @Matches(PROFILE_ID_PATTERN, {
    message: 'profileId must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  profileId!: string;

  @ApiProperty({ example: 'OpenAI (production)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Shared key of the support team.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { providerID: 'openai', apiKey: 'sk-...', model: 'gpt-4o-mini', temperature: 0.2 },
    description:
      'Values by field key of the kind. The mask token (eight U+2022 bullets) on a sensitive field keeps the stored value; an empty string or null clears a field. Validated against the kind (required fields, types, options; unknown keys refused): 400 lists every failing field. Options from a live source (`options_ref`) are checked only while that source answers; when it cannot be reached the value is accepted as given.',
  })
  @IsObject()
  config!: Record<string, unknown>;
}
