import { MASK_TOKEN, type ModuleSettings } from '@flowplane/contracts';
import { SettingValueResolver } from './setting-value.resolver';
import { presentModuleSettings } from './settings.presenter';

const llm: ModuleSettings = {
  module: 'llm',
  label: 'Language models',
  fields: [
    { key: 'api_key', type: 'string', label: 'API key', sensitive: true, env_var: 'LLM_API_KEY' },
    { key: 'backup_key', type: 'string', label: 'Backup key', sensitive: true, default: 'default-secret' },
    { key: 'unset_key', type: 'string', label: 'Unset key', sensitive: true },
    { key: 'model', type: 'string', label: 'Model', description: 'Default model', options: ['a', 'b'] },
    { key: 'greeting', type: 'string', label: 'Greeting', localized: true, default: 'Hello', public: true },
  ],
};

describe('presentModuleSettings', () => {
  const resolver = new SettingValueResolver({ LLM_API_KEY: 'env-secret' });
  const view = presentModuleSettings(llm, llm.fields.map((f) => resolver.resolve('llm', f, f.key === 'greeting' ? { pl: 'Cześć' } : undefined)), 'en');

  it('masks sensitive values and defaults, and names the sensitive fields that are set', () => {
    const byKey = Object.fromEntries(view.fields.map((f) => [f.key, f]));
    expect(byKey.api_key).toMatchObject({ value: MASK_TOKEN, source: 'env', sensitive: true, env_var: 'LLM_API_KEY' });
    expect(byKey.backup_key).toMatchObject({ value: MASK_TOKEN, default: MASK_TOKEN, source: 'default' });
    expect(byKey.unset_key).toMatchObject({ value: null, source: 'unset' });
    expect(view.secretsSet).toEqual(['api_key', 'backup_key']);
    expect(JSON.stringify(view)).not.toMatch(/secret"/);
  });

  it('shows declarations and localized values as an object map with per-locale sources', () => {
    const byKey = Object.fromEntries(view.fields.map((f) => [f.key, f]));
    expect(byKey.model).toEqual({ key: 'model', type: 'string', label: 'Model', description: 'Default model', options: ['a', 'b'], public: false, sensitive: false, localized: false, value: null, source: 'unset' });
    expect(byKey.greeting).toMatchObject({ localized: true, public: true, value: { en: 'Hello', pl: 'Cześć' }, localeSources: { en: 'default', pl: 'stored' }, source: 'stored' });
    expect(view).toMatchObject({ module: 'llm', label: 'Language models', sourceLocale: 'en' });
  });
});
