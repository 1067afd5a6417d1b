/**
 * The errors of the client kit. Every refusal of the platform has the same JSON body
 * (`{statusCode, error, code, message, requestId, details?, errorId?}`); the kit turns it into a
 * {@link FlowplaneApiError}. A request that never got an answer (connection refused, reset, DNS,
 * timeout) is a {@link NetworkError} instead.
 */

/** One field of a validation failure (`details` of a 400 `VALIDATION_FAILED`). */
export interface FlowplaneErrorDetail {
  field: string;
  problems: string[];
  [key: string]: unknown;
}

/** The platform's standard error body. Cases with a body of their own keep its extra fields beside these. */
export interface FlowplaneErrorBody {
  statusCode: number;
  /** The reason phrase (`Not Found`). */
  error: string;
  /** A stable upper-case identifier (`VALIDATION_FAILED`, `ROUTE_NOT_FOUND`, `RATE_LIMITED`, ...). */
  code: string;
  message: string;
  /** Equals the response's `X-Request-Id` header. */
  requestId: string;
  /** Validation failures: what was wrong with which field. */
  details?: FlowplaneErrorDetail[];
  /** Every 5xx: the id the failure is logged under on the server. */
  errorId?: string;
  [key: string]: unknown;
}

/** Whether a value has the shape of the platform's error body. */
export function isFlowplaneErrorBody(value: unknown): value is FlowplaneErrorBody {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.statusCode === 'number' && typeof v.code === 'string' && typeof v.message === 'string';
}

/** Seconds to wait from a `Retry-After` header (delta seconds or an HTTP date), if it has one. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * An answer of the platform with a status of 400 or more. `status` and `statusCode` are the HTTP
 * status; `code`, `message`, `requestId`, `details` and `errorId` come from the error body (a body
 * that is not the platform's, such as a proxy's HTML page, gives `code` `HTTP_<status>`);
 * `retryAfter` is the `Retry-After` header in seconds (429, some 503).
 */
export class FlowplaneApiError extends Error {
  override readonly name = 'FlowplaneApiError';
  readonly status: number;
  readonly statusCode: number;
  readonly error: string;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: FlowplaneErrorDetail[] | undefined;
  readonly errorId: string | undefined;
  /** Seconds the server asks to wait before retrying, from `Retry-After`. */
  readonly retryAfter: number | undefined;
  /** The parsed body as it came (the standard fields and any extra ones), or its text when it was not JSON. */
  readonly body: unknown;

  constructor(init: { status: number; body?: unknown; statusText?: string; requestId?: string | null; retryAfter?: number }) {
    const std = isFlowplaneErrorBody(init.body) ? init.body : undefined;
    const reason = std?.error ?? (init.statusText || `HTTP ${init.status}`);
    super(std?.message ?? `${init.status} ${reason}`);
    this.status = init.status;
    this.statusCode = std?.statusCode ?? init.status;
    this.error = reason;
    this.code = std?.code ?? `HTTP_${init.status}`;
    this.requestId = std?.requestId ?? init.requestId ?? undefined;
    this.details = std?.details;
    this.errorId = std?.errorId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** The error of a response (reads its body; the response must not have been read yet). */
  static async fromResponse(response: Response): Promise<FlowplaneApiError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text.
    }
    return FlowplaneApiError.fromBody(response, body);
  }

  /** The error of a response whose body was already parsed (openapi-fetch's `error`). */
  static fromBody(response: Response, body: unknown): FlowplaneApiError {
    return new FlowplaneApiError({
      status: response.status,
      statusText: response.statusText,
      body,
      requestId: response.headers.get('x-request-id'),
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    });
  }

  /** The fields as plain JSON (for logs). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, status: this.status, code: this.code, message: this.message, requestId: this.requestId, details: this.details, errorId: this.errorId, retryAfter: this.retryAfter };
  }
}

/** Why a request got no answer: `TIMEOUT` (the kit's `timeoutMs`), otherwise `NETWORK_ERROR`. */
export type NetworkErrorCode = 'NETWORK_ERROR' | 'TIMEOUT';

/** A request that got no HTTP answer at all. `cause` is what fetch threw. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly code: NetworkErrorCode;
  /** The URL that was asked for. */
  readonly url: string;

  constructor(url: string, cause: unknown, code: NetworkErrorCode = 'NETWORK_ERROR') {
    super(code === 'TIMEOUT' ? `no answer from ${url} in time` : `could not reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.code = code;
    this.url = url;
  }
}

/** Whether an error is the abort of a caller's AbortSignal (not a failure). */
export function isAbortError(e: unknown): boolean {
  return !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'AbortError';
}

/**
 * Why an event stream ended without its final frame: `STREAM_DROPPED` (the connection went away
 * and there was nothing to resume from, such as before the first frame of a chat),
 * `RESUME_FAILED` (every resume attempt failed; `cause` is the last failure) or `BAD_FRAME` (a
 * frame whose data is not JSON).
 */
export type StreamErrorCode = 'STREAM_DROPPED' | 'RESUME_FAILED' | 'BAD_FRAME';

/** An event stream that could not be read to its end. */
export class StreamError extends Error {
  override readonly name = 'StreamError';
  readonly code: StreamErrorCode;
  /** Id of the last frame delivered (where a later resume would start). */
  readonly lastEventId: string | undefined;
  /** Resume attempts made. */
  readonly attempts: number;

  constructor(code: StreamErrorCode, message: string, init: { lastEventId?: string; attempts?: number; cause?: unknown } = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.lastEventId = init.lastEventId;
    this.attempts = init.attempts ?? 0;
  }
}
