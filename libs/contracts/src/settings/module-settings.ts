import type { ModuleSettings } from './setting-field';

/**
 * Every module's setting declarations. Add a module's settings here; the profiles service refuses to
 * boot when a field is both `sensitive` and `localized`.
 */
export const DECLARED_MODULE_SETTINGS: readonly ModuleSettings[] = [
  {
    module: 'llm',
    label: 'Language models',
    fields: [
      { key: 'default_provider', type: 'string', label: 'Default provider', default: 'local', env_var: 'LLM_DEFAULT_PROVIDER' },
      { key: 'default_model', type: 'string', label: 'Default model', env_var: 'LLM_DEFAULT_MODEL' },
      { key: 'api_key', type: 'string', label: 'API key', sensitive: true, env_var: 'LLM_API_KEY' },
    ],
  },
  {
    module: 'site',
    label: 'Site',
    fields: [
      { key: 'name', type: 'string', label: 'Site name', default: 'Flowplane', public: true, localized: true },
      { key: 'support_email', type: 'string', label: 'Support e-mail', public: true, env_var: 'SITE_SUPPORT_EMAIL' },
    ],
  },
  {
    module: 'ai',
    label: 'AI translation',
    fields: [{ key: 'profile', type: 'string', label: 'LLM profile', description: 'An llm-chat profile id; when set it overrides the flat provider, model and temperature.', env_var: 'AI_PROFILE' }],
  },
];
