import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsString, IsUrl, Matches, Min, ValidateIf } from 'class-validator';

const toList = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value);
const toBool = ({ value }: { value: unknown }) => (typeof value === 'string' ? ['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) : value);
const url = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** Gateway settings: upstreams, CORS, rate limit, timeouts, connection and stream limits, security headers. */
export class GatewayEnv {
  /** Origins allowed by CORS (comma separated, `*` for any). Empty: no cross-origin access. */
  @Transform(toList) @IsString({ each: true })
  GATEWAY_CORS_ORIGINS: string[] = [];

  /**
   * Origins that may embed the chat widget: CORS of `/widget/*` and of the public assistant and i18n
   * routes it calls (comma separated, `*` for any site, `none` for no other site). Admin routes keep
   * GATEWAY_CORS_ORIGINS.
   */
  @Transform(({ value }) => (typeof value === 'string' && value.trim().toLowerCase() === 'none' ? [] : toList({ value }))) @IsString({ each: true }) @Matches(/^(\*|https?:\/\/[A-Za-z0-9.-]+(:\d+)?)$/, { each: true, message: 'WIDGET_ALLOWED_ORIGINS entries must be * or origins such as https://shop.example.com' })
  WIDGET_ALLOWED_ORIGINS: string[] = ['*'];

  /** Requests per minute per client address on /api/v1 and /ws (429 with Retry-After beyond it); 0 disables. */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_RATE_LIMIT = 6000;

  /** How long an upstream may take to answer before the gateway replies 504. */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_UPSTREAM_TIMEOUT_MS = 30000;

  /** Trust X-Forwarded-For for the client address (behind an ingress or load balancer). */
  @Transform(toBool) @IsBoolean()
  GATEWAY_TRUST_PROXY = false;

  /**
   * Most time a client may take to send a request's headers (408 after it). Idle keep-alive
   * connections cost the upstreams nothing, so this only bounds half-sent requests.
   */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_HEADERS_TIMEOUT_MS = 10000;

  /** Longest pause between two pieces of a request body before the gateway answers 408 and closes. */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_BODY_IDLE_TIMEOUT_MS = 10000;

  /** Most time from a request's headers to the last byte of its body (408 after it), however steadily it trickles. */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_REQUEST_TIMEOUT_MS = 60000;

  /** Upstream connections per service for ordinary requests (event streams have their own pool). */
  @Type(() => Number) @IsInt() @Min(2)
  GATEWAY_UPSTREAM_CONNECTIONS = 256;

  /**
   * Of those, how many are never held by long occupants (request bodies still arriving, responses
   * that turn out to be event streams), so short requests always get a connection. Bodies arriving
   * while the rest is taken are buffered at the gateway (up to HTTP_BODY_LIMIT) and sent whole.
   */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_UPSTREAM_RESERVE = 64;

  /** Upstream connections per service for event streams (`Accept: text/event-stream`); more open streams get 503. */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_STREAM_CONNECTIONS = 1024;

  /** Open event streams per caller (the bearer token's subject); more get 429 with Retry-After. 0 disables. */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_MAX_STREAMS_PER_CALLER = 16;

  /** Open event streams per client address; more get 429 with Retry-After. 0 disables. */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_MAX_STREAMS_PER_CLIENT = 64;

  /**
   * Requests per client address whose body is still arriving (slow or incomplete uploads); more get
   * 429 with Retry-After. Requests that arrived whole never count. 0 disables.
   */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_MAX_PENDING_PER_CLIENT = 64;

  /**
   * Bytes of public answers the gateway keeps (answers an upstream marks with
   * `Surrogate-Control: max-age`, such as public pages), oldest dropped first; 0 turns the cache off.
   */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_CACHE_MAX_BYTES = 32 * 1024 * 1024;

  /** Deepest nesting of objects and arrays accepted in a JSON request body (400 JSON_TOO_DEEP beyond it). */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_MAX_JSON_DEPTH = 64;

  /**
   * Origins allowed to frame the platform's HTML pages (for an embeddable widget), comma separated,
   * such as `https://shop.example.com` or `'self'`. Empty: no page may be framed (frame-ancestors 'none').
   */
  @Transform(toList) @IsString({ each: true }) @Matches(/^('self'|https?:\/\/[A-Za-z0-9.*-]+(:\d+)?)$/, { each: true, message: "GATEWAY_FRAME_ANCESTORS entries must be origins such as https://shop.example.com or 'self'" })
  GATEWAY_FRAME_ANCESTORS: string[] = [];

  /**
   * OpenID Connect issuer of the admin console's sign-in (with CONSOLE_OIDC_CLIENT_ID): an https URL,
   * or http for localhost. Unset: the console offers the development sign-in by pasted bearer token.
   */
  @ValidateIf((o: GatewayEnv) => o.CONSOLE_OIDC_ISSUER !== undefined || o.CONSOLE_OIDC_CLIENT_ID !== undefined)
  @Matches(/^(https:\/\/[^\s/?#]+|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?)(\/[^\s?#]*)?$/, { message: 'CONSOLE_OIDC_ISSUER must be an https URL (http only for localhost), and is required with CONSOLE_OIDC_CLIENT_ID' })
  CONSOLE_OIDC_ISSUER?: string;

  /** The console's public client id at the issuer (authorization code with PKCE, no secret). */
  @ValidateIf((o: GatewayEnv) => o.CONSOLE_OIDC_ISSUER !== undefined || o.CONSOLE_OIDC_CLIENT_ID !== undefined)
  @Matches(/^[\x21-\x7e]{1,255}$/, { message: 'CONSOLE_OIDC_CLIENT_ID must be a client id without spaces, and is required with CONSOLE_OIDC_ISSUER' })
  CONSOLE_OIDC_CLIENT_ID?: string;

  /** The access token claim the console reads the caller's permissions from (a dotted path for nested claims). */
  @Matches(/^[A-Za-z0-9_:/#-]+(\.[A-Za-z0-9_:/#-]+)*$/, { message: 'CONSOLE_OIDC_PERMS_CLAIM must be a claim name such as perms or realm_access.roles' })
  CONSOLE_OIDC_PERMS_CLAIM = 'perms';

  /** The scopes the console asks the issuer for, space separated. */
  @Matches(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, { message: 'CONSOLE_OIDC_SCOPE must be scopes separated by single spaces, such as "openid profile"' })
  CONSOLE_OIDC_SCOPE = 'openid profile';

  /** Where the hub is mounted (the hub's own WS_MOUNT_PATH): forwarded outside /api/v1, upgrades included. */
  @Matches(/^\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, { message: 'WS_MOUNT_PATH must be a path such as /ws' })
  WS_MOUNT_PATH = '/ws';

  @IsUrl(url) FLOW_RUNTIME_URL = 'http://127.0.0.1:8081';
  @IsUrl(url) DEPLOYMENTS_URL = 'http://127.0.0.1:8082';
  @IsUrl(url) PROFILES_URL = 'http://127.0.0.1:8083';
  @IsUrl(url) ASSISTANT_URL = 'http://127.0.0.1:8084';
  @IsUrl(url) I18N_URL = 'http://127.0.0.1:8085';
  @IsUrl(url) SEARCH_URL = 'http://127.0.0.1:8086';
  @IsUrl(url) HUB_URL = 'http://127.0.0.1:8087';
}

/** Every service behind the gateway, in display order. */
export const UPSTREAM_SERVICES = ['flow-runtime', 'deployments', 'profiles', 'assistant', 'i18n', 'search', 'hub'] as const;
export type UpstreamService = (typeof UPSTREAM_SERVICES)[number];

/** The upstream base URLs from the gateway config. */
export function upstreamUrls(c: GatewayEnv): Record<UpstreamService, string> {
  return {
    'flow-runtime': c.FLOW_RUNTIME_URL,
    deployments: c.DEPLOYMENTS_URL,
    profiles: c.PROFILES_URL,
    assistant: c.ASSISTANT_URL,
    i18n: c.I18N_URL,
    search: c.SEARCH_URL,
    hub: c.HUB_URL,
  };
}
