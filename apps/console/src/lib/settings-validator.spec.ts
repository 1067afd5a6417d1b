import { createSettingsValidator, toErrorTree, validateValue } from './settings-validator';

const schema = {
  type: 'object',
  required: ['url', 'method'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', pattern: '^https?://', minLength: 8 },
    method: { type: 'string', enum: ['GET', 'POST'] },
    timeoutMs: { type: 'integer', minimum: 1, maximum: 60000 },
    ratio: { type: 'number', exclusiveMinimum: 0 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
  },
};

describe('settings validator without eval', () => {
  it('passes a valid config', () => {
    expect(validateValue(schema, { url: 'https://x.test', method: 'GET', timeoutMs: 10, ratio: 0.5, headers: { a: 'b' }, tags: ['x'] })).toEqual([]);
  });

  it('names each bad field with rjsf property paths', () => {
    const errors = validateValue(schema, { url: 'ftp:', timeoutMs: 1.5, ratio: 0, headers: { a: 1 }, tags: ['a', 'b', 3], other: true });
    expect(errors.map((e) => `${e.property} ${e.name}`)).toEqual([
      '.method required',
      '.url minLength',
      '.url pattern',
      '.timeoutMs type',
      '.ratio exclusiveMinimum',
      '.headers.a type',
      '.tags maxItems',
      '.tags.2 type',
      '.other additionalProperties',
    ]);
    expect(errors[0].message).toBe('is required');
    expect(errors[2].message).toBe('must match ^https?://');
  });

  it('checks enums, bounds and an empty required string', () => {
    expect(validateValue(schema, { url: '', method: 'PUT', timeoutMs: 0 }).map((e) => e.message)).toEqual(['is required', 'must have at least 8 characters', 'must match ^https?://', 'must be one of: "GET", "POST"', 'must be at least 1']);
  });

  it('builds the error tree rjsf shows beside each field', () => {
    expect(toErrorTree(validateValue(schema, { url: 'https://x.test', method: 'GET', headers: { a: 1 } }))).toEqual({ headers: { a: { __errors: ['must be string'] } } });
  });

  it('answers as rjsf ValidatorType: validateFormData, isValid, rawValidation, transformErrors', () => {
    const v = createSettingsValidator();
    const out = v.validateFormData({ method: 'GET' }, schema, undefined, (errs) => errs.map((e) => ({ ...e, message: e.message.toUpperCase() })));
    expect(out.errorSchema).toEqual({ url: { __errors: ['IS REQUIRED'] } });
    expect(v.isValid({ type: 'string' }, 'x', {})).toBe(true);
    expect(v.isValid({ type: 'string' }, 1, {})).toBe(false);
    expect(v.rawValidation({ const: 1 }, 2).errors).toHaveLength(1);
  });

  it('ignores an invalid pattern rather than failing the whole form', () => {
    expect(validateValue({ type: 'string', pattern: '(' }, 'x')).toEqual([]);
  });

  it('never builds code from a schema', () => {
    const spy = jest.spyOn(globalThis, 'Function');
    validateValue(schema, { url: 'x' });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});
