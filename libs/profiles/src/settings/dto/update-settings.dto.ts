import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';

/** Body of `PUT /admin/settings/{module}`. */
export class UpdateSettingsDto {
  @ApiProperty({
    description: [
      'Setting key to new value; keys not listed keep their value. Checked against the module\'s declarations: unknown keys, wrong types and values outside `options` are refused with 400, every failing field listed in `details`.',
      '- An empty string (or null) clears the stored value, so the env var or the default applies again.',
      '- For a sensitive field, the mask `••••••••` keeps the stored value.',
      '- Number fields accept numeric strings; boolean fields accept `"true"`/`"false"`.',
      '- Localized fields take an object mapping locale to text, merged per locale: a locale set to an empty string (or null) removes that override (the default applies), locales not listed stay. A plain string is still accepted as the source-locale text.',
    ].join('\n'),
    type: 'object',
    additionalProperties: true,
    example: { support_email: 'help@example.com', name: { en: 'Acme', pl: 'Akme', de: '' } },
  })
  @IsObject()
  values!: Record<string, unknown>;
}
