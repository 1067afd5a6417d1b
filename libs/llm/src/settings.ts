import { assertSecretEndpointKept, LLM_CHAT_KIND } from '@flowplane/contracts';
import type { ChatMessage, ChatSettings } from './chat.types';
import { LlmConfigError } from './errors';
import { DEFAULT_CALL_TIMEOUT_MS } from './providers/http-transport';

/** Reply length directive of the llm-chat node (spec "LLM chat node tuning"). */
export type ReplyStyle = 'short' | 'normal' | 'detailed';
export const REPLY_STYLES: readonly ReplyStyle[] = ['short', 'normal', 'detailed'];
/** Examples directive of the llm-chat node. */
export type ExamplesPolicy = 'avoid' | 'when_asked' | 'always';
export const EXAMPLES_POLICIES: readonly ExamplesPolicy[] = ['avoid', 'when_asked', 'always'];

// The bundled llm-chat profile kind lists other option names for the same two settings; a
// profile can only store those, so they are read as their spec equivalents.
const STYLE_ALIASES: Record<string, ReplyStyle> = { concise: 'short', balanced: 'normal' };
const EXAMPLES_ALIASES: Record<string, ExamplesPolicy> = { none: 'avoid', inline: 'always', retrieved: 'when_asked' };

/** A reply style from a config value; blank or unknown is the neutral `normal`. */
export function replyStyleOf(value: unknown): ReplyStyle {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return (REPLY_STYLES as readonly string[]).includes(v) ? (v as ReplyStyle) : (STYLE_ALIASES[v] ?? 'normal');
}

/** An examples policy from a config value; blank or unknown is the neutral `when_asked`. */
export function examplesPolicyOf(value: unknown): ExamplesPolicy {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return (EXAMPLES_POLICIES as readonly string[]).includes(v) ? (v as ExamplesPolicy) : (EXAMPLES_ALIASES[v] ?? 'when_asked');
}

const STYLE_DIRECTIVES: Record<ReplyStyle, string | undefined> = {
  short: 'Keep your reply short: at most three sentences.',
  normal: undefined,
  detailed: 'Give a detailed, thorough reply that covers the relevant points step by step.',
};
const EXAMPLES_DIRECTIVES: Record<ExamplesPolicy, string | undefined> = {
  avoid: 'Do not include examples.',
  when_asked: undefined,
  always: 'Include at least one concrete example.',
};

/**
 * The system prompt of an llm-chat call: `systemPrompt` is the base; `replyStyle` and
 * `examplesPolicy` append plain directives when they differ from the neutral defaults (normal,
 * when_asked). Empty when there is nothing to say.
 */
export function buildSystemPrompt(config: { systemPrompt?: unknown; replyStyle?: unknown; examplesPolicy?: unknown }): string {
  const parts: string[] = [];
  if (typeof config.systemPrompt === 'string' && config.systemPrompt.trim()) parts.push(config.systemPrompt.trim());
  const style = STYLE_DIRECTIVES[replyStyleOf(config.replyStyle)];
  if (style) parts.push(style);
  const examples = EXAMPLES_DIRECTIVES[examplesPolicyOf(config.examplesPolicy)];
  if (examples) parts.push(examples);
  return parts.join('\n\n');
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Chat settings from a merged config (profile values underneath node values, spec rule 18).
 * `providerID` falls back to `fallbackProvider`; temperature must be within 0..2 and maxTokens
 * a positive integer, or the call is refused as misconfigured.
 */
export function chatSettingsOf(config: Readonly<Record<string, unknown>>, fallbackProvider = 'local'): ChatSettings {
  const temperature = num(config.temperature);
  if (temperature !== undefined && (temperature < 0 || temperature > 2)) throw new LlmConfigError(`temperature must be between 0 and 2, got ${temperature}`);
  const maxTokens = num(config.maxTokens);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) throw new LlmConfigError(`maxTokens must be a positive integer, got ${maxTokens}`);
  return {
    providerID: str(config.providerID) ?? fallbackProvider,
    model: str(config.model),
    baseURL: str(config.baseURL),
    apiKey: str(config.apiKey),
    temperature,
    maxTokens,
  };
}

