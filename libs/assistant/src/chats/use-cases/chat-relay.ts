import { randomUUID } from 'node:crypto';
import { type Logger } from '@nestjs/common';
import { chatStepOf, type ErrorFrame, type RunEventIn, type SessionFrame } from '../domain/chat-frames';
import { encodeFrame, sseFrames } from '../domain/sse';

/** How long the rest of a run's stream may take after its terminal frame before the relay drops it. */
const DRAIN_MS = 2000;

/** Where frames go: the client's response while it is connected. */
export interface FrameSink {
  write(text: string): void;
  /** Ends the stream, after `last` when given (the terminal frame and the end leave in one write). */
  end(last?: string): void;
}

/** What the relay needs to stop the run's stream: an AbortController, or a StreamStop. */
export interface RelayAbort {
  abort(reason: Error): void;
  readonly signal: { readonly aborted: boolean; readonly reason?: unknown };
}

/**
 * Stops one stream without an AbortController: the signal's EventTarget, listener and clean-up
 * cost a chat more than the rest of its stop logic (profiled), and the relay only ever aborts.
 */
export class StreamStop implements RelayAbort {
  readonly signal: { aborted: boolean; reason?: unknown } = { aborted: false };

  constructor(private readonly stop: (reason: Error) => void) {}

  abort(reason: Error): void {
    if (this.signal.aborted) return;
    this.signal.aborted = true;
    this.signal.reason = reason;
    this.stop(reason);
  }
}

/** What the relay needs from its chat. */
export interface RelayContext {
  session: Omit<SessionFrame, 'versionId'> & { versionId?: string };
  /** Stores the assistant turn; awaited before the terminal frame is sent. */
  storeReply(reply: { content: string; sources: unknown[]; actions: unknown[]; status: string }, firstFrameMs: number | undefined): Promise<void>;
  /** When the request arrived (time to first token is measured from it). */
  startedAt: number;
  /** A resumed stream: ending without a terminal event just closes (the reader had it already). */
  resumed?: boolean;
  timeoutMs: number;
  /** Called once when the relay stops waiting for the run (the RUN_TIMEOUT frame is sent). */
  onTimeout?: () => void;
  log: Logger;
}

/**
 * Relays one run's events as chat frames. It reads the run to its end whether or not a client is
 * attached, so a client that disconnects mid-answer still finds the reply stored; frames carry
 * the run's event sequence numbers as ids, so `Last-Event-ID` resumes exactly.
 */
export class ChatRelay {
  private sink?: FrameSink;
  private done = false;
  private firstFrameMs?: number;

  constructor(
    private readonly body: AsyncIterable<Uint8Array>,
    private readonly abort: RelayAbort,
    private readonly ctx: RelayContext,
  ) {}

  /** Starts relaying into `sink`; resolves when the run's stream has ended. */
  run(sink: FrameSink): Promise<void> {
    this.sink = sink;
    return this.pump();
  }

  /** The client went away: keep reading (the reply is still stored), stop writing. */
  detach(): void {
    this.sink = undefined;
  }

  private write(id: number | string, event: string, data: unknown): void {
    if (this.done) return;
    try {
      this.sink?.write(encodeFrame(id, event, data));
    } catch {
      this.sink = undefined;
    }
  }

  /** Ends the stream, with `last` as its final frame when given. */
  private finish(last?: string): void {
    if (this.done) return;
    this.done = true;
    try {
      this.sink?.end(last);
    } catch {
      /* the client is gone */
    }
  }

  /** Ends the stream with an error frame; `detail` (a flow's own failure text) goes to the log only. */
  private fail(id: number | string, code: string, message: string, detail?: string): void {
    const frame: ErrorFrame = { code, message, errorId: randomUUID() };
    this.ctx.log.warn({ errorId: frame.errorId, runId: this.ctx.session.runId, code }, `chat run ended with an error: ${detail ?? message}`);
    this.finish(encodeFrame(id, 'error', frame));
  }

  private async pump(): Promise<void> {
    let timer = setTimeout(() => this.abort.abort(new Error('timeout')), this.ctx.timeoutMs);
    timer.unref();
    /**
     * After the terminal frame the rest of the run's stream (its end, at once) is still read, so
     * the connection goes back to the keep-alive pool instead of being torn down; DRAIN_MS bounds it.
     */
    const drain = () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.abort.abort(new Error('drained')), DRAIN_MS);
      timer.unref();
    };
    let lastSeq = 0;
    try {
      for await (const f of sseFrames(this.body)) {
        if (this.done) continue;
        let e: RunEventIn;
        try {
          e = { seq: Number(f.id), type: f.event, data: JSON.parse(f.data) as Record<string, unknown> | null };
        } catch {
          continue;
        }
        lastSeq = e.seq;
        const step = chatStepOf(e);
        if (step.kind === 'started') {
          this.write(step.seq, 'session', { ...this.ctx.session, versionId: step.versionId || this.ctx.session.versionId || '' } satisfies SessionFrame);
        } else if (step.kind === 'token') {
          this.firstFrameMs ??= Date.now() - this.ctx.startedAt;
          this.write(step.seq, 'token', step.data);
        } else if (step.kind === 'reply') {
          this.firstFrameMs ??= Date.now() - this.ctx.startedAt;
          try {
            await this.ctx.storeReply(step.reply, this.firstFrameMs);
          } catch (err) {
            this.fail(step.seq, 'CHAT_NOT_STORED', 'the reply could not be stored; try again', (err as Error).message);
            return;
          }
          this.finish(encodeFrame(step.seq, 'message', step.reply));
          drain();
        } else if (step.kind === 'failed') {
          // The chat is public: what a node threw (hosts, queries, upstream bodies) stays in the
          // log under the errorId, as on route deployments.
          this.fail(step.seq, step.code, 'the assistant could not answer; quote the errorId when reporting it', step.message);
          drain();
        }
      }
      if (this.done || this.ctx.resumed) this.finish();
      else this.fail(lastSeq + 1, 'RUN_STREAM_LOST', 'the run stream ended before the run did; resume with Last-Event-ID');
    } catch (err) {
      if (this.done) {
        // The answer was complete: a stream that breaks or lingers while draining changes nothing.
      } else if (this.abort.signal.aborted && (this.abort.signal.reason as Error | undefined)?.message === 'timeout') {
        this.fail(lastSeq + 1, 'RUN_TIMEOUT', `the flow did not answer within ${this.ctx.timeoutMs} ms`);
        this.ctx.onTimeout?.();
      } else if (!this.done) {
        this.fail(lastSeq + 1, 'RUN_STREAM_LOST', `the run stream broke: ${(err as Error).message}`);
      }
    } finally {
      clearTimeout(timer);
      this.finish();
    }
  }
}
