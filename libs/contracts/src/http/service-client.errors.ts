/** Details of a failed service-to-service call. */
export interface ServiceCallErrorInit {
  service: string;
  method: string;
  url: string;
  /** HTTP status of the response; undefined when no response arrived. */
  status?: number;
  /** Response body: parsed JSON when the service answered JSON, else the text. */
  body?: unknown;
  requestId?: string;
  attempts: number;
  cause?: unknown;
}

/** A call to another service failed: it answered with a non-2xx status (or, for the subclass, not at all). */
export class ServiceCallError extends Error {
  readonly service: string;
  readonly method: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly body: unknown;
  readonly requestId: string | undefined;
  /** Number of attempts made, retries included. */
  readonly attempts: number;

  constructor(message: string, init: ServiceCallErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ServiceCallError';
    this.service = init.service;
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.body = init.body;
    this.requestId = init.requestId;
    this.attempts = init.attempts;
  }

  /** The `message` field of a platform error body (`{statusCode, error, message}`), when present. */
  get remoteMessage(): string | undefined {
    const b = this.body;
    if (b && typeof b === 'object' && 'message' in b) {
      const m = (b as { message: unknown }).message;
      if (typeof m === 'string') return m;
      if (Array.isArray(m)) return m.join(', ');
    }
    return typeof b === 'string' && b ? b : undefined;
  }
}

/** Why no response arrived. */
export type UnavailableReason = 'timeout' | 'network' | 'aborted';

/**
 * The service could not be reached: connection refused or reset, DNS failure, timeout, or the caller
 * aborted. Callers answer 503 (ARCHITECTURE §5: dependency unavailable).
 */
export class ServiceUnavailableError extends ServiceCallError {
  /** Mapped to 503 by the services' global error filter. */
  readonly code = 'SERVICE_UNAVAILABLE';
  readonly reason: UnavailableReason;

  constructor(
    message: string,
    init: Omit<ServiceCallErrorInit, 'status' | 'body'> & { reason: UnavailableReason },
  ) {
    super(message, init);
    this.name = 'ServiceUnavailableError';
    this.reason = init.reason;
  }
}
