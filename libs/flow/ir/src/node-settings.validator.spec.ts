import { settingsProblems } from './node-settings.validator';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['baseURL', 'model'], 'x-order': 1 },
    baseURL: { type: 'string', format: 'uri', 'x-profile-overridable': true, 'x-order': 2 },
    model: { type: 'string', 'x-profile-overridable': true },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    style: { type: 'string', enum: ['short', 'normal'] },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['model'],
  'x-ui': { order: ['profile', 'baseURL'] },
};

describe('settingsProblems', () => {
  it('accepts a config that matches, ignoring blank values and undeclared keys', () => {
    expect(settingsProblems(schema, { model: 'm', baseURL: 'https://api.example.com/v1', temperature: 0.5, style: '', stray: 42 })).toEqual([]);
  });

  it('reports every problem with its JSON pointer inside the config', () => {
    const problems = settingsProblems(schema, { baseURL: 'not a url', temperature: 7, style: 'loud', headers: { 'X-Id': 5 } });
    expect(problems).toEqual(
      expect.arrayContaining([
        { key: 'model', path: '/model', message: 'missing required field "model"' },
        { key: 'baseURL', path: '/baseURL', message: 'must match format "uri"' },
        { key: 'temperature', path: '/temperature', message: 'must be <= 2' },
        { key: 'style', path: '/style', message: 'must be one of "short", "normal"' },
        { key: 'headers', path: '/headers/X-Id', message: 'must be string' },
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('does not ask for required keys a selected profile supplies', () => {
    expect(settingsProblems(schema, { profile: 'p1' }, { profileSupplied: new Set(['model']) })).toEqual([]);
    expect(settingsProblems(schema, { profile: 'p1', model: 3 }, { profileSupplied: new Set(['model']) })).toEqual([{ key: 'model', path: '/model', message: 'must be string' }]);
  });

  it('compiles each schema once and skips schemas that do not compile', () => {
    expect(settingsProblems({ type: 'object', properties: { a: { type: 'nope' } } }, { a: 1 })).toEqual([]);
    expect(settingsProblems(undefined, { a: 1 })).toEqual([]);
    const withId = { $id: 'https://example.com/node.json', type: 'object', properties: { n: { type: 'integer' } } };
    expect(settingsProblems(withId, { n: 'x' })).toHaveLength(1);
    // The same node registered again (a new schema object, the same $id) replaces the first.
    expect(settingsProblems({ ...withId, properties: { n: { type: 'string' } } }, { n: 'x' })).toEqual([]);
  });
});
