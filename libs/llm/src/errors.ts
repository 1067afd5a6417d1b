/**
 * Typed errors of every model call. Each carries a stable `code` and the HTTP status a service
 * should answer with when the error reaches a route; messages never contain credentials.
 */

/** Stable codes of `LlmError`. */
export type LlmErrorCode =
  | 'LLM_CONFIG'
  | 'LLM_TARGET_REFUSED'
  | 'LLM_AUTH'
  | 'LLM_RATE_LIMITED'
  | 'LLM_TIMEOUT'
  | 'LLM_BAD_REQUEST'
  | 'LLM_BAD_RESPONSE'
  | 'LLM_UNAVAILABLE'
  | 'LLM_ABORTED';

/** Base class of every error a provider, embedder or guard throws. */
export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    /** Status a route answers when the error surfaces there. */
    readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A provider or embedder was configured wrongly (unknown id, missing model, bad base URL, ...). */
export class LlmConfigError extends LlmError {
  constructor(message: string) {
    super('LLM_CONFIG', message, 400);
  }
}

/** The outbound target failed the address policy (private, loopback, link-local, credentials in the URL, redirects). */
export class LlmTargetRefusedError extends LlmError {
  constructor(message: string) {
    super('LLM_TARGET_REFUSED', message, 400);
  }
}

/** The provider rejected the credentials (401/403). */
export class LlmAuthError extends LlmError {
  constructor(message: string, readonly upstreamStatus: number) {
    super('LLM_AUTH', message, 502);
  }
}

/** Still rate limited (429) after the retries. */
export class LlmRateLimitError extends LlmError {
  constructor(
    message: string,
    /** What the provider's Retry-After asked for, in ms, when it said. */
    readonly retryAfterMs?: number,
  ) {
    super('LLM_RATE_LIMITED', message, 503);
  }
}

/** The call took longer than its bound (AI_CALL_TIMEOUT). */
export class LlmTimeoutError extends LlmError {
  constructor(readonly timeoutMs: number) {
    super('LLM_TIMEOUT', `model call timed out after ${timeoutMs} ms`, 504);
  }
}

/** The provider refused the request itself (400, 404, 422: unknown model, bad parameters). */
export class LlmBadRequestError extends LlmError {
  constructor(message: string, readonly upstreamStatus: number) {
    super('LLM_BAD_REQUEST', message, 502);
  }
}

/** The provider answered something that is not the wire format (malformed JSON or SSE chunk, missing fields). */
export class LlmBadResponseError extends LlmError {
  constructor(message: string) {
    super('LLM_BAD_RESPONSE', message, 502);
  }
}

/** Network failure or 5xx after the retries. */
export class LlmUnavailableError extends LlmError {
  constructor(message: string, readonly upstreamStatus?: number, options?: { cause?: unknown }) {
    super('LLM_UNAVAILABLE', message, 503, options);
  }
}

/** The caller aborted the call (run cancelled, step ended). */
export class LlmAbortedError extends LlmError {
  constructor(message = 'model call aborted') {
    super('LLM_ABORTED', message, 499);
  }
}
