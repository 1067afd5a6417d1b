import type { UpstreamService } from './gateway.env';

/** Path prefixes under /api/v1 and the service that owns them (ARCHITECTURE §1). Longest prefix wins. */
export const ROUTE_TABLE: ReadonlyArray<readonly [string, UpstreamService]> = [
  ['/flows', 'flow-runtime'],
  ['/runs', 'flow-runtime'],
  ['/admin/llm', 'flow-runtime'],
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
  ['/admin/ai', 'i18n'],
  ['/search', 'search'],
  ['/admin/search', 'search'],
];

const SORTED = [...ROUTE_TABLE].sort((a, b) => b[0].length - a[0].length);

/** The service owning a path under /api/v1; anything unlisted goes to the flow-runtime route dispatcher. */
export function serviceForApiPath(path: string): UpstreamService {
  for (const [prefix, service] of SORTED) {
    if (path === prefix || path.startsWith(prefix + '/') || path.startsWith(prefix + '?')) return service;
  }
  return 'flow-runtime';
}
