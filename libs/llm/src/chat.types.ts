/** The shapes every chat provider speaks, independent of its wire format. */

/** Roles of a chat message. */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

/** One message of a conversation. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Where the token counts of a call came from. */
export type UsageSource = 'provider' | 'estimated';

/** Token counts of one call. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** `provider` when the provider reported the counts, `estimated` when they were counted locally. */
  source: UsageSource;
}

/** Settings of one chat call, after profile and node config are merged. */
export interface ChatSettings {
  /** Registered provider id (`local`, `openai`, `openai-compatible`, `ollama`, ...). */
  providerID: string;
  model?: string;
  baseURL?: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
}

/** One chat call. */
export interface ChatRequest {
  settings: ChatSettings;
  messages: ChatMessage[];
  /** Aborts the call (run cancelled, step timed out). */
  signal?: AbortSignal;
  /**
   * Streams the reply: called with each chunk as it arrives. Without it the provider may still
   * stream internally; the result is the same.
   */
  onToken?: (chunk: string) => void;
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'unknown';

/** The outcome of a chat call. */
export interface ChatResult {
  content: string;
  /** The model that answered (the provider's name for it when it says). */
  model: string;
  finishReason: FinishReason;
  usage: TokenUsage;
  /** Wall time of the call, retries included, in ms. */
  latencyMs: number;
  /** How many attempts the call took (1 without retries). */
  attempts: number;
}

/** A chat provider: `local`, `openai-compatible`, and presets of it. */
export interface ChatProvider {
  /** Registry id, the value of `providerID`. */
  readonly id: string;
  /** Model used when the settings name none. */
  readonly defaultModel?: string;
  chat(request: ChatRequest): Promise<ChatResult>;
}
