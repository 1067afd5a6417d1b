import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { FlowplaneApiError, NetworkError } from '../errors';
import type { paths as AssistantPaths } from './generated/assistant';
import type { paths as DeploymentsPaths } from './generated/deployments';
import type { paths as FlowRuntimePaths } from './generated/flow-runtime';
import type { paths as GatewayPaths } from './generated/gateway';
import type { paths as HubPaths } from './generated/hub';
import type { paths as I18nPaths } from './generated/i18n';
import type { paths as ProfilesPaths } from './generated/profiles';
import type { paths as SearchPaths } from './generated/search';

/** A bearer token, or a function asked for one before every request (sync or async; undefined sends none). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** The fetch the kit calls: the global one unless given (a test double, a proxy-aware fetch, ...). */
export type FetchLike = (input: Request) => Promise<Response>;

/** Options of {@link createFlowplaneClient}. */
export interface FlowplaneClientOptions {
  /**
   * The gateway's origin, for example `http://localhost:8080` or `https://api.example.com` (a path
   * prefix in front of the gateway is kept). Every generated path carries its full prefix
   * (`/api/v1/flows`, `/ws/info`), so the base is the gateway itself; a trailing `/api/v1` is
   * dropped, so the README's `API=http://localhost:8080/api/v1` works too.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` when it gives one (a request's own Authorization header wins). */
  token?: TokenSource;
  /** Default: `globalThis.fetch` (browsers, Node 20). */
  fetch?: FetchLike;
  /** Makes the `X-Request-Id` of each request (default: a random UUID); the error of a refusal carries it back. */
  requestId?: () => string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Milliseconds before a request without an answer fails with NetworkError `TIMEOUT` (default: none). */
  timeoutMs?: number;
}

/** The typed client of each service (openapi-fetch), by the name the kit gives it. */
export interface FlowplaneClient {
  /** The gateway's own routes: `/api/v1/health`, `/api/v1/openapi.json`, `/api/v1/admin/system`. */
  gateway: Client<GatewayPaths>;
  /** flow-runtime: flows, versions, publishing, runs, nodes, templates, schedules, usage. */
  flows: Client<FlowRuntimePaths>;
  /** Deployments and their variants. */
  deployments: Client<DeploymentsPaths>;
  /** Profiles and module settings. */
  profiles: Client<ProfilesPaths>;
  /** The assistant's chat, transcripts, feedback, handoffs and admin routes (chat streams: `streamChat`). */
  assistant: Client<AssistantPaths>;
  /** Locales, message catalog, translations and content. */
  i18n: Client<I18nPaths>;
  /** Search indexes and queries. */
  search: Client<SearchPaths>;
  /** The hub's HTTP control routes under `/ws`. */
  hub: Client<HubPaths>;
  /** The gateway origin every request goes to (the normalised `baseUrl`). */
  baseUrl: string;
}

