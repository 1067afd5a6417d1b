import { ServiceCallError, ServiceUnavailableError, type UnavailableReason } from './service-client.errors';
import { internalPermsFor } from './internal-routes';
import { isServiceName, serviceUrl } from './service-registry';

/** HTTP methods the client sends. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Methods that are idempotent by HTTP semantics and therefore retried (ARCHITECTURE §4). */
export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>([
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
]);

/** Gateway-type statuses that mean "try again" rather than "your request is wrong". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Supplies a short-lived service token for one call: audience `svc:<target>` and exactly `perms`.
 * Expected to cache one token per (target, perms) pair.
 */
export type TokenProvider = (target: string, perms: readonly string[]) => Promise<string>;
/** Supplies the request id of the current inbound request, to forward as `X-Request-Id`. */
export type RequestIdProvider = () => string | undefined;

/** Construction options of a service client. */
export interface ServiceClientOptions {
  /** Name of the called service, used for the default base URL and in errors. */
  service: string;
  /** Base URL; defaults to `serviceUrl(service)` (`<SERVICE>_URL` or localhost with the service's port). */
  baseUrl?: string;
  /** Environment to read `<SERVICE>_URL` from; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Per-attempt timeout in milliseconds; default 5000. */
  timeoutMs?: number;
  /** Retries after the first attempt for idempotent calls; default 2. */
  retries?: number;
  /** First backoff delay in milliseconds, doubled per retry; default 100. */
  retryBaseDelayMs?: number;
  /** Upper bound of one backoff delay (also caps `Retry-After`); default 2000. */
  retryMaxDelayMs?: number;
  tokenProvider?: TokenProvider;
  /**
   * Permissions the token of every call carries. Default: per call, the permission of the matching
   * route in `INTERNAL_ROUTES`, none for other paths.
   */
  perms?: readonly string[];
  requestIdProvider?: RequestIdProvider;
  /** Headers sent with every call. */
  headers?: Readonly<Record<string, string>>;
  /** Fetch implementation; defaults to the global `fetch` of Node 20. */
  fetch?: typeof fetch;
  /** A transport in place of `fetch` (not both): cancelled through a callback, not an AbortSignal. */
  transport?: ServiceTransport;
}

/**
 * How a transport learns that an attempt is over before its answer came (its timeout ran out or
 * the caller aborted): `onCancel` registers the callback that tears the exchange down. It runs at
 * most once; at once when the attempt was cancelled already, never after the attempt has its answer.
 */
export interface AttemptCancellation {
  onCancel(cancel: (reason: unknown) => void): void;
}

/**
 * A ServiceClient transport: sends one request and resolves with the whole answer (a Response
 * whose `text()` is ready), or rejects when no complete answer came. Unlike `fetch` it takes its
 * cancellation as a callback: on Node 20 an AbortSignal that ever had a listener is kept alive by
 * V8's young collections together with everything its listeners reach (the request, its socket
 * buffers, the answer), so one signal per call turns every call into old-generation garbage.
 */
export type ServiceTransport = (
  url: string,
  init: { method: HttpMethod; headers: Record<string, string>; body?: string },
  cancellation: AttemptCancellation,
) => Promise<Response>;

/** A query-string value; arrays repeat the parameter. */
export type QueryValue = string | number | boolean;

/** Options of one call. */
export interface ServiceRequestOptions {
  query?: Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;
  /** JSON-serialised request body. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  retries?: number;
  /**
   * Overrides the method-based idempotency rule: true lets a POST that is idempotent by design (for
   * example an ensure/upsert keyed by id) be retried; false disables retries of a GET with side effects.
   */
  idempotent?: boolean;
  /** Overrides the request id from the provider. */
  requestId?: string;
  /** Permissions of this call's service token; overrides the client's `perms` and the route table. */
  perms?: readonly string[];
  /** Caller cancellation; an aborted call is never retried. */
  signal?: AbortSignal;
}

/** A successful response. */
export interface ServiceResponse<T> {
  status: number;
  headers: Headers;
  /** Parsed JSON body; undefined for empty bodies (204, HEAD). */
  data: T;
}

// One attempt's failure, before deciding whether to retry.
type AttemptFailure = { reason: UnavailableReason; cause: unknown };

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_RETRIES = 2;
const DEFAULT_BASE_DELAY_MS = 100;
const DEFAULT_MAX_DELAY_MS = 2000;

/**
 * Base of the typed service-to-service clients (ARCHITECTURE §4): JSON over `fetch`, a timeout on every
 * attempt, retries with exponential backoff only for idempotent calls on network errors and 502/503/504,
 * a bearer service token for the called service and the call's permissions, and the forwarded
 * `X-Request-Id`. Typed clients extend it with one method per internal route.
 */
