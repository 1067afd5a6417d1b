import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** Body of `PUT /admin/profiles/{module}/{kind}/{id}`: what changes; omitted parts stay as stored. */
export class UpdateProfileDto {
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
}