/**
 * Keys an llm-chat profile overrides for a module that resolves one itself (spec rule 19: provider,
 * model and temperature, with the endpoint and key that reaching that provider takes). The module
 * keeps its own prompt and its token bound (the translator's AI_MAX_TOKENS floor).
 */
const MODULE_PROFILE_KEYS = ['providerID', 'model', 'temperature', 'baseURL', 'apiKey'] as const;

/**
 * Spec rule 19, profiles outside flow nodes: a module with a profile setting (the AI translate
 * module's `ai/profile`, env AI_PROFILE) lets the profile override its flat provider, model and
 * temperature settings when set; when blank, the flat settings apply. Note the direction: a node's
 * own values win over its profile (rule 18), a module's profile wins over its flat settings. When
 * the profile holds a secret and leaves an endpoint field blank, a flat value there is refused
 * (`ProfileEndpointOverrideError`): the secret only goes to the profile's own endpoint.
 */
export function mergeModuleProfile(flat: Readonly<Record<string, unknown>>, profile?: Readonly<Record<string, unknown>>, profileId = '(module profile)'): Record<string, unknown> {
  const out: Record<string, unknown> = { ...flat };
  if (!profile) return out;
  // A flat endpoint under a secret-holding profile would carry the profile's key to it.
  assertSecretEndpointKept({ module: LLM_CHAT_KIND.module, kind: LLM_CHAT_KIND.id, profileId }, profile, flat, { precedence: 'module' });
  for (const key of MODULE_PROFILE_KEYS) {
    const v = profile[key];
    if (v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '')) out[key] = v;
  }
  return out;
}

/** The messages of a call: the system prompt (when any) first, then the conversation. */
export function withSystemPrompt(system: string, messages: readonly ChatMessage[]): ChatMessage[] {
  return system ? [{ role: 'system', content: system }, ...messages] : [...messages];
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const COMPOUND = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration setting: a bare number of milliseconds (`90000`) or a Go-style duration (`3m`,
 * `90s`, `1m30s`, `500ms`). `0` disables. Undefined for a value that is neither.
 */
export function parseDuration(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  if (DURATION.test(v)) return Math.round(Number(DURATION.exec(v)![1]) * UNIT_MS[DURATION.exec(v)![2]]);
  const parts = [...v.matchAll(COMPOUND)];
  if (parts.length > 0 && parts.map((p) => p[0]).join('') === v) return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * UNIT_MS[p[2]], 0));
  return undefined;
}

/** Matches a valid duration setting (for env validation). */
export const DURATION_SETTING = /^(\d+|(\d+(\.\d+)?(ms|s|m|h))+)$/i;

/**
 * The bound of every model call (localization spec, automatic translation item 11):
 * AI_CALL_TIMEOUT, else TRANSLATE_CALL_TIMEOUT (which feeds the same setting), else 3 minutes;
 * 0 disables it.
 */
export function callTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  for (const name of ['AI_CALL_TIMEOUT', 'TRANSLATE_CALL_TIMEOUT']) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const ms = parseDuration(raw);
    if (ms === undefined) throw new LlmConfigError(`${name} must be milliseconds or a duration such as 3m or 90s, got ${JSON.stringify(raw)}`);
    return ms;
  }
  return DEFAULT_CALL_TIMEOUT_MS;
}

/** Default AI_MAX_TOKENS: the floor of a translation call's token cap. */
export const DEFAULT_AI_MAX_TOKENS = 2048;

/**
 * Token cap of a translation call (localization spec, automatic translation item 11): sized from
 * the source assuming the costly case of scripts that need about two characters per token, times
 * the locales asked for in the call, plus framing; `floor` (AI_MAX_TOKENS, default 2048) is a
 * floor, never a ceiling.
 */
export function translationTokenCap(sourceChars: number, locales: number, floor = DEFAULT_AI_MAX_TOKENS): number {
  const perLocale = Math.ceil(Math.max(0, sourceChars) / 2) + 32;
  return Math.max(floor, perLocale * Math.max(1, locales) + 64);
}
