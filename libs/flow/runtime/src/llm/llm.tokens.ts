import type { NodeDefinition } from '@flowplane/flow/engine';
import type { GuardRegistry, ProviderRegistry } from '@flowplane/llm';

/** Nest token of the flow-runtime's LLM runtime (provider and guard registries, the two nodes). */
export const LLM_RUNTIME = Symbol('LLM_RUNTIME');

/** What LLM_RUNTIME provides. */
export interface LlmRuntime {
  /** Option source `llm.providers`; tests may register scripted providers here. */
  readonly providers: ProviderRegistry;
  /** Option source `guard.guards`. */
  readonly guards: GuardRegistry;
  /** `svc/llm-chat` and `svc/guard`, registered with the built-in nodes. */
  readonly nodes: NodeDefinition[];
  /** AI_CALL_TIMEOUT in ms (0: unbounded). */
  readonly callTimeoutMs: number;
  close(): Promise<void>;
}
