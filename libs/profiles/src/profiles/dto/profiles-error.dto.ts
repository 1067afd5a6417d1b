import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One failing field of a 400. */
export class FieldProblemDto {
  @ApiProperty({ example: 'config.temperature' })
  field!: string;

  @ApiProperty({ type: [String], example: ['temperature must be a number'] })
  problems!: string[];
}

/** The platform's JSON error body, as the profiles routes answer it. */
export class ProfilesErrorDto {
  @ApiProperty({ example: 404 })
  statusCode!: number;

  @ApiProperty({ example: 'Not Found' })
  error!: string;

  @ApiProperty({ example: 'profile not found: llm/llm-chat/openai-prod' })
  message!: string;

  @ApiPropertyOptional({
    example: 'PROFILE_NOT_FOUND',
    description: 'Stable error code (ProfilesExceptionCode) on domain errors.',
  })
  code?: string;

  @ApiPropertyOptional({ type: [FieldProblemDto], description: 'On 400: every failing field.' })
  details?: FieldProblemDto[];
}