export class ServiceClient {
  readonly service: string;
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;
  private readonly retryMaxDelayMs: number;
  private readonly tokenProvider?: TokenProvider;
  private readonly perms?: readonly string[];
  private readonly requestIdProvider?: RequestIdProvider;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly fetchImpl: typeof fetch;
  private readonly transport?: ServiceTransport;

  constructor(options: ServiceClientOptions) {
    this.service = options.service;
    if (options.baseUrl) this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    else if (isServiceName(options.service)) this.baseUrl = serviceUrl(options.service, options.env);
    else
      throw new Error(
        `ServiceClient: no baseUrl given and ${JSON.stringify(options.service)} is not a known service`,
      );
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.retries = nonNegative(options.retries, DEFAULT_RETRIES, 'retries');
    this.retryBaseDelayMs = nonNegative(options.retryBaseDelayMs, DEFAULT_BASE_DELAY_MS, 'retryBaseDelayMs');
    this.retryMaxDelayMs = nonNegative(options.retryMaxDelayMs, DEFAULT_MAX_DELAY_MS, 'retryMaxDelayMs');
    this.tokenProvider = options.tokenProvider;
    this.perms = options.perms;
    this.requestIdProvider = options.requestIdProvider;
    this.headers = options.headers ?? {};
    if (options.fetch && options.transport) throw new Error('ServiceClient: give fetch or transport, not both');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.transport = options.transport;
  }

  /** GET a JSON resource. */
  get<T = unknown>(path: string, options?: Omit<ServiceRequestOptions, 'body'>): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  /** HEAD a resource; resolves when it exists. */
  async head(path: string, options?: Omit<ServiceRequestOptions, 'body'>): Promise<void> {
    await this.send('HEAD', path, options);
  }

  /** POST a JSON body; not retried unless `idempotent` is set. */
  post<T = unknown>(path: string, body?: unknown, options?: Omit<ServiceRequestOptions, 'body'>): Promise<T> {
    return this.request<T>('POST', path, { ...options, body });
  }

  /** PUT a JSON body. */
  put<T = unknown>(path: string, body?: unknown, options?: Omit<ServiceRequestOptions, 'body'>): Promise<T> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  /** PATCH with a JSON body; not retried unless `idempotent` is set. */
  patch<T = unknown>(
    path: string,
    body?: unknown,
    options?: Omit<ServiceRequestOptions, 'body'>,
  ): Promise<T> {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  /** DELETE a resource. */
  delete<T = unknown>(path: string, options?: ServiceRequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, options);
  }

  /** Sends a call and returns the parsed body of a 2xx response. */
  async request<T = unknown>(method: HttpMethod, path: string, options?: ServiceRequestOptions): Promise<T> {
    return (await this.send<T>(method, path, options)).data;
  }

  /** Sends a call and returns status, headers and parsed body of a 2xx response; throws ServiceCallError otherwise. */
  async send<T = unknown>(
    method: HttpMethod,
    path: string,
    options: ServiceRequestOptions = {},
  ): Promise<ServiceResponse<T>> {
    const url = this.buildUrl(path, options.query);
    const idempotent = options.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const maxAttempts = 1 + (idempotent ? nonNegative(options.retries, this.retries, 'retries') : 0);
    const timeoutMs = positive(options.timeoutMs, this.timeoutMs, 'timeoutMs');
    const requestId = options.requestId ?? this.requestIdProvider?.();
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const perms = options.perms ?? this.perms ?? internalPermsFor(this.service, method, path);
    const base = { service: this.service, method, url, requestId };

    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) {
        throw new ServiceUnavailableError(`call to ${this.service} aborted: ${method} ${url}`, {
          ...base,
          attempts: attempt - 1,
          reason: 'aborted',
          cause: options.signal.reason,
        });
      }
      const headers = await this.headersFor(options, requestId, body !== undefined, perms);
      const deadline = new AttemptDeadline(timeoutMs, options.signal);
      const last = attempt >= maxAttempts;

      let res: Response;
      let text: string;
      try {
        res = this.transport
          ? await this.transport(url, { method, headers, body }, deadline)
          : await this.fetchImpl(url, { method, headers, body, signal: deadline.signal() });
        // The timeout covers the body too: a service that sends headers and then stalls is as unavailable as one that never answers.
        text = method === 'HEAD' ? '' : await res.text();
      } catch (cause) {
        deadline.release();
        const failure = classify(cause, options.signal, deadline.timedOut);
        if (failure.reason !== 'aborted' && !last) {
          await this.backoff(attempt, undefined, options.signal);
          continue;
        }
        throw new ServiceUnavailableError(
          describeUnavailable(this.service, method, url, failure.reason, timeoutMs),
          {
            ...base,
            attempts: attempt,
            reason: failure.reason,
            cause: failure.cause,
          },
        );
      }

