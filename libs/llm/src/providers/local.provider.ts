import type { ChatMessage, ChatProvider, ChatRequest, ChatResult, FinishReason } from '../chat.types';
import { LlmAbortedError } from '../errors';
import { parseExcerpts } from '../excerpts';
import { injectionFindings } from '../guards/injection-rubric';
import { classifierRubric, GUARD_RUBRIC_MARKER } from '../guards/rubric';
import { countPromptTokens, tokenize } from '../tokenizer';
import { extractiveAnswer } from './extractive-answer';

/** Id of the offline provider. */
export const LOCAL_PROVIDER_ID = 'local';
/** Model the local provider reports when none is named. */
export const LOCAL_DEFAULT_MODEL = 'local-echo';

/** In-band markers a user message may carry to script the local provider (tests, demos). */
export const LOCAL_MARKERS = {
  /** `[[reply: text]]`: answer exactly `text`. */
  reply: /\[\[reply:\s*([\s\S]*?)\]\]/i,
  /** Escalation token of the production template: echoed at the end of the reply. */
  escalate: '[[ESCALATE]]',
  /** Verdicts the local provider gives when it is asked to classify text (guards). */
  block: /\[\[(?:block|unsafe)\]\]/i,
  flag: /\[\[flag\]\]/i,
  /** Makes a verdict request answer free text, to exercise strict verdict parsing. */
  garbled: /\[\[garbled\]\]/i,
} as const;

/** A scripted behaviour, set when the provider is constructed (tests). */
export interface LocalScript {
  /** Fixed replies, used in turn (the last one repeats). */
  replies?: string[];
  /** Verdict for every classification request, whatever the text. */
  verdict?: 'allow' | 'flag' | 'block';
  /** Delay before each streamed token, in ms (0: next macrotask only when streaming). */
  tokenDelayMs?: number;
  /** Fails every call with this error (outage drills). */
  fail?: Error;
}

/**
 * A structured request the local provider answers offline, recognised by `marker` in a system
 * message (the translation engine's translate and review prompts). `answer` must be deterministic.
 */
export interface LocalTask {
  marker: string;
  answer(messages: readonly ChatMessage[]): string;
}

/** How many characters of the user message the reply quotes. */
const QUOTE_LIMIT = 240;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)]|\[\d+\])\s+(.+)$/;

/**
 * The `local` provider: deterministic and offline, so the platform and every test work without a
 * model. Given retrieved excerpts in a system message (the `Excerpts:` block of `formatExcerpts`)
 * it answers extractively (see `extractiveAnswer`); otherwise its reply quotes the latest user
 * message and the list rows a system message supplies (domain-grounded chat, spec rule 10), honours `maxTokens` (finish reason `length`), streams token
 * by token, and counts tokens with the same tokenizer it splits with, so the streamed chunks, the
 * reply and the completion count always agree. Asked for a guard verdict (the rubric of
 * `llm-classifier`), it answers the strict verdict JSON.
 */
export class LocalProvider implements ChatProvider {
  readonly id: string;
  readonly defaultModel = LOCAL_DEFAULT_MODEL;
  private turn = 0;

  constructor(
    private readonly script: LocalScript = {},
    id = LOCAL_PROVIDER_ID,
    private readonly tasks: readonly LocalTask[] = [],
  ) {
    this.id = id;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const started = performance.now();
    const signal = request.signal;
    if (signal?.aborted) throw new LlmAbortedError();
    if (this.script.fail) throw this.script.fail;
    const model = request.settings.model?.trim() || LOCAL_DEFAULT_MODEL;
    const full = this.reply(request.messages);
    let tokens = tokenize(full);
    let finishReason: FinishReason = 'stop';
    const max = request.settings.maxTokens;
    if (typeof max === 'number' && max >= 1 && tokens.length > max) {
      tokens = tokens.slice(0, Math.floor(max));
      finishReason = 'length';
    }
    if (request.onToken) {
      const delay = this.script.tokenDelayMs ?? 0;
      for (const token of tokens) {
        if (delay > 0) await sleep(delay, signal);
        if (signal?.aborted) throw new LlmAbortedError();
        request.onToken(token);
      }
    }
    const content = tokens.join('');
    const promptTokens = countPromptTokens(request.messages);
    return {
      content,
      model,
      finishReason,
      usage: { promptTokens, completionTokens: tokens.length, totalTokens: promptTokens + tokens.length, source: 'provider' },
      latencyMs: performance.now() - started,
      attempts: 1,
    };
  }

