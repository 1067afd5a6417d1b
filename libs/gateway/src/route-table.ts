import { API_PREFIX_OWNERS } from '@flowplane/contracts';
import type { UpstreamService } from './gateway.env';

/** Path prefixes under /api/v1 and the service that owns them (ARCHITECTURE §1; one table in contracts, which the deployments service also reads). Longest prefix wins. */
export const ROUTE_TABLE: ReadonlyArray<readonly [string, UpstreamService]> = API_PREFIX_OWNERS;

const SORTED = [...ROUTE_TABLE].sort((a, b) => b[0].length - a[0].length);

/** The service owning a path under /api/v1; anything unlisted goes to the flow-runtime route dispatcher. */
export function serviceForApiPath(path: string): UpstreamService {
  for (const [prefix, service] of SORTED) {
    if (path === prefix || path.startsWith(prefix + '/') || path.startsWith(prefix + '?')) return service;
  }
  return 'flow-runtime';
}

/** Top-level mounts outside /api/v1 and the service owning each. */
export type TopLevelMounts = ReadonlyArray<readonly [string, UpstreamService]>;

/**
 * The top-level mounts: the hub's control plane and WebSocket upgrades at `WS_MOUNT_PATH`
 * (ARCHITECTURE §1: `/ws/*` top level by default). The gateway forwards these paths as they are.
 */
export function topLevelMounts(wsMountPath = '/ws'): TopLevelMounts {
  return [[wsMountPath.replace(/\/+$/, '') || '/ws', 'hub']];
}

/**
 * Paths at the root a service answers under /api/v1: crawlers look for `/sitemap.xml` at the site's
 * root, and the i18n service serves it at `/api/v1/sitemap.xml`. Forwarded there, query kept.
 */
export const ROOT_ALIASES: ReadonlyMap<string, readonly [UpstreamService, string]> = new Map([['/sitemap.xml', ['i18n', '/api/v1/sitemap.xml'] as const]]);

/** The mounts with every default (`/ws`). */
export const TOP_LEVEL_MOUNTS: TopLevelMounts = topLevelMounts();

/** The service owning a top-level path (`/ws/...`), or undefined. */
export function serviceForTopLevelPath(path: string, mounts: TopLevelMounts = TOP_LEVEL_MOUNTS): UpstreamService | undefined {
  for (const [mount, service] of mounts) if (path === mount || path.startsWith(mount + '/')) return service;
  return undefined;
}
