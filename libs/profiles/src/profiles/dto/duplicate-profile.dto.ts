import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PROFILE_ID_PATTERN } from '../domain/profile.entity';

/** Optional body of `POST /admin/profiles/{module}/{kind}/{id}/duplicate`. */
export class DuplicateProfileDto {
  @ApiPropertyOptional({
    example: 'openai-staging',
    description:
      'Id of the clone; empty or absent picks `<src>-copy`, then `<src>-copy-2`, `-3`, ... 409 when taken.',
  })
  @IsOptional()
  @IsString()
  @ValidateIf((o: DuplicateProfileDto) => o.newProfileId !== '')
  @Matches(PROFILE_ID_PATTERN, {
    message:
      'newProfileId must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  newProfileId?: string;

  @ApiPropertyOptional({
    example: 'OpenAI (staging)',
    description: 'Name of the clone; default `<source name> (copy)`.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  newName?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { model: 'gpt-4o' },
    description:
      'Values by field key applied over the cloned config, validated like an update (sensitive values are cloned as stored).',
  })
  @IsOptional()
  @IsObject()
  configPatches?: Record<string, unknown>;
}