  /** The full reply to a conversation, before `maxTokens`. */
  reply(messages: readonly ChatMessage[]): string {
    const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const rubric = messages.find((m) => m.role === 'system' && m.content.includes(GUARD_RUBRIC_MARKER));
    if (rubric) return this.verdict(user, rubric.content === classifierRubric('output') ? 'output' : 'input');
    const task = this.tasks.find((t) => messages.some((m) => m.role === 'system' && m.content.includes(t.marker)));
    if (task) return task.answer(messages);
    const scripted = this.script.replies;
    if (scripted && scripted.length > 0) return scripted[Math.min(this.turn++, scripted.length - 1)];
    const forced = LOCAL_MARKERS.reply.exec(user);
    if (forced) return forced[1];
    const question = oneLine(user.replace(LOCAL_MARKERS.escalate, ''));
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
    const excerpts = parseExcerpts(system);
    if (excerpts.length > 0) {
      const answer = extractiveAnswer(question, excerpts, system);
      return user.includes(LOCAL_MARKERS.escalate) ? `${answer} ${LOCAL_MARKERS.escalate}` : answer;
    }
    const quoted = question;
    let out = quoted ? `You said: "${quoted.length > QUOTE_LIMIT ? `${quoted.slice(0, QUOTE_LIMIT)}…` : quoted}".` : 'Hello! How can I help?';
    const rows = listRows(messages);
    if (rows.length > 0) out += ` From the supplied list: ${rows.join('; ')}.`;
    if (user.includes(LOCAL_MARKERS.escalate)) out += ` ${LOCAL_MARKERS.escalate}`;
    return out;
  }

  /**
   * A classifier verdict: scripted, else the test markers, else (for a user's message) the default
   * injection rubric the `blocklist` guard applies. A draft is not checked for injection: quoting a
   * manual ("enable developer mode") is not an attack.
   */
  private verdict(text: string, role: 'input' | 'output'): string {
    if (LOCAL_MARKERS.garbled.test(text)) return 'I think this is probably fine.';
    const findings = role === 'input' ? injectionFindings(reviewedText(text)) : [];
    const verdict = this.script.verdict ?? (LOCAL_MARKERS.block.test(text) || findings.length > 0 ? 'block' : LOCAL_MARKERS.flag.test(text) ? 'flag' : 'allow');
    const reasons = verdict === 'allow' ? [] : findings.length > 0 ? findings : [verdict === 'block' ? 'unsafe content marker' : 'content marked for review'];
    return JSON.stringify({ verdict, reasons });
  }
}

/** The reviewed text of a classifier request (`Text to review:\n<<<\n…\n>>>`), or the whole message. */
function reviewedText(message: string): string {
  const m = /<<<\n([\s\S]*)\n>>>\s*$/.exec(message);
  return m ? m[1] : message;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** List items (`- a`, `1. b`, `[2] c`) of the system messages: the rows a grounding node supplied. */
function listRows(messages: readonly ChatMessage[]): string[] {
  const rows: string[] = [];
  for (const m of messages) {
    if (m.role !== 'system') continue;
    for (const line of m.content.split('\n')) {
      const item = LIST_ITEM.exec(line);
      if (item) rows.push(item[1].trim());
    }
  }
  return rows;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
