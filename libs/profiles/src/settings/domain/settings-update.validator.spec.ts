import { MASK_TOKEN, type ModuleSettings } from '@flowplane/contracts';
import { SettingValueResolver } from './setting-value.resolver';
import { SettingsUpdateValidator } from './settings-update.validator';

const mod: ModuleSettings = {
  module: 'shop',
  fields: [
    { key: 'title', type: 'string', label: 'Title', localized: true, default: 'Shop' },
    { key: 'email', type: 'string', label: 'E-mail' },
    { key: 'home', type: 'url', label: 'Home page' },
    { key: 'limit', type: 'number', label: 'Limit' },
    { key: 'open', type: 'boolean', label: 'Open' },
    { key: 'mode', type: 'string', label: 'Mode', options: ['fast', 'safe'] },
    { key: 'token', type: 'secret', label: 'Token', sensitive: true },
    { key: 'extra', type: 'json', label: 'Extra' },
  ],
};

const validator = new SettingsUpdateValidator(new SettingValueResolver({}));
const plan = (input: Record<string, unknown>, stored: Record<string, unknown> = {}) => validator.plan(mod, input, stored);

describe('SettingsUpdateValidator', () => {
  it('lists every failing field: unknown keys, types, options, locales', () => {
    const result = plan({
      nope: 1,
      email: 5,
      home: 'not a url',
      limit: 'many',
      open: 'maybe',
      mode: 'slow',
      title: { pl: 3, 'e.x': 'Sklep', en: 'Shop!' },
    });
    expect(result.problems).toEqual([
      { field: 'values.nope', problems: ['is not a setting of module shop'] },
      { field: 'values.email', problems: ['must be a string'] },
      { field: 'values.home', problems: ['must be an absolute URL'] },
      { field: 'values.limit', problems: ['must be a number'] },
      { field: 'values.open', problems: ['must be a boolean'] },
      { field: 'values.mode', problems: ['must be one of: fast, safe'] },
      { field: 'values.title.pl', problems: ['must be a string'] },
      { field: 'values.title.e.x', problems: ['is not a locale (for example en, pl or pt-BR)'] },
    ]);
    expect(result.writes.size).toBe(0);
  });

  it('holds values to the declared pattern, whole-number and bounds constraints', () => {
    const bounded: ModuleSettings = {
      module: 'idx',
      fields: [
        { key: 'prefix', type: 'string', label: 'Prefix', pattern: '^[a-z_]{0,4}$', patternHint: 'up to 4 of a-z or "_"' },
        { key: 'raw', type: 'string', label: 'Raw', pattern: '^x+$' },
        { key: 'top', type: 'number', label: 'Top', integer: true, min: 1, max: 100 },
      ],
    };
    const check = (input: Record<string, unknown>) => validator.plan(bounded, input, {});
    expect(check({ prefix: 'has.dot!', raw: 'y', top: 2.5 }).problems).toEqual([
      { field: 'values.prefix', problems: ['must be up to 4 of a-z or "_"'] },
      { field: 'values.raw', problems: ['must match ^x+$'] },
      { field: 'values.top', problems: ['must be a whole number'] },
    ]);
    expect(check({ top: 0 }).problems).toEqual([{ field: 'values.top', problems: ['must be at least 1'] }]);
    expect(check({ top: '101' }).problems).toEqual([{ field: 'values.top', problems: ['must be at most 100'] }]);
    const ok = check({ prefix: 'ab_', raw: 'xx', top: '100' });
    expect(ok.problems).toEqual([]);
    expect(Object.fromEntries(ok.writes)).toEqual({ prefix: 'ab_', raw: 'xx', top: 100 });
    // Clearing is always allowed: the environment or the default applies again.
    expect(validator.plan(bounded, { prefix: '', top: null }, { prefix: 'ab', top: 5 }).problems).toEqual([]);
  });

  it('refuses a list for a localized field', () => {
    expect(plan({ title: [{ locale: 'en', value: 'x' }] }).problems).toEqual([{ field: 'values.title', problems: ['must be a string or an object mapping locale to string'] }]);
  });

  it('converts numeric and boolean strings and keeps valid values', () => {
    const result = plan({ limit: '12.5', open: 'false', mode: 'safe', home: 'https://example.com/x', extra: { $weird: { 'a.b': 1 } } });
    expect(result.problems).toEqual([]);
    expect(Object.fromEntries(result.writes)).toEqual({ limit: 12.5, open: false, mode: 'safe', home: 'https://example.com/x', extra: { $weird: { 'a.b': 1 } } });
  });

  it('keeps a sensitive stored value when the mask comes back, clears it on empty', () => {
    expect(plan({ token: MASK_TOKEN }, { token: 's3cret' }).writes.size).toBe(0);
    expect(Object.fromEntries(plan({ token: 'n3w' }, { token: 's3cret' }).writes)).toEqual({ token: 'n3w' });
    const cleared = plan({ token: '' }, { token: 's3cret' }).writes;
    expect(cleared.has('token')).toBe(true);
    expect(cleared.get('token')).toBeUndefined();
  });

  it('the mask is an ordinary string for a field that is not sensitive', () => {
    expect(Object.fromEntries(plan({ email: MASK_TOKEN }).writes)).toEqual({ email: MASK_TOKEN });
  });

  it('clears with an empty string or null, and writes nothing when nothing changes', () => {
    expect(plan({ email: null }, { email: 'a@b.c' }).writes.has('email')).toBe(true);
    expect(plan({ email: '' }).writes.size).toBe(0);
    expect(plan({ email: 'a@b.c', limit: 3 }, { email: 'a@b.c', limit: 3 }).writes.size).toBe(0);
  });

  it('merges localized values per locale; an empty locale removes that override', () => {
    const stored = { title: { en: 'Shop', pl: 'Sklep', de: 'Laden' } };
    expect(plan({ title: { pl: '', fr: 'Boutique' } }, stored).writes.get('title')).toEqual({ en: 'Shop', de: 'Laden', fr: 'Boutique' });
    expect(plan({ title: { de: null } }, stored).writes.get('title')).toEqual({ en: 'Shop', pl: 'Sklep' });
  });

  it('takes a plain string for a localized field as the source-locale text, over a legacy plain stored value too', () => {
    expect(plan({ title: 'Store' }, { title: { pl: 'Sklep' } }).writes.get('title')).toEqual({ pl: 'Sklep', en: 'Store' });
    expect(plan({ title: { pl: 'Sklep' } }, { title: 'Legacy' }).writes.get('title')).toEqual({ en: 'Legacy', pl: 'Sklep' });
  });

  it('removes the stored localized value when its last override is removed, or on an empty string', () => {
    const last = plan({ title: { pl: '' } }, { title: { pl: 'Sklep' } }).writes;
    expect(last.has('title') && last.get('title') === undefined).toBe(true);
    const all = plan({ title: '' }, { title: { pl: 'Sklep', en: 'Shop' } }).writes;
    expect(all.has('title') && all.get('title') === undefined).toBe(true);
  });
});
