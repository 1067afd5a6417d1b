import { Transform, type TransformCallback } from 'node:stream';
import { JsonDepthScanner } from '@flowplane/platform/http';

export interface BodyLimits {
  maxBytes: number;
  /** Longest pause between two body chunks. */
  idleMs: number;
  /** Most time for the whole body, from when the meter is made (right after the headers). */
  deadlineMs: number;
  /** Deepest nesting accepted in a JSON body. */
  maxJsonDepth: number;
}

/** Why a body was refused: an answer for the client. */
export interface BodyFailure {
  status: 400 | 408 | 413;
  code: string;
  message: string;
}

/** The error a refused meter is destroyed with (undici aborts the upstream request on it). */
export class BodyRefusedError extends Error {
  constructor(readonly failure: BodyFailure) {
    super(failure.message);
  }
}

/**
 * Pass-through stream between a client's request and the upstream: counts bytes against the body
 * limit, scans JSON nesting depth as the bytes go by, and times out a body that stalls or trickles.
 * Reading happens only when the consumer pulls, so the body reaches the upstream whole whether it
 * came chunked, with a Content-Length or from an HTTP/1.0 client. `onFailure` runs once, before
 * the meter is destroyed, so the caller can answer while the connection is still open.
 */
export class BodyMeter extends Transform {
  bytes = 0;
  failure?: BodyFailure;
  private readonly scanner?: JsonDepthScanner;
  private readonly idle: NodeJS.Timeout;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    private readonly limits: BodyLimits,
    json: boolean,
    private readonly onFailure: (f: BodyFailure) => void,
  ) {
    super();
    if (json) this.scanner = new JsonDepthScanner(limits.maxJsonDepth);
    this.idle = setTimeout(() => this.fail(timeout(`no part of the request body arrived for ${limits.idleMs} ms`)), limits.idleMs).unref();
    this.deadline = setTimeout(() => this.fail(timeout(`the request body did not arrive within ${limits.deadlineMs} ms`)), limits.deadlineMs).unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) {
      this.fail({ status: 413, code: 'BODY_TOO_LARGE', message: `request body is larger than the limit of ${this.limits.maxBytes} bytes` });
      return callback();
    }
    if (this.scanner?.push(chunk)) {
      this.fail({ status: 400, code: 'JSON_TOO_DEEP', message: `JSON body is nested deeper than ${this.limits.maxJsonDepth} levels` });
      return callback();
    }
    this.idle.refresh();
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.stopTimers();
    callback();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.stopTimers();
    callback(err);
  }

  /** Refuses the body: answers through `onFailure` once, then destroys the meter. */
  fail(failure: BodyFailure): void {
    if (this.failure || this.destroyed) return;
    this.failure = failure;
    this.stopTimers();
    this.onFailure(failure);
    this.destroy(new BodyRefusedError(failure));
  }

  private stopTimers(): void {
    clearTimeout(this.idle);
    clearTimeout(this.deadline);
  }
}

function timeout(message: string): BodyFailure {
  return { status: 408, code: 'REQUEST_TIMEOUT', message };
}
