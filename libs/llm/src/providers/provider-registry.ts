import type { ChatProvider } from '../chat.types';
import { LlmConfigError } from '../errors';
import { HttpTransport, type TransportOptions } from './http-transport';
import { LocalProvider, type LocalScript, type LocalTask } from './local.provider';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

/**
 * Chat providers by id: the option source `llm.providers`. Ids are what profiles and nodes put in
 * `providerID`.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, ChatProvider>();

  register(provider: ChatProvider, options: { replace?: boolean } = {}): this {
    if (!provider.id || !provider.id.trim()) throw new TypeError('a provider needs an id');
    if (this.providers.has(provider.id) && !options.replace) throw new Error(`provider ${provider.id} is already registered`);
    this.providers.set(provider.id, provider);
    return this;
  }

  get(id: string): ChatProvider | undefined {
    return this.providers.get(id);
  }

  /** The provider, or a 400-class error naming the registered ids. */
  require(id: string | undefined): ChatProvider {
    const key = (id ?? '').trim();
    const provider = key ? this.providers.get(key) : undefined;
    if (!provider) throw new LlmConfigError(key ? `unknown LLM provider ${JSON.stringify(key)}; registered: ${this.ids().join(', ')}` : `providerID is required; registered: ${this.ids().join(', ')}`);
    return provider;
  }

  ids(): string[] {
    return [...this.providers.keys()].sort();
  }
}

/** Options of `createProviderRegistry`. */
export interface ProviderRegistryOptions extends TransportOptions {
  /** Script of the `local` provider (tests). */
  localScript?: LocalScript;
  /** Structured requests the `local` provider answers offline (a service's own prompts). */
  localTasks?: readonly LocalTask[];
  /** A transport to share (its pooled connections); default one built from these options. */
  transport?: HttpTransport;
}

/**
 * The built-in providers: `local` (offline, deterministic), `openai-compatible` (any base URL),
 * and two presets of it: `openai` (base URL https://api.openai.com/v1, key required) and `ollama`
 * (base URL http://localhost:11434/v1, which the address policy refuses until `localhost` is in
 * LLM_ALLOWED_PRIVATE_HOSTS).
 */
export function createProviderRegistry(options: ProviderRegistryOptions = {}): ProviderRegistry {
  const transport = options.transport ?? new HttpTransport(options);
  return new ProviderRegistry()
    .register(new LocalProvider(options.localScript, undefined, options.localTasks))
    .register(new OpenAiCompatibleProvider(transport, { id: 'openai-compatible' }))
    .register(new OpenAiCompatibleProvider(transport, { id: 'openai', defaultBaseURL: 'https://api.openai.com/v1', defaultModel: 'gpt-4o-mini', requiresApiKey: true }))
    .register(new OpenAiCompatibleProvider(transport, { id: 'ollama', defaultBaseURL: 'http://localhost:11434/v1', defaultModel: 'llama3.2' }));
}
