import { DECLARED_MODULE_SETTINGS, type ModuleSettings } from '@flowplane/contracts';
import { SettingsDeclarationError, SettingsRegistry } from './settings.registry';

describe('SettingsRegistry', () => {
  it('accepts the declared module settings and finds modules and fields', () => {
    const registry = new SettingsRegistry(DECLARED_MODULE_SETTINGS);
    expect(registry.modules().map((m) => m.module)).toEqual(['llm', 'site', 'assistant', 'ai', 'search']);
    expect(registry.field('site', 'name')).toMatchObject({ localized: true, public: true });
    expect(registry.field('site', 'nope')).toBeUndefined();
    expect(registry.module('nope')).toBeUndefined();
  });

  it('refuses a field that is both sensitive and localized, naming module and key', () => {
    const bad: ModuleSettings[] = [{ module: 'mail', fields: [{ key: 'password', type: 'string', label: 'Password', sensitive: true, localized: true }] }];
    expect(() => new SettingsRegistry(bad)).toThrow(SettingsDeclarationError);
    expect(() => new SettingsRegistry(bad)).toThrow('mail/password: a field cannot be both sensitive and localized');
  });

  it('refuses constraints that cannot work: a broken pattern, bounds on a non-number, min above max', () => {
    const bad: ModuleSettings[] = [
      {
        module: 'c',
        fields: [
          { key: 'p', type: 'string', label: 'P', pattern: '([' },
          { key: 's', type: 'string', label: 'S', min: 1 },
          { key: 'n', type: 'number', label: 'N', min: 5, max: 1 },
        ],
      },
    ];
    let error: SettingsDeclarationError | undefined;
    try {
      new SettingsRegistry(bad);
    } catch (e) {
      error = e as SettingsDeclarationError;
    }
    expect(error?.problems).toEqual(['c/p: pattern "([" is not a regular expression', 'c/s: integer, min and max need type number', 'c/n: min is larger than max']);
  });

  it('lists every problem at once: duplicates, bad keys, unknown types, non-text localized fields, empty options', () => {
    const bad = [
      { module: 'a', fields: [{ key: 'x', type: 'string', label: 'X' }, { key: 'x', type: 'string', label: 'X again' }] },
      { module: 'a', fields: [] },
      { module: 'b.c', fields: [{ key: 'has.dot', type: 'string', label: 'D' }] },
      { module: 'd', fields: [{ key: 'n', type: 'integer', label: 'N' }, { key: 'count', type: 'number', label: 'C', localized: true }, { key: 'o', type: 'string', label: 'O', options: [] }] },
    ] as unknown as ModuleSettings[];
    let error: SettingsDeclarationError | undefined;
    try {
      new SettingsRegistry(bad);
    } catch (e) {
      error = e as SettingsDeclarationError;
    }
    expect(error?.problems).toEqual([
      'a/x: key is declared twice',
      'module a is declared twice',
      expect.stringContaining('module name "b.c" must match'),
      expect.stringContaining('b.c/has.dot: key must match'),
      expect.stringContaining('d/n: unknown type "integer"'),
      expect.stringContaining('d/count: a localized field must be of type string, textarea, url'),
      'd/o: options must be a non-empty list of strings',
    ]);
  });
});
