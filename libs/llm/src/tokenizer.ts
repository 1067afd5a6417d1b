/**
 * The one tokenizer of the `local` provider and of usage estimates: a token is a run of letters,
 * digits or underscores, or one other visible character, each with the whitespace before it.
 * Concatenating the tokens gives the text back exactly, so a streamed reply is the reply.
 * It is not a BPE tokenizer: for English it counts about 1.3 tokens per word, close enough to
 * OpenAI's counts to estimate usage when a provider reports none (rows say `estimated`).
 */
const TOKEN = /\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])|\s+$/gu;

/** The tokens of `text`; `tokenize(t).join('') === t`. */
export function tokenize(text: string): string[] {
  if (!text) return [];
  return text.match(TOKEN) ?? [text];
}

/** How many tokens `text` has, without building the list. */
export function countTokens(text: string): number {
  if (!text) return 0;
  TOKEN.lastIndex = 0;
  let n = 0;
  while (TOKEN.exec(text) !== null) n++;
  return n;
}

/** Per-message framing tokens (role, separators), as chat models count them. */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/** Estimated prompt tokens of a conversation: content tokens plus framing per message, plus reply priming. */
export function countPromptTokens(messages: ReadonlyArray<{ role: string; content: string }>): number {
  let n = MESSAGE_OVERHEAD_TOKENS;
  for (const m of messages) n += MESSAGE_OVERHEAD_TOKENS + countTokens(m.content);
  return n;
}
