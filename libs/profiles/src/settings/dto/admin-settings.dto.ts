import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_TYPES } from '@flowplane/contracts';

const SOURCES = ['stored', 'env', 'default', 'unset'];

/** One setting field as an admin sees it. */
export class AdminSettingFieldDto {
  @ApiProperty({ example: 'name' })
  key!: string;

  @ApiProperty({ enum: FIELD_TYPES })
  type!: string;

  @ApiProperty({ example: 'Site name' })
  label!: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional({ description: 'Declared default; masked for sensitive fields.', oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array', items: {} }] })
  default?: unknown;

  @ApiPropertyOptional({ description: 'Environment variable used when no value is stored.', example: 'SITE_SUPPORT_EMAIL' })
  env_var?: string;

  @ApiPropertyOptional({ type: [String], description: 'Allowed values.' })
  options?: readonly string[];

  @ApiProperty({ description: 'Readable without a token through GET /settings/{module}/{key}.' })
  public!: boolean;

  @ApiProperty({ description: 'The value is masked in every read.' })
  sensitive!: boolean;

  @ApiProperty({ description: 'One value per locale; the value is an object map locale to text.' })
  localized!: boolean;

  @ApiProperty({
    description:
      'Effective value: stored, else the env var, else the default. Sensitive fields show the mask `••••••••` when set. Localized fields show an object map locale to text (stored overrides over the env or default text of the source locale), never a list. Null when a plain field is unset.',
    nullable: true,
    anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: { type: 'string' } }, { type: 'object' }, { type: 'array', items: {} }],
    example: { en: 'Acme', pl: 'Akme' },
  })
  value!: unknown;

  @ApiProperty({ enum: SOURCES, description: 'Where the value came from (for a localized field: `stored` when any locale is overridden).' })
  source!: string;

  @ApiPropertyOptional({
    description: 'Localized fields: where each locale\'s text came from (`stored` marks an override; clearing it brings back the env or default text).',
    type: 'object',
    additionalProperties: { type: 'string', enum: ['stored', 'env', 'default'] },
    example: { en: 'default', pl: 'stored' },
  })
  localeSources?: Record<string, string>;
}

/** A module's settings as an admin sees them. */
export class AdminModuleSettingsDto {
  @ApiProperty({ example: 'site' })
  module!: string;

  @ApiPropertyOptional({ example: 'Site' })
  label?: string;

  @ApiProperty({ description: 'The locale a plain string for a localized field is taken as (I18N_SOURCE_LOCALE).', example: 'en' })
  sourceLocale!: string;

  @ApiProperty({ type: [AdminSettingFieldDto] })
  fields!: AdminSettingFieldDto[];

  @ApiProperty({ type: [String], description: 'Sensitive fields that have a value (stored, env or default).', example: ['api_key'] })
  secretsSet!: string[];
}

/** A module that declares settings. */
export class SettingsModuleSummaryDto {
  @ApiProperty({ example: 'site' })
  module!: string;

  @ApiPropertyOptional({ example: 'Site' })
  label?: string;

  @ApiProperty({ type: [String], example: ['name', 'support_email'] })
  keys!: string[];
}

/** The modules that declare settings. */
export class SettingsModuleListDto {
  @ApiProperty({ type: [SettingsModuleSummaryDto] })
  modules!: SettingsModuleSummaryDto[];
}
