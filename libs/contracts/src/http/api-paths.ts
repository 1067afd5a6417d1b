import { SERVICE_NAMES, type ServiceName } from './service-registry';

/** A service that answers paths under /api/v1 (every one but the gateway, whose paths are listed apart). */
export type ApiService = Exclude<ServiceName, 'gateway'>;

/**
 * Path prefixes under /api/v1 and the service that owns them (ARCHITECTURE §1). The gateway routes
 * by this table (longest prefix wins); anything unlisted goes to the flow-runtime route dispatcher,
 * so a route deployment can only be reached outside the prefixes of the other services.
 */
export const API_PREFIX_OWNERS: ReadonlyArray<readonly [string, ApiService]> = Object.freeze([
  ['/flows', 'flow-runtime'],
  ['/runs', 'flow-runtime'],
  ['/admin/llm', 'flow-runtime'],
  ['/admin/mail', 'flow-runtime'],
  ['/deployments', 'deployments'],
  ['/admin/profiles', 'profiles'],
  ['/settings', 'profiles'],
  ['/admin/settings', 'profiles'],
  ['/assistant', 'assistant'],
  ['/admin/assistant', 'assistant'],
  ['/i18n', 'i18n'],
  ['/admin/i18n', 'i18n'],
  ['/pages', 'i18n'],
  ['/fragments', 'i18n'],
  ['/admin/content', 'i18n'],
  ['/sitemap.xml', 'i18n'],
  ['/admin/ai', 'i18n'],
  ['/search', 'search'],
  ['/admin/search', 'search'],
] as const);

/** Paths under /api/v1 the gateway answers itself. */
export const GATEWAY_API_PATHS: readonly string[] = Object.freeze(['/health', '/openapi.json', '/asyncapi.yaml', '/admin/system', '/admin/system/bus-probe']);

const SORTED = [...API_PREFIX_OWNERS].sort((a, b) => b[0].length - a[0].length);

/** The service whose prefix covers a path under /api/v1 (longest prefix), or undefined for the dispatcher's space. */
export function apiPrefixOwner(path: string): ApiService | undefined {
  for (const [prefix, service] of SORTED) {
    if (path === prefix || path.startsWith(prefix + '/') || path.startsWith(prefix + '?')) return service;
  }
  return undefined;
}

/**
 * The owner of a route path (relative to /api/v1, parameters as `{name}`) that a route deployment
 * may not claim: the gateway for its own paths and the per-service probes (`/<service>/healthz`),
 * the service owning the prefix when it is not flow-runtime. Undefined when the path is in the
 * dispatcher's space (flow-runtime's own controller routes are checked against flow-runtime).
 */
export function reservedApiPathOwner(path: string): ServiceName | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  const bare = '/' + segments.join('/');
  if (GATEWAY_API_PATHS.includes(bare)) return 'gateway';
  const probed = segments[0]?.startsWith('{') || (SERVICE_NAMES as readonly string[]).includes(segments[0] ?? '');
  if (segments.length === 2 && (segments[1] === 'healthz' || segments[1] === 'readyz') && probed) return 'gateway';
  const owner = apiPrefixOwner(bare);
  return owner && owner !== 'flow-runtime' ? owner : undefined;
}
