import { LLM_CHAT_KIND } from './llm-chat.kind';
import type { ProfileKindDeclaration } from './profile-kind';

/** Every profile kind declared by a module of the platform. Add a module's kinds here. */
export const DECLARED_PROFILE_KINDS: readonly ProfileKindDeclaration[] = [LLM_CHAT_KIND];
