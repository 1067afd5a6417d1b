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
      { key: 'base_url', type: 'string', label: 'Public base URL', description: 'Origin of the public site (https://example.com), the base of every page URL in /sitemap.xml; unset means the host the request reached.', public: true, pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$', patternHint: 'an http or https URL without query or fragment', env_var: 'SITE_BASE_URL' },
    ],
  },
  {
    module: 'assistant',
    label: 'Assistant',
    fields: [
      // Private: addresses of staff, read by flow-runtime through `$setting:` references at run time.
      { key: 'handoff_notify_to', type: 'string', label: 'Handoff notifications to', description: 'Where assistant/handoff-notification mails a handoff request; empty means site/support_email, then support@localhost.' },
      { key: 'trust_safety_to', type: 'string', label: 'Trust and safety mails to', description: 'Where the production template mails output-guard blocks; empty means site/support_email, then support@localhost.' },
    ],
  },
  {
    module: 'ai',
    label: 'AI translation',
    fields: [
      { key: 'profile', type: 'string', label: 'LLM profile', description: 'An llm-chat profile id; when set it overrides the flat provider, model and temperature.', env_var: 'AI_PROFILE' },
      { key: 'provider', type: 'string', label: 'Provider', description: 'Chat provider of translation and review when no profile is set: local (offline pseudo-localization), openai, ollama or openai-compatible.', default: 'local', env_var: 'AI_PROVIDER' },
      { key: 'model', type: 'string', label: 'Model', description: "Model of the provider; empty means the provider's default.", env_var: 'AI_MODEL' },
      { key: 'temperature', type: 'number', label: 'Temperature', description: 'Sampling temperature (0..2); empty means the provider default.', min: 0, max: 2, env_var: 'AI_TEMPERATURE' },
    ],
  },
  {
    module: 'search',
    label: 'Vector search',
    fields: [
      { key: 'default_distance', type: 'string', label: 'Default distance', description: 'Distance of an index created without one.', default: 'cosine', options: ['cosine', 'dot', 'euclid'] },
      // Refused above the query limit's default (SEARCH_MAX_LIMIT 100) rather than stored and
      // silently clamped by search; a lower SEARCH_MAX_LIMIT still caps it there.
      { key: 'default_limit', type: 'number', label: 'Default top-K', description: 'Hits of a query that gives no limit (1..100; a lower SEARCH_MAX_LIMIT caps it).', default: 10, integer: true, min: 1, max: 100 },
      { key: 'index_prefix', type: 'string', label: 'Index prefix', description: 'Stamped on every index name; indexes under another prefix are invisible until moved.', default: 'svc_', env_var: 'SEARCH_INDEX_PREFIX', pattern: '^[A-Za-z0-9_-]{0,40}$', patternHint: 'up to 40 letters, digits, "_" or "-"' },
      // The embedders the search service registers (its spec keeps this list equal to them): any
      // other value would break every text query with EMBEDDING_FAILED.
      { key: 'embedding_provider', type: 'string', label: 'Embedding provider', description: 'An embedder the search service registers: local-hash, openai-compatible, openai or ollama.', default: 'local-hash', env_var: 'SEARCH_EMBEDDING_PROVIDER', options: ['local-hash', 'openai-compatible', 'openai', 'ollama'] },
      { key: 'embedding_model', type: 'string', label: 'Embedding model', env_var: 'SEARCH_EMBEDDING_MODEL' },
    ],
  },
];
