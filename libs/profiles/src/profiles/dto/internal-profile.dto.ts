import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A profile for another service's ProfileResolver: UNMASKED, because the caller uses the values. */
export class InternalProfileDto {
  @ApiProperty()
  module!: string;

  @ApiProperty()
  kind!: string;

  @ApiProperty()
  profileId!: string;

  @ApiProperty()
  name!: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Values by field key, sensitive ones in clear.',
  })
  config!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}
