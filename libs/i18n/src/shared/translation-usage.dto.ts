import { ApiProperty } from '@nestjs/swagger';

/** Model calls of one translation run, retries included (catalog fill and content translation). */
export class TranslationUsageDto {
  @ApiProperty({ description: 'Model calls, retries included.' })
  calls!: number;

  @ApiProperty()
  promptTokens!: number;

  @ApiProperty()
  completionTokens!: number;

  @ApiProperty()
  totalTokens!: number;

  @ApiProperty({ description: 'USD; 0 when unknown or on the local provider.' })
  costUsd!: number;
}
