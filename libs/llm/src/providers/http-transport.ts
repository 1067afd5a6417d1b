import { Agent, type Dispatcher, request } from 'undici';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmBadRequestError,
  LlmBadResponseError,
  LlmError,
  LlmRateLimitError,
  LlmTargetRefusedError,
  LlmTimeoutError,
  LlmUnavailableError,
} from '../errors';
import { OutboundTargetRefusedError, parseOutboundUrl, pinnedLookup, type ResolveAll, resolvePinned } from '../net/outbound';

/** Call bounds and the outbound policy shared by every OpenAI-compatible call. */
export interface TransportOptions {
  /** Whole-call bound, retries included (AI_CALL_TIMEOUT); 0 disables it. Default 3 minutes. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a network error before any reply byte (default 2). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry with full jitter, capped at `maxBackoffMs` (default 500 ms). */
  retryBaseMs?: number;
  maxBackoffMs?: number;
  /** Whether a private address may be used for this host (LLM_ALLOWED_PRIVATE_HOSTS). */
  allowPrivate?: (hostname: string, address: string) => boolean;
  resolve?: ResolveAll;
  /** Largest non-streamed reply accepted (default 8 MiB). */
  maxResponseBytes?: number;
}

export const DEFAULT_CALL_TIMEOUT_MS = 3 * 60_000;
const DEFAULTS = { maxRetries: 2, retryBaseMs: 500, maxBackoffMs: 8_000, maxResponseBytes: 8 * 1024 * 1024 };
const RETRY_AFTER_CAP_MS = 30_000;
const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const AGENT_CACHE_SIZE = 32;

/** One POST of JSON to an OpenAI-compatible endpoint. */
export interface JsonPost {
  baseURL: string;
  /** Path under the base URL (`chat/completions`, `embeddings`). */
  path: string;
  apiKey?: string;
  body: unknown;
  accept?: string;
  signal?: AbortSignal;
  /** Provider id for messages. */
  provider: string;
}

/** An open response whose status is 2xx. */
export interface OpenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** Attempts so far (1 + retries). */
  attempts: number;
  /** The combined signal of the call (caller abort + timeout); reading the body stays bounded by it. */
  signal: AbortSignal;
  /** Maps an error thrown while reading the body into a typed one. */
  fail(error: unknown): LlmError;
  /** Releases timers. */
  done(): void;
}

/**
 * HTTP for OpenAI-compatible providers: the base URL is checked (scheme, no credentials), its host
 * resolved once and every address judged by the policy, and the socket connects to the checked
 * address (a pinned `lookup`), so DNS rebinding cannot slip past. Redirects are refused. 429, 5xx
 * and network failures are retried with backoff (Retry-After honoured) inside one deadline.
 */
export class HttpTransport {
  readonly timeoutMs: number;
  private readonly options: Required<Omit<TransportOptions, 'resolve' | 'timeoutMs'>> & { resolve?: ResolveAll };
  private readonly agents = new Map<string, Agent>();

  constructor(options: TransportOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.options = {
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      retryBaseMs: options.retryBaseMs ?? DEFAULTS.retryBaseMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      allowPrivate: options.allowPrivate ?? (() => false),
      resolve: options.resolve,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    };
  }

