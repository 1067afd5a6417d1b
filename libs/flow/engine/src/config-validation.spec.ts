import { mergedConfigProblems, staticConfigProblems, storedTypeProblems } from './config-validation';
import type { SettingsSchema } from './node-manifest';

const schema: SettingsSchema = {
  type: 'object',
  properties: {
    profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['model'] },
    model: { type: 'string', 'x-profile-overridable': true },
    baseURL: { type: 'string', format: 'uri', 'x-profile-overridable': true },
    maxTokens: { type: 'integer', minimum: 1, default: 256 },
    mode: { type: 'string', enum: ['fast', 'careful'] },
  },
  required: ['model'],
};

describe('staticConfigProblems', () => {
  it('judges the config as the engine reads it: interpreted, defaults filled, blanks unset, unknown keys dropped', () => {
    expect(staticConfigProblems(schema, { model: 'm', maxTokens: '12', mode: '', legacy: 1 })).toEqual([]);
    expect(staticConfigProblems(schema, { model: 'm', maxTokens: 0, mode: 'slow', baseURL: 'api.example.com/v1' }).map((p) => p.path)).toEqual(['/baseURL', '/maxTokens', '/mode']);
  });

  it('does not ask for a required key while a selected profile may supply it', () => {
    expect(staticConfigProblems(schema, {}).map((p) => p.message)).toEqual(['missing required field "model"']);
    expect(staticConfigProblems(schema, { profile: 'support' })).toEqual([]);
    expect(staticConfigProblems(schema, { profile: '  ' }).map((p) => p.key)).toEqual(['model']);
  });

  it('has nothing to say without a schema', () => {
    expect(staticConfigProblems(undefined, { anything: 1 })).toEqual([]);
  });
});

describe('mergedConfigProblems', () => {
  it('asks for every required key once profiles are merged', () => {
    expect(mergedConfigProblems(schema, { profile: 'support', maxTokens: 256 }).map((p) => p.key)).toEqual(['model']);
    expect(mergedConfigProblems(schema, { profile: 'support', model: 'm', maxTokens: 256 })).toEqual([]);
  });
});

describe('storedTypeProblems', () => {
  const flags: SettingsSchema = { type: 'object', properties: { stream: { type: 'boolean', default: false }, maxTokens: { type: 'integer' } } };

  it('refuses a boolean setting spelled as a string, naming the field', () => {
    expect(storedTypeProblems(flags, { stream: 'true' })).toEqual([{ key: 'stream', path: '/stream', message: 'must be a boolean (true or false without quotes), got the string "true"' }]);
    expect(storedTypeProblems(flags, { stream: ' FALSE ' }).map((p) => p.path)).toEqual(['/stream']);
  });

  it('leaves real booleans, other settings and strings settingsProblems reports itself alone', () => {
    expect(storedTypeProblems(flags, { stream: true, maxTokens: '12' })).toEqual([]);
    expect(storedTypeProblems(flags, { stream: 'yes' })).toEqual([]);
    expect(staticConfigProblems(flags, { stream: 'yes' }).map((p) => p.path)).toEqual(['/stream']);
    expect(storedTypeProblems(undefined, { stream: 'true' })).toEqual([]);
  });
});
