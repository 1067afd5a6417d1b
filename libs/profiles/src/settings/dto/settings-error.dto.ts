import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One failing field of a settings write. */
export class SettingsFieldProblemDto {
  @ApiProperty({ description: 'Path in the body: `values.<key>`, or `values.<key>.<locale>` for one locale of a localized field.', example: 'values.support_email' })
  field!: string;

  @ApiProperty({ type: [String], example: ['must be a string'] })
  problems!: string[];
}

/** Error body of the settings routes. */
export class SettingsErrorDto {
  @ApiProperty({ example: 404 })
  statusCode!: number;

  @ApiProperty({ example: 'Not Found' })
  error!: string;

  @ApiProperty({ example: 'no public setting site/secret' })
  message!: string;

  @ApiPropertyOptional({ enum: ['SETTINGS_MODULE_NOT_FOUND', 'SETTING_NOT_FOUND', 'SETTINGS_INVALID'] })
  code?: string;

  @ApiPropertyOptional({ type: [SettingsFieldProblemDto], description: '400 only: every failing field.' })
  details?: SettingsFieldProblemDto[];
}
