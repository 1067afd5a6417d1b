import { FlowplaneApiError, StreamError, isAbortError } from '../errors';
import { readFrames, type RawFrame } from './decoder';

/** How a stream recovers from a dropped connection. */
export interface ResumeOptions {
  /** Resume attempts in a row without a new frame before giving up with StreamError `RESUME_FAILED` (default 5; 0 never resumes). */
  maxRetries?: number;
  /** Delay before the first resume attempt, doubled after each failed one up to 10 s (default 500 ms); a `Retry-After` answer waits at least that long. */
  retryDelayMs?: number;
  /** No bytes for this long (the server sends a keep-alive comment every 15 s) counts as a dropped connection (default 45000; 0 waits forever). */
  idleTimeoutMs?: number;
}

/**
 * A stream of typed frames; iterate it once with `for await`. The connection stays open until the
 * final frame, `close()`, the caller's signal, or leaving the loop: close a stream you do not read.
 */
export interface FrameStream<F> extends AsyncIterable<F> {
  /** Id of the last frame received (a later resume starts after it). */
  readonly lastEventId: string | undefined;
  /** Ends the stream: the iteration finishes without an error and the connection is closed. */
  close(): void;
}

const MAX_DELAY_MS = 10_000;

/** What a concrete stream (chat, run) tells the generic reader. */
export interface StreamSpec<F> {
  /** The frames this stream knows; others (added by a later server) are skipped. */
  known: ReadonlySet<string>;
  /** Frames after which nothing follows. */
  final: ReadonlySet<string>;
  /** Called with every frame before it is handed out (a chat learns its run id from `session`). */
  seen?(frame: F): void;
  /** Opens the resume request after `lastEventId`, or undefined when there is nothing to resume from yet. */
  resume(lastEventId: string | undefined, signal: AbortSignal): Promise<Response> | undefined;
}

/** The frame of a raw event with its JSON data, or StreamError `BAD_FRAME`. */
function typed<F>(raw: RawFrame): F {
  try {
    return { event: raw.event, id: raw.id === undefined ? 0 : Number(raw.id), data: JSON.parse(raw.data) as unknown } as F;
  } catch (e) {
    throw new StreamError('BAD_FRAME', `the ${raw.event} frame ${raw.id ?? ''} has data that is not JSON`, { lastEventId: raw.id, cause: e });
  }
}

const retryable = (status: number) => status === 429 || status === 502 || status === 503 || status === 504;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Reads an opened event stream and, when the connection drops before a final frame, resumes it
 * with `Last-Event-ID` (only frames after the last one received come back), with bounded retries
 * and exponential backoff. Aborting `controller` ends the iteration quietly.
 */
export class ResumableStream<F extends { event: string }> implements FrameStream<F> {
  private last: string | undefined;
  private started = false;

  constructor(
    /** null: the stream has already ended (a 204 answer). */
    private readonly first: Response | null,
    private readonly controller: AbortController,
    private readonly spec: StreamSpec<F>,
    private readonly options: ResumeOptions = {},
  ) {}

  get lastEventId(): string | undefined {
    return this.last;
  }

  close(): void {
    this.controller.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<F> {
    if (this.started) throw new TypeError('an event stream can be iterated only once');
    this.started = true;
    return this.frames();
  }

  private async *frames(): AsyncGenerator<F> {
    const signal = this.controller.signal;
    const maxRetries = this.options.maxRetries ?? 5;
    const baseDelay = this.options.retryDelayMs ?? 500;
    const idle = this.options.idleTimeoutMs ?? 45_000;
    if (!this.first) return;
    let response: Response | undefined = this.first;
    let attempts = 0;
    let cause: unknown;
    let waitAtLeast = 0;
    try {
      for (;;) {
        if (response) {
          let delivered = 0;
          try {
            for await (const raw of readFrames(response.body, idle)) {
              if (raw.id !== undefined) this.last = raw.id;
              if (!this.spec.known.has(raw.event)) continue;
              const frame = typed<F>(raw);
              this.spec.seen?.(frame);
              delivered++;
              yield frame;
              if (this.spec.final.has(raw.event)) return;
            }
            cause = new Error('the server ended the stream before its final frame');
          } catch (e) {
            if (signal.aborted) return;
            if (e instanceof StreamError) throw e;
            cause = e;
          }
          if (delivered > 0) attempts = 0;
        }
        if (signal.aborted) return;
        if (attempts >= maxRetries) {
          const why = attempts ? `${attempts} resume attempt(s) failed` : 'resuming is off (maxRetries 0)';
          throw new StreamError('RESUME_FAILED', `the event stream dropped before its final frame and ${why}`, { lastEventId: this.last, attempts, cause });
        }
        attempts++;
        await sleep(Math.max(Math.min(baseDelay * 2 ** (attempts - 1), MAX_DELAY_MS), waitAtLeast), signal);
        waitAtLeast = 0;
        if (signal.aborted) return;
        response = undefined;
        try {
          const opened = this.spec.resume(this.last, signal);
          if (!opened) throw new StreamError('STREAM_DROPPED', 'the event stream dropped before its first frame: there is nothing to resume from', { attempts, cause });
          const r = await opened;
          // 204: the run has ended and nothing follows the last frame received.
          if (r.status === 204) return;
          if (!r.ok) {
            const err = await FlowplaneApiError.fromResponse(r);
            if (!retryable(r.status)) throw err;
            waitAtLeast = (err.retryAfter ?? 0) * 1000;
            cause = err;
            continue;
          }
          response = r;
        } catch (e) {
          if (signal.aborted || isAbortError(e)) return;
          if (e instanceof StreamError || (e instanceof FlowplaneApiError && !retryable(e.status))) throw e;
          cause = e;
        }
      }
    } finally {
      // Whatever ended the iteration (final frame, break, error), no connection stays open.
      this.controller.abort();
    }
  }
}

/**
 * An AbortController that also aborts with the caller's signal. Every stream aborts its controller
 * when it ends, which takes the listener off the caller's signal again (a long-lived signal shared
 * by many streams keeps none of them alive).
 */
export function linkedController(signal?: AbortSignal): AbortController {
  const c = new AbortController();
  if (!signal) return c;
  if (signal.aborted) {
    c.abort(signal.reason);
    return c;
  }
  const follow = () => c.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  c.signal.addEventListener('abort', () => signal.removeEventListener('abort', follow), { once: true });
  return c;
}
