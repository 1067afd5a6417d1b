import { ApiProperty } from '@nestjs/swagger';

/** Model calls of one translation operation, retries included (AI translate, review, catalog fill, content translation). */
export class TranslationUsageDto {
  @ApiProperty({ example: 1, description: 'Model calls, retries included.' })
  calls!: number;

  @ApiProperty({ example: 180 })
  promptTokens!: number;

  @ApiProperty({ example: 40 })
  completionTokens!: number;

  @ApiProperty({ example: 220 })
  totalTokens!: number;

  @ApiProperty({ example: 0, description: 'USD when known here (0 when unknown or on the local provider); the usage ledger prices every call from its price table.' })
  costUsd!: number;
}
