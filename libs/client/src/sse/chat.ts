import { type FetchLike, gatewayOrigin, guardedFetch, randomRequestId, resolveToken, type TokenSource } from '../api/client';
import { FlowplaneApiError } from '../errors';
import { CHAT_EVENTS, CHAT_FINAL_EVENTS, type ChatFrame } from './frames';
import { type FrameStream, linkedController, ResumableStream, type ResumeOptions } from './stream';

/** Options shared by the stream helpers. */
export interface StreamCommonOptions extends ResumeOptions {
  /** The gateway's origin (`http://localhost:8080`; a trailing `/api/v1` is dropped). */
  baseUrl: string;
  /** Bearer token, or a function asked before every request (the first one and each resume). */
  token?: TokenSource;
  /** Aborting it ends the iteration quietly and closes the connection. */
  signal?: AbortSignal;
  /** Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Makes the `X-Request-Id` of each request (default: a random UUID). */
  requestId?: () => string;
  /** Extra headers of every request. */
  headers?: Record<string, string>;
}

/** Options of {@link streamChat}. */
export interface StreamChatOptions extends StreamCommonOptions {
  /** The user's message (1..maxMessageChars of `GET /assistant/config`). */
  message: string;
  /** The chat to continue; omitted, the server starts one and answers its id. */
  sessionId?: string;
  /** Passed to the flow (`meta.intent: 'handoff'` asks for a human; string fields). */
  meta?: Record<string, unknown>;
}

/** A chat answer being streamed. */
export interface ChatStream extends FrameStream<ChatFrame> {
  /** The chat's session id (`X-Assistant-Session-Id`): send it with the next message. */
  readonly sessionId: string;
  /** The run answering, once the `session` frame arrived. */
  readonly runId: string | undefined;
}

/** Headers of a stream request. */
export async function streamHeaders(options: StreamCommonOptions, extra: Record<string, string>): Promise<Headers> {
  const h = new Headers(options.headers);
  h.set('accept', 'text/event-stream');
  for (const [k, v] of Object.entries(extra)) h.set(k, v);
  if (!h.has('x-request-id')) h.set('x-request-id', (options.requestId ?? randomRequestId)());
  const t = await resolveToken(options.token);
  if (t && !h.has('authorization')) h.set('authorization', `Bearer ${t}`);
  return h;
}

/** The response of a stream's first request, or the FlowplaneApiError of its refusal (400, 401, 429 with `retryAfter`, 503). */
export async function openOrThrow(fetch: FetchLike, request: Request): Promise<Response> {
  const res = await fetch(request);
  if (!res.ok) throw await FlowplaneApiError.fromResponse(res);
  return res;
}

/**
 * Sends a chat message to the assistant (`POST /api/v1/assistant/messages`) and streams the answer
 * as typed frames: `session`, then `token`s when the flow streams, then one `message` or `error`.
 *
 * Resolves once the response headers arrived, so `sessionId` is known before the first frame. A
 * refusal before the stream opens (400 bad input, 401, 429 with `retryAfter`, 503) rejects with
 * {@link FlowplaneApiError}. When the connection drops mid-answer the stream resumes from
 * `GET /api/v1/assistant/messages/{runId}/events` with `Last-Event-ID`, so each frame is delivered
 * once; after `maxRetries` failed attempts in a row it fails with StreamError `RESUME_FAILED`.
 *
 * @example
 * ```ts
 * const chat = await streamChat({ baseUrl: 'http://localhost:8080', message: 'Hello!', sessionId: saved });
 * localStorage.setItem('chat', chat.sessionId);
 * for await (const frame of chat) {
 *   if (frame.event === 'token') out.append(frame.data.chunk);
 *   else if (frame.event === 'message') show(frame.data.content, frame.data.sources, frame.data.actions);
 *   else if (frame.event === 'error') fail(frame.data.message);
 * }
 * ```
 */
export async function streamChat(options: StreamChatOptions): Promise<ChatStream> {
  const origin = gatewayOrigin(options.baseUrl);
  const fetch = guardedFetch(options.fetch);
  const controller = linkedController(options.signal);
  const body = JSON.stringify({ message: options.message, ...(options.sessionId ? { sessionId: options.sessionId } : {}), ...(options.meta ? { meta: options.meta } : {}) });
  const headers = await streamHeaders(options, { 'content-type': 'application/json' });
  let first: Response;
  try {
    first = await openOrThrow(fetch, new Request(`${origin}/api/v1/assistant/messages`, { method: 'POST', headers, body, signal: controller.signal }));
  } catch (e) {
    controller.abort();
    throw e;
  }
  const sessionId = first.headers.get('x-assistant-session-id') ?? options.sessionId ?? '';
  let runId: string | undefined;
  const stream = new ResumableStream<ChatFrame>(
    first,
    controller,
    {
      known: CHAT_EVENTS,
      final: CHAT_FINAL_EVENTS,
      seen: (f) => {
        if (f.event === 'session') runId = f.data.runId;
      },
      resume: (lastEventId, signal) => {
        if (!runId) return undefined;
        const id = runId;
        return (async () => {
          const h = await streamHeaders(options, { 'x-assistant-session-id': sessionId, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) });
          return fetch(new Request(`${origin}/api/v1/assistant/messages/${encodeURIComponent(id)}/events`, { headers: h, signal }));
        })();
      },
    },
    options,
  );
  return Object.defineProperties(stream, {
    sessionId: { value: sessionId, enumerable: true },
    runId: { get: () => runId, enumerable: true },
  }) as ResumableStream<ChatFrame> & ChatStream;
}
