import { createSettingsAjv, SETTINGS_SCHEMA_DIALECT } from './settings-schema.ajv';

describe('createSettingsAjv', () => {
  const schema = {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['baseURL'], 'x-order': 1 },
      baseURL: { type: 'string', format: 'uri', 'x-profile-overridable': true, 'x-order': 2 },
    },
    'x-ui': { order: ['profile', 'baseURL'] },
  };

  it('compiles a settings schema with the x- hints in strict mode and checks formats', () => {
    const validate = createSettingsAjv().compile(schema);
    expect(validate({ profile: 'p', baseURL: 'https://api.example.com/v1' })).toBe(true);
    expect(validate({ baseURL: 'not a url' })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/baseURL', keyword: 'format' });
  });

  it('refuses an unknown keyword and a malformed hint', () => {
    expect(() => createSettingsAjv().compile({ type: 'object', 'x-unknown': 1 })).toThrow(/unknown keyword/);
    expect(() => createSettingsAjv().compile({ type: 'object', properties: { a: { type: 'string', 'x-order': 'first' } } })).toThrow(/"x-order" value is invalid/);
    expect(() => createSettingsAjv().compile({ type: 'object', 'x-ui': { order: 'a' } })).toThrow(/"x-ui" value is invalid/);
  });

  it('accepts unknown keywords when relaxed for third-party schemas', () => {
    expect(() => createSettingsAjv({ strict: false }).compile({ type: 'object', 'x-vendor': 1 })).not.toThrow();
  });
});
