import type { ProfileKindDeclaration } from './profile-kind';

/** The bundled kind `llm-chat`, owned by the LLM module (spec: "Profile kind and profile"). */
export const LLM_CHAT_KIND: ProfileKindDeclaration = {
  id: 'llm-chat',
  module: 'llm',
  name: 'LLM chat',
  description: 'Provider, credentials, model and tuning for the svc/llm-chat node and other model calls.',
  icon: 'message-square',
  fields: [
    { key: 'providerID', label: 'Provider', type: 'string', required: true, options_ref: 'llm.providers', endpoint: true },
    { key: 'apiKey', label: 'API key', type: 'string', sensitive: true },
    { key: 'baseURL', label: 'Base URL', type: 'url', description: 'OpenAI-compatible endpoint, for example http://localhost:11434/v1 for Ollama.', endpoint: true },
    { key: 'model', label: 'Model', type: 'string', overridable: true },
    { key: 'temperature', label: 'Temperature', type: 'number', overridable: true },
    { key: 'systemPrompt', label: 'System prompt', type: 'textarea', overridable: true },
    { key: 'maxTokens', label: 'Max tokens', type: 'number', overridable: true },
    { key: 'replyStyle', label: 'Reply style', type: 'string', options: ['short', 'normal', 'detailed'], overridable: true },
    { key: 'examplesPolicy', label: 'Examples policy', type: 'string', options: ['avoid', 'when_asked', 'always'], overridable: true },
  ],
};