  /** POSTs and returns the open 2xx response; the caller reads the body and calls `done()`. */
  async open(post: JsonPost): Promise<OpenResponse> {
    const url = this.target(post.baseURL, post.path);
    const deadline = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined;
    const signals = [post.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length === 0 ? new AbortController().signal : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const fail = (error: unknown): LlmError => this.mapThrown(error, post, deadline);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: post.accept ?? 'application/json' };
    if (post.apiKey) headers.authorization = `Bearer ${post.apiKey}`;
    const payload = JSON.stringify(post.body);

    for (let attempt = 1; ; attempt++) {
      let response: Dispatcher.ResponseData;
      try {
        signal.throwIfAborted();
        const dispatcher = await this.dispatcher(url);
        signal.throwIfAborted();
        response = await request(url, {
          method: 'POST',
          headers,
          body: payload,
          dispatcher,
          signal,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
      } catch (error) {
        const mapped = fail(error);
        if (mapped instanceof LlmUnavailableError && attempt <= this.options.maxRetries) {
          await this.backoff(attempt, undefined, signal, fail);
          continue;
        }
        throw mapped;
      }
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        return { status, headers: response.headers, body: response.body, attempts: attempt, signal, fail, done: () => undefined };
      }
      const text = await readText(response.body, 64 * 1024).catch(() => '');
      if (status >= 300 && status < 400) {
        throw new LlmTargetRefusedError(`${post.provider} answered a redirect (${status}); redirects are refused, set baseURL to the final address`);
      }
      const message = upstreamMessage(text, post.apiKey);
      if (RETRYABLE.has(status) && attempt <= this.options.maxRetries) {
        await this.backoff(attempt, retryAfterMs(response.headers['retry-after']), signal, fail);
        continue;
      }
      throw httpError(post.provider, status, message, retryAfterMs(response.headers['retry-after']));
    }
  }

  /** POSTs JSON and parses the JSON reply. */
  async postJson(post: JsonPost): Promise<{ json: unknown; attempts: number }> {
    const res = await this.open(post);
    try {
      const text = await readText(res.body, this.options.maxResponseBytes);
      try {
        return { json: JSON.parse(text) as unknown, attempts: res.attempts };
      } catch {
        throw new LlmBadResponseError(`${post.provider} answered a body that is not JSON`);
      }
    } catch (error) {
      throw error instanceof LlmError ? error : res.fail(error);
    } finally {
      res.done();
    }
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(agents.map((a) => a.close()));
  }

  private target(baseURL: string, path: string): URL {
    if (!baseURL || !baseURL.trim()) throw new LlmTargetRefusedError('baseURL is required');
    let base: URL;
    try {
      base = parseOutboundUrl(baseURL.trim());
    } catch (e) {
      throw new LlmTargetRefusedError((e as Error).message);
    }
    const url = new URL(base.href.endsWith('/') ? base.href : `${base.href}/`);
    return new URL(path.replace(/^\//, ''), url);
  }

  /** A pooled agent whose sockets connect to the address that passed the policy. */
  private async dispatcher(url: URL): Promise<Agent> {
    let pinned;
    try {
      pinned = await resolvePinned(url.hostname, {
        allowPrivate: this.options.allowPrivate,
        resolve: this.options.resolve,
        hint: 'add the host to LLM_ALLOWED_PRIVATE_HOSTS to allow it',
      });
    } catch (e) {
      if (e instanceof OutboundTargetRefusedError) throw new LlmTargetRefusedError(e.message);
      throw new LlmUnavailableError((e as Error).message);
    }
    const key = `${url.protocol}//${url.host}|${pinned.address}`;
    let agent = this.agents.get(key);
    if (agent) {
      // Most recently used last.
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    agent = new Agent({ connect: { lookup: pinnedLookup(pinned) }, keepAliveTimeout: 10_000 });
    this.agents.set(key, agent);
    if (this.agents.size > AGENT_CACHE_SIZE) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    return agent;
  }

  private async backoff(attempt: number, retryAfter: number | undefined, signal: AbortSignal, fail: (e: unknown) => LlmError): Promise<void> {
    const exp = Math.min(this.options.maxBackoffMs, this.options.retryBaseMs * 2 ** (attempt - 1));
    const delay = retryAfter !== undefined ? Math.min(retryAfter, RETRY_AFTER_CAP_MS) : Math.random() * exp;
    try {
      await abortableSleep(delay, signal);
    } catch (error) {
      throw fail(error);
    }
  }

  private mapThrown(error: unknown, post: JsonPost, deadline: AbortSignal | undefined): LlmError {
    if (error instanceof LlmError) return error;
    if (deadline?.aborted) return new LlmTimeoutError(this.timeoutMs);
    if (post.signal?.aborted) return new LlmAbortedError();
    const code = (error as { code?: string })?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new LlmTimeoutError(this.timeoutMs);
    const message = (error as Error)?.message ?? String(error);
    return new LlmUnavailableError(`${post.provider} could not be reached: ${redact(message, post.apiKey)}`, undefined, { cause: code });
  }
}

function httpError(provider: string, status: number, message: string, retryAfter?: number): LlmError {
  const detail = message ? `: ${message}` : '';
  if (status === 401 || status === 403) return new LlmAuthError(`${provider} rejected the credentials (${status})${detail}`, status);
  if (status === 429) return new LlmRateLimitError(`${provider} is rate limiting (429)${detail}`, retryAfter);
  if (status >= 500) return new LlmUnavailableError(`${provider} failed (${status})${detail}`, status);
  return new LlmBadRequestError(`${provider} refused the request (${status})${detail}`, status);
}

/** The provider's error message (OpenAI's `{error: {message}}` or plain text), short and without the key. */
function upstreamMessage(text: string, apiKey?: string): string {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof m === 'string') message = m;
  } catch {
    /* plain text */
  }
  message = message.replace(/\s+/g, ' ');
  return redact(message.length > 300 ? `${message.slice(0, 300)}…` : message, apiKey);
}

/** Removes a secret from text that may echo it. */
export function redact(text: string, secret?: string): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

async function readText(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buf.length;
    if (size > maxBytes) throw new LlmBadResponseError(`reply exceeds ${maxBytes} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