/** The gateway origin of a base URL: no trailing slash, no trailing `/api/v1`. */
export function gatewayOrigin(baseUrl: string): string {
  if (!baseUrl) throw new TypeError('baseUrl is required: the gateway, for example http://localhost:8080');
  return baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

/** The token a source gives now. */
export async function resolveToken(token: TokenSource | undefined): Promise<string | undefined> {
  if (token === undefined) return undefined;
  return typeof token === 'function' ? await token() : token;
}

/** A random UUID v4; `crypto.randomUUID` exists only in secure contexts, `getRandomValues` everywhere. */
export function randomRequestId(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = new Uint8Array(16);
  if (typeof c?.getRandomValues === 'function') c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A fetch that fails with NetworkError (`TIMEOUT` after `timeoutMs`) instead of a bare TypeError; a caller's abort stays an AbortError. */
export function guardedFetch(base: FetchLike | undefined, timeoutMs?: number): FetchLike {
  return async (request) => {
    const f = base ?? ((r: Request) => globalThis.fetch(r));
    const timer = timeoutMs && timeoutMs > 0 ? new AbortController() : undefined;
    const handle = timer ? setTimeout(() => timer.abort(), timeoutMs) : undefined;
    try {
      const req = timer ? new Request(request, { signal: anySignal([request.signal, timer.signal]) }) : request;
      return await f(req);
    } catch (e) {
      if (timer?.signal.aborted && !request.signal.aborted) throw new NetworkError(request.url, e, 'TIMEOUT');
      if (request.signal.aborted || e instanceof NetworkError) throw e;
      throw new NetworkError(request.url, e);
    } finally {
      if (handle) clearTimeout(handle);
    }
  };
}

/** A signal aborted when any of the given ones is (AbortSignal.any where it exists). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (any) return any(signals);
  const c = new AbortController();
  for (const s of signals) {
    if (s.aborted) c.abort(s.reason);
    else s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

/** The middleware that adds `Authorization: Bearer` and `X-Request-Id` (a request's own headers win). */
export function authMiddleware(options: Pick<FlowplaneClientOptions, 'token' | 'requestId'>): Middleware {
  return {
    async onRequest({ request }) {
      if (!request.headers.has('x-request-id')) request.headers.set('x-request-id', (options.requestId ?? randomRequestId)());
      if (!request.headers.has('authorization')) {
        const t = await resolveToken(options.token);
        if (t) request.headers.set('authorization', `Bearer ${t}`);
      }
      return request;
    },
  };
}

/**
 * The typed API client of the platform: one openapi-fetch client per service, generated from the
 * service's own OpenAPI document, all talking to the gateway at `baseUrl`.
 *
 * Each call answers openapi-fetch's `{data, error, response}`: `error` is the typed error body of a
 * 4xx or 5xx. {@link unwrap} turns that into the data or a thrown {@link FlowplaneApiError}. A
 * request that gets no answer at all rejects with {@link NetworkError}.
 *
 * @example
 * ```ts
 * const api = createFlowplaneClient({ baseUrl: 'http://localhost:8080', token: () => session.token });
 * const { items } = unwrap(await api.flows.GET('/api/v1/flows'));
 * const run = unwrap(await api.flows.POST('/api/v1/flows/{id}/runs', { params: { path: { id: 'hello' } }, body: { input: { name: 'Ada' } } }));
 * ```
 */
export function createFlowplaneClient(options: FlowplaneClientOptions): FlowplaneClient {
  const baseUrl = gatewayOrigin(options.baseUrl);
  const fetch = guardedFetch(options.fetch, options.timeoutMs);
  const middleware = authMiddleware(options);
  const make = <P extends object>(): Client<P> => {
    const c = createClient<P>({ baseUrl, fetch, headers: options.headers });
    c.use(middleware);
    return c;
  };
  return {
    baseUrl,
    gateway: make<GatewayPaths>(),
    flows: make<FlowRuntimePaths>(),
    deployments: make<DeploymentsPaths>(),
    profiles: make<ProfilesPaths>(),
    assistant: make<AssistantPaths>(),
    i18n: make<I18nPaths>(),
    search: make<SearchPaths>(),
    hub: make<HubPaths>(),
  };
}

/** openapi-fetch's answer to a call. */
export type FetchResult<D> = { data?: D; error?: unknown; response: Response };

/**
 * The data of a successful call, or a thrown {@link FlowplaneApiError} built from the error body and
 * the response (status, `X-Request-Id`, `Retry-After`).
 *
 * @example
 * ```ts
 * try {
 *   const flow = unwrap(await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'hello' } } }));
 * } catch (e) {
 *   if (e instanceof FlowplaneApiError && e.code === 'FLOW_NOT_FOUND') ...
 * }
 * ```
 */
export function unwrap<D>(result: { data?: D; error?: unknown; response: Response }): D {
  if (result.response.ok && result.error === undefined) return result.data as D;
  throw FlowplaneApiError.fromBody(result.response, result.error);
}