      deadline.release();
      if (RETRYABLE_STATUSES.has(res.status) && !last) {
        await this.backoff(attempt, res.headers.get('retry-after'), options.signal);
        continue;
      }
      const data = parseBody(text, res.headers.get('content-type'));
      if (!res.ok) {
        throw new ServiceCallError(`${this.service} answered ${res.status} to ${method} ${url}`, {
          ...base,
          status: res.status,
          body: data,
          attempts: attempt,
        });
      }
      return { status: res.status, headers: res.headers, data: data as T };
    }
  }

  private buildUrl(path: string, query: ServiceRequestOptions['query']): string {
    if (!path.startsWith('/'))
      throw new Error(`ServiceClient: path must start with "/": ${JSON.stringify(path)}`);
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    return url.toString();
  }

  private async headersFor(
    options: ServiceRequestOptions,
    requestId: string | undefined,
    hasBody: boolean,
    perms: readonly string[],
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...lowerKeys(this.headers),
      ...lowerKeys(options.headers ?? {}),
    };
    if (hasBody) headers['content-type'] = 'application/json';
    if (requestId) headers['x-request-id'] = requestId;
    // Asked per attempt so a token that expired during a backoff is replaced; providers cache.
    if (this.tokenProvider) headers.authorization = `Bearer ${await this.tokenProvider(this.service, perms)}`;
    return headers;
  }

  private async backoff(
    attempt: number,
    retryAfter: string | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const exp = Math.min(this.retryMaxDelayMs, this.retryBaseDelayMs * 2 ** (attempt - 1));
    // Equal jitter: keeps at least half the delay while spreading retries of many callers apart.
    let delay = exp / 2 + Math.random() * (exp / 2);
    const hinted = retryAfterMs(retryAfter);
    if (hinted !== undefined) delay = Math.min(this.retryMaxDelayMs, Math.max(delay, hinted));
    await sleep(delay, signal);
  }
}

/**
 * One attempt's deadline: cancelled by its timeout or by the caller's signal, and released as soon
 * as the attempt has its answer. Not `AbortSignal.timeout` (with `AbortSignal.any`): its timer
 * runs out the whole timeout after the call answered, so every call would leave a timer, a signal
 * and the request they reach alive for seconds. A transport watches it through `onCancel`; `fetch`
 * gets an AbortSignal, made only for it.
 */
class AttemptDeadline implements AttemptCancellation {
  timedOut = false;
  private readonly timer: ReturnType<typeof setTimeout>;
  private cancelled?: { reason: unknown };
  private released = false;
  private cancelFn?: (reason: unknown) => void;
  private controller?: AbortController;
  private readonly onCallerAbort = () => this.cancel(this.caller?.reason);

  constructor(
    timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.cancel(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    // Like AbortSignal.timeout's own timer: a pending call's socket, not its deadline, keeps a process up.
    (this.timer as { unref?: () => void }).unref?.();
    if (caller?.aborted) this.cancel(caller.reason);
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  onCancel(cancel: (reason: unknown) => void): void {
    if (this.released) return;
    if (this.cancelled) cancel(this.cancelled.reason);
    else this.cancelFn = cancel;
  }

  /** An AbortSignal for `fetch`, aborted whenever the attempt is cancelled. */
  signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.cancelled) this.controller.abort(this.cancelled.reason);
    return this.controller.signal;
  }

  release(): void {
    this.released = true;
    this.cancelFn = undefined;
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private cancel(reason: unknown): void {
    if (this.cancelled || this.released) return;
    this.cancelled = { reason };
    this.controller?.abort(reason);
    const cancel = this.cancelFn;
    this.cancelFn = undefined;
    cancel?.(reason);
  }
}

function classify(cause: unknown, callerSignal: AbortSignal | undefined, timedOut: boolean): AttemptFailure {
  if (callerSignal?.aborted) return { reason: 'aborted', cause };
  if (timedOut) return { reason: 'timeout', cause };
  return { reason: 'network', cause };
}

function describeUnavailable(
  service: string,
  method: string,
  url: string,
  reason: UnavailableReason,
  timeoutMs: number,
): string {
  if (reason === 'timeout') return `${service} did not answer ${method} ${url} within ${timeoutMs} ms`;
  if (reason === 'aborted') return `call to ${service} aborted: ${method} ${url}`;
  return `${service} unreachable: ${method} ${url}`;
}

function parseBody(text: string, contentType: string | null): unknown {
  if (!text) return undefined;
  if (contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function retryAfterMs(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    // An abort during the backoff ends the wait early; the loop then reports the abort.
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function lowerKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`ServiceClient: ${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) && name === 'retries')
    throw new Error(`ServiceClient: retries must be an integer, got ${value}`);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`ServiceClient: ${name} must be >= 0, got ${value}`);
  return value;
}
