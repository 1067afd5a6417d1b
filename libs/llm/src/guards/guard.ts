import type { ChatMessage, ChatResult } from '../chat.types';

/** What a guard decides. */
export type GuardVerdict = 'allow' | 'flag' | 'block';
export const GUARD_VERDICTS: readonly GuardVerdict[] = ['allow', 'flag', 'block'];

/** Which side of the model a guard watches. */
export type GuardRole = 'input' | 'output';

/** A guard's decision and why. */
export interface GuardResult {
  verdict: GuardVerdict;
  /** Human-readable reasons; empty for allow. */
  reasons: string[];
}

/** One check. */
export interface GuardCheck {
  text: string;
  role: GuardRole;
  /** The guard's settings (terms, patterns, detect, action, ...), as the node or caller has them. */
  config: Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
  /** Model access for guards that ask one (`llm-classifier`); usage is recorded by the caller. */
  chat?: (messages: ChatMessage[], signal?: AbortSignal) => Promise<ChatResult>;
}

/** A registered guard (option source `guard.guards`). */
export interface Guard {
  readonly id: string;
  readonly description: string;
  /** Whether `check` needs `chat`. */
  readonly usesModel?: boolean;
  check(input: GuardCheck): Promise<GuardResult>;
}

/** Strings of a config value that should be a list (a list, or one string split at `separator`: newlines or commas). */
export function stringList(value: unknown, separator: RegExp = /[\n,]/): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(separator).map((v) => v.trim()).filter(Boolean);
  return [];
}

/** The configured action of a matching guard, or its default. */
export function actionOf(config: Readonly<Record<string, unknown>>, fallback: 'flag' | 'block'): 'flag' | 'block' {
  const a = typeof config.action === 'string' ? config.action.trim().toLowerCase() : '';
  return a === 'flag' || a === 'block' ? a : fallback;
}
