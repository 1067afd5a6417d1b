import type { ModuleSettings, ProfileKindDeclaration } from '@flowplane/contracts';

/** Module settings the test kind inherits from. */
export const TEST_SETTINGS: ModuleSettings[] = [
  {
    module: 'llm',
    fields: [
      {
        key: 'default_model',
        type: 'string',
        label: 'Default model',
        description: 'Model when a profile names none.',
        default: 'llama3',
        env_var: 'LLM_DEFAULT_MODEL',
      },
      { key: 'api_key', type: 'string', label: 'API key', sensitive: true, env_var: 'LLM_API_KEY' },
      { key: 'style', type: 'string', label: 'Style', options: ['short', 'long'], default: 'short' },
      { key: 'retries', type: 'number', label: 'Retries', default: 2 },
    ],
  },
];

/** A kind exercising every field attribute. */
export const TEST_KIND: ProfileKindDeclaration = {
  id: 'test-kind',
  module: 'test',
  name: 'Test kind',
  fields: [
    { key: 'endpoint', type: 'url', required: true },
    { key: 'token', sensitive: true },
    { key: 'enabled', type: 'boolean' },
    { key: 'limit', type: 'number' },
    { key: 'mode', options: ['a', 'b'] },
    { key: 'extra', type: 'json' },
    { key: 'model', setting_ref: 'llm/default_model', overridable: true },
    { key: 'apiKey', setting_ref: 'llm.api_key' },
    { key: 'style', setting_ref: 'llm/style', label: 'Reply style', default: 'long' },
    { key: 'retries', setting_ref: 'llm/retries' },
    { key: 'provider', options_ref: 'llm.providers' },
    { key: 'guard', options_ref: 'guard.guards', options: ['inline-guard'] },
  ],
};
