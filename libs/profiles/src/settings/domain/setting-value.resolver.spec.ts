import type { SettingField } from '@flowplane/contracts';
import { SettingValueResolver, sourceLocaleFrom } from './setting-value.resolver';

const email: SettingField = { key: 'support_email', type: 'string', label: 'E-mail', default: 'hello@example.com', env_var: 'SUPPORT_EMAIL' };
const siteName: SettingField = { key: 'name', type: 'string', label: 'Name', default: 'Flowplane', localized: true, env_var: 'SITE_NAME' };

describe('SettingValueResolver: plain fields', () => {
  it('takes the stored value first, then the env var, then the default', () => {
    const withEnv = new SettingValueResolver({ SUPPORT_EMAIL: 'env@example.com' });
    expect(withEnv.resolve('site', email, 'stored@example.com')).toMatchObject({ value: 'stored@example.com', source: 'stored' });
    expect(withEnv.resolve('site', email, undefined)).toMatchObject({ value: 'env@example.com', source: 'env' });
    const noEnv = new SettingValueResolver({});
    expect(noEnv.resolve('site', email, undefined)).toMatchObject({ value: 'hello@example.com', source: 'default' });
    expect(noEnv.resolve('site', { ...email, default: undefined }, undefined)).toMatchObject({ value: undefined, source: 'unset' });
  });

  it('treats an empty stored value or an empty env var as unset', () => {
    const r = new SettingValueResolver({ SUPPORT_EMAIL: '' });
    expect(r.resolve('site', email, '')).toMatchObject({ value: 'hello@example.com', source: 'default' });
  });

  it('coerces env values to the field type when they parse', () => {
    const r = new SettingValueResolver({ N: ' 0.7 ', B: 'yes', J: '{"a":[1]}', BAD: 'seven' });
    expect(r.resolve('m', { key: 'n', type: 'number', label: 'n', env_var: 'N' }, undefined).value).toBe(0.7);
    expect(r.resolve('m', { key: 'b', type: 'boolean', label: 'b', env_var: 'B' }, undefined).value).toBe(true);
    expect(r.resolve('m', { key: 'j', type: 'json', label: 'j', env_var: 'J' }, undefined).value).toEqual({ a: [1] });
    expect(r.resolve('m', { key: 'x', type: 'number', label: 'x', env_var: 'BAD' }, undefined).value).toBe('seven');
  });

  it('stores typed values as they are (false and 0 are values, not unset)', () => {
    const r = new SettingValueResolver({});
    expect(r.resolve('m', { key: 'b', type: 'boolean', label: 'b', default: true }, false)).toMatchObject({ value: false, source: 'stored' });
    expect(r.resolve('m', { key: 'n', type: 'number', label: 'n', default: 5 }, 0)).toMatchObject({ value: 0, source: 'stored' });
  });
});

describe('SettingValueResolver: localized fields', () => {
  it('overlays stored per-locale overrides on the default text of the source locale', () => {
    const r = new SettingValueResolver({});
    expect(r.resolve('site', siteName, { pl: 'Akme' })).toMatchObject({
      value: { en: 'Flowplane', pl: 'Akme' },
      source: 'stored',
      localeSources: { en: 'default', pl: 'stored' },
    });
    expect(r.resolve('site', siteName, { en: 'Acme' })).toMatchObject({ value: { en: 'Acme' }, localeSources: { en: 'stored' } });
  });

  it('uses the env var as the source-locale text before the default', () => {
    const r = new SettingValueResolver({ SITE_NAME: 'From env', I18N_SOURCE_LOCALE: 'pl' });
    expect(r.resolve('site', siteName, undefined)).toMatchObject({ value: { pl: 'From env' }, source: 'env', localeSources: { pl: 'env' } });
  });

  it('takes a stored plain string as source-locale text (no migration when a field becomes localized)', () => {
    const r = new SettingValueResolver({});
    expect(r.resolve('site', siteName, 'Legacy name')).toMatchObject({ value: { en: 'Legacy name' }, source: 'stored' });
  });

  it('ignores empty per-locale values and reports unset when nothing is left', () => {
    const r = new SettingValueResolver({});
    const noDefault = { ...siteName, default: undefined, env_var: undefined };
    expect(r.resolve('site', noDefault, { pl: '' })).toMatchObject({ value: {}, source: 'unset', localeSources: {} });
  });

  it('accepts a locale map as the declared default', () => {
    const r = new SettingValueResolver({});
    expect(r.resolve('site', { ...siteName, default: { en: 'Shop', de: 'Laden' } }, { de: 'Geschäft' })).toMatchObject({
      value: { en: 'Shop', de: 'Geschäft' },
      localeSources: { en: 'default', de: 'stored' },
    });
  });
});

describe('source locale', () => {
  it('is I18N_SOURCE_LOCALE, else I18N_FALLBACK_LOCALE, else en', () => {
    expect(sourceLocaleFrom({ I18N_SOURCE_LOCALE: 'de', I18N_FALLBACK_LOCALE: 'fr' })).toBe('de');
    expect(sourceLocaleFrom({ I18N_FALLBACK_LOCALE: 'fr' })).toBe('fr');
    expect(sourceLocaleFrom({})).toBe('en');
  });
});
