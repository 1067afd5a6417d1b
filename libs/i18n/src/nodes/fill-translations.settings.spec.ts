import { createSettingsAjv } from '@flowplane/flow/ir';
import { FILL_NODE_SETTINGS_SCHEMA, FillSettingsError, readBoolean, readFillNodeSettings, readInteger, readList } from './fill-translations.settings';

describe('fill node settings schema', () => {
  it('compiles under the strict settings ajv and has no overwrite setting (rule 8)', () => {
    const validate = createSettingsAjv().compile(FILL_NODE_SETTINGS_SCHEMA);
    expect(validate({ keys: ['a.b'], all_keys: false, mode: 'missing_and_stale', locales: ['de'], limit: 50, review: true })).toBe(true);
    expect(validate({ overwrite: true })).toBe(false);
    expect(validate({ mode: 'everything' })).toBe(false);
    expect(Object.keys(FILL_NODE_SETTINGS_SCHEMA.properties)).toEqual(FILL_NODE_SETTINGS_SCHEMA['x-ui'].order);
  });
});

describe('reading stored config by value kind (rule 7)', () => {
  it('reads a list from an array, a comma string, or an object with numeric keys', () => {
    expect(readList(['a', ' b ', '', 'a'], 'keys')).toEqual(['a', 'b']);
    expect(readList('home.title, home.cta,\nfooter', 'keys')).toEqual(['home.title', 'home.cta', 'footer']);
    expect(readList({ 1: 'second', 0: 'first', 10: 'last' }, 'keys')).toEqual(['first', 'second', 'last']);
    expect(readList([{ $numberInt: '7' }, 8], 'keys')).toEqual(['7', '8']);
    expect(readList(undefined, 'keys')).toBeUndefined();
    expect(readList(null, 'keys')).toBeUndefined();
    expect(() => readList({ a: 'x' }, 'keys')).toThrow(new FillSettingsError('keys must be a list of strings'));
    expect(() => readList([{ nested: true }], 'keys')).toThrow(FillSettingsError);
    expect(() => readList(5, 'keys')).toThrow(FillSettingsError);
  });

  it('reads a whole number from a number, a bigint, a digit string or an extended-JSON wrapper', () => {
    expect(readInteger(50, 'limit', 200, 1, 1000)).toBe(50);
    expect(readInteger('50', 'limit', 200, 1, 1000)).toBe(50);
    expect(readInteger(' 75 ', 'limit', 200, 1, 1000)).toBe(75);
    expect(readInteger(BigInt(60), 'limit', 200, 1, 1000)).toBe(60);
    expect(readInteger({ $numberInt: '40' }, 'limit', 200, 1, 1000)).toBe(40);
    expect(readInteger({ $numberLong: '41' }, 'limit', 200, 1, 1000)).toBe(41);
    expect(readInteger(new Number(42), 'limit', 200, 1, 1000)).toBe(42);
    expect(readInteger(undefined, 'limit', 200, 1, 1000)).toBe(200);
    expect(readInteger('', 'limit', 200, 1, 1000)).toBe(200);
    expect(() => readInteger('fifty', 'limit', 200, 1, 1000)).toThrow('limit must be a whole number');
    expect(() => readInteger(2.5, 'limit', 200, 1, 1000)).toThrow('limit must be a whole number');
    expect(() => readInteger(0, 'limit', 200, 1, 1000)).toThrow('limit must be between 1 and 1000');
  });

  it('reads a flag from a boolean, its text or 1/0', () => {
    expect(readBoolean(true, 'review', false)).toBe(true);
    expect(readBoolean('false', 'review', true)).toBe(false);
    expect(readBoolean('Yes', 'review', false)).toBe(true);
    expect(readBoolean(0, 'review', true)).toBe(false);
    expect(readBoolean(undefined, 'review', true)).toBe(true);
    expect(() => readBoolean('maybe', 'review', true)).toThrow('review must be true or false');
  });

  it('applies the spec defaults to an empty config', () => {
    expect(readFillNodeSettings(undefined)).toEqual({ keys: undefined, allKeys: false, mode: 'missing', locales: undefined, limit: 200, review: true });
  });

  it('reads a config stored with generic list and string number types', () => {
    expect(readFillNodeSettings({ keys: { 0: 'a', 1: 'b' }, all_keys: 'true', mode: 'missing_and_stale', locales: 'de, fr', limit: '25', review: 'false' })).toEqual({
      keys: ['a', 'b'],
      allKeys: true,
      mode: 'missing_and_stale',
      locales: ['de', 'fr'],
      limit: 25,
      review: false,
    });
    // An empty list is no list: the event's keys (or all_keys) decide.
    expect(readFillNodeSettings({ keys: [], locales: '' }).keys).toBeUndefined();
  });

  it('names the setting it cannot read', () => {
    expect(() => readFillNodeSettings({ mode: 'all' })).toThrow('mode must be one of missing, missing_and_stale');
    expect(() => readFillNodeSettings({ locales: ['de', 'not a locale!'] })).toThrow(/locales: "not a locale!"/);
    expect(() => readFillNodeSettings({ limit: 100_000 })).toThrow('limit must be between 1 and 10000');
  });
});
