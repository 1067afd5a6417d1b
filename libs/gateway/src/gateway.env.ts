import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsString, IsUrl, Matches, Min } from 'class-validator';

const toList = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value);
const toBool = ({ value }: { value: unknown }) => (typeof value === 'string' ? ['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) : value);
const url = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** Gateway settings: upstreams, CORS, rate limit, timeouts. */
export class GatewayEnv {
  /** Origins allowed by CORS (comma separated, `*` for any). Empty: no cross-origin access. */
  @Transform(toList) @IsString({ each: true })
  GATEWAY_CORS_ORIGINS: string[] = [];

  /** Requests per minute per client address on /api/v1 and /ws (429 with Retry-After beyond it); 0 disables. */
  @Type(() => Number) @IsInt() @Min(0)
  GATEWAY_RATE_LIMIT = 6000;

  /** How long an upstream may take to answer before the gateway replies 504. */
  @Type(() => Number) @IsInt() @Min(1)
  GATEWAY_UPSTREAM_TIMEOUT_MS = 30000;

  /** Trust X-Forwarded-For for the client address (behind an ingress or load balancer). */
  @Transform(toBool) @IsBoolean()
  GATEWAY_TRUST_PROXY = false;

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
