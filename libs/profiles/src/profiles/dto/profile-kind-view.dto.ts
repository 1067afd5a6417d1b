import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_TYPES, type FieldType, type OptionSource } from '@flowplane/contracts';
import { OPTION_SOURCES } from '../kinds/kind.registry';

/** One field of a kind, after `setting_ref` inheritance. */
export class ProfileFieldViewDto {
  @ApiProperty({ example: 'providerID' })
  key!: string;

  @ApiProperty({ example: 'Provider' })
  label!: string;

  @ApiProperty({ enum: FIELD_TYPES, example: 'string' })
  type!: FieldType;

  @ApiProperty()
  required!: boolean;

  @ApiProperty({ description: 'Masked in every read, event and log.' })
  sensitive!: boolean;

  @ApiProperty({
    description: 'Node setting hint `x-profile-overridable`: a blank node value defers to the profile.',
  })
  overridable!: boolean;

  @ApiPropertyOptional({
    description:
      'Says where the kind\'s secrets are sent (provider, base URL). While a profile holds a secret, a node may not override this field, and changing it on the profile requires re-entering the secret. Present only when true.',
  })
  endpoint?: boolean;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional({
    description: 'Default value (any JSON value); masked when the field is sensitive.',
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'object' },
      { type: 'array', items: {} },
    ],
  })
  default?: unknown;

  @ApiPropertyOptional({ example: 'LLM_DEFAULT_MODEL' })
  env_var?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Allowed values: inline, inherited, or fetched live from `options_ref`.',
  })
  options?: readonly string[];

  @ApiPropertyOptional({ enum: OPTION_SOURCES, description: 'Live option source.' })
  options_ref?: OptionSource;

  @ApiPropertyOptional({
    description: 'True when the live option source could not be reached; `options` is then absent.',
  })
  optionsUnavailable?: boolean;

  @ApiPropertyOptional({ example: 'flow-runtime is unreachable' })
  optionsUnavailableReason?: string;

  @ApiPropertyOptional({
    example: 'llm/default_model',
    description: 'Module setting this field inherits from.',
  })
  setting_ref?: string;
}

/** A profile kind with its field schema. */
export class ProfileKindViewDto {
  @ApiProperty({ example: 'llm-chat' })
  id!: string;

  @ApiProperty({ example: 'llm' })
  module!: string;

  @ApiProperty({ example: 'LLM chat' })
  name!: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional({ example: 'message-square' })
  icon?: string;

  @ApiProperty({ type: [ProfileFieldViewDto] })
  fields!: ProfileFieldViewDto[];
}
