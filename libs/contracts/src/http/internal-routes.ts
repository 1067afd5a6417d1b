import type { ServiceName } from './service-registry';

/**
 * Permissions of service tokens, one per group of internal routes. A service token names the one
 * service it is for (`aud: svc:<target>`) and carries only the permissions of the call it is minted
 * for, so a token that leaks (a log, a misdirected call) opens one group of routes of one service.
 */
export const INTERNAL_PERMS = Object.freeze({
  /** `GET /internal/info` of any service (the gateway's admin view). */
  info: 'internal:info',
  /** profiles: ids and names of the profiles of a kind (no secrets). */
  profilesList: 'internal:profiles:list',
  /** profiles: one profile with its secrets unmasked (the ProfileResolver). */
  profilesResolve: 'internal:profiles:resolve',
  /** profiles: the public, non-sensitive settings snapshot. */
  settingsPublic: 'internal:settings:public',
  /** profiles: a module's effective settings, unmasked. */
  settingsRead: 'internal:settings:read',
  /** flow-runtime: live option sources (LLM provider ids, guard ids). */
  optionsRead: 'internal:options:read',
  /** flow-runtime: seed a module's flow. */
  flowsSeed: 'internal:flows:seed',
  /** flow-runtime: read flow documents by version. */
  flowsRead: 'internal:flows:read',
  /** flow-runtime: create a flow from a template. */
  flowsCreate: 'internal:flows:create',
  /** flow-runtime: seed scheduler entries. */
  schedulesSeed: 'internal:schedules:seed',
  /** flow-runtime: register a module's template list. */
  templatesRegister: 'internal:templates:register',
  /** flow-runtime: start a run of a flow for a service (the assistant's chats) and stream it. */
  runsStart: 'internal:runs:start',
  /** flow-runtime: read a run's events (resume a stream). */
  runsRead: 'internal:runs:read',
  /** flow-runtime: cancel a run the service started (a chat that stopped waiting for it). */
  runsCancel: 'internal:runs:cancel',
  /** flow-runtime: LLM usage totals of given runs. */
  usageRead: 'internal:usage:read',
  /** flow-runtime: register and unregister remote nodes. */
  nodesRegister: 'internal:nodes:register',
  /** deployments: every deployment and the route check. */
  deploymentsRead: 'internal:deployments:read',
  /** deployments: the OpenAPI/AsyncAPI contributions of enabled deployments. */
  deploymentsDescribe: 'internal:deployments:describe',
  /** deployments: pick a variant of a deployment. */
  deploymentsSelect: 'internal:deployments:select',
  /** deployments: create or update a deployment. */
  deploymentsWrite: 'internal:deployments:write',
  /** search: register and unregister search owners. */
  searchOwners: 'internal:search:owners',
  /** search: nearest-neighbour queries of an index (the assistant's retrieval node). */
  searchQuery: 'internal:search:query',
  /** search: upsert and delete documents of an index, creating it on first write (the assistant's knowledge ingest). */
  searchWrite: 'internal:search:write',
  /** assistant: file a handoff request (the `svc/assistant-handoff-request` node). */
  assistantHandoff: 'internal:assistant:handoff',
} as const);

/** One internal permission. */
export type InternalPerm = (typeof INTERNAL_PERMS)[keyof typeof INTERNAL_PERMS];

/** Audience of a service token for `service` (`svc:profiles`). */
export function serviceAudience(service: string): string {
  return `svc:${service}`;
}

/** Audience of the token a remote node step gets (`node:crm/lookup`): valid for that node type only. */
export function nodeAudience(nodeType: string): string {
  return `node:${nodeType}`;
}

/** An internal route and the permission its service token must carry. */
export interface InternalRoute {
  /** The serving service; `*` for routes every service has. */
  service: ServiceName | '*';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Express-style path; `:name` matches one segment. */
  path: string;
  perm: InternalPerm;
}

/**
 * Every internal route of the platform with its permission. Service clients read it to ask for the
 * least token a call needs; each route's `@Internal(perm)` names the same permission (an e2e test
 * walks the routes of every service and compares).
 */
export const INTERNAL_ROUTES: readonly InternalRoute[] = Object.freeze([
  { service: '*', method: 'GET', path: '/internal/info', perm: INTERNAL_PERMS.info },

  { service: 'profiles', method: 'GET', path: '/internal/profiles/:module/:kind', perm: INTERNAL_PERMS.profilesList },
  { service: 'profiles', method: 'GET', path: '/internal/profiles/:module/:kind/:id', perm: INTERNAL_PERMS.profilesResolve },
  { service: 'profiles', method: 'GET', path: '/internal/public-settings', perm: INTERNAL_PERMS.settingsPublic },
  { service: 'profiles', method: 'GET', path: '/internal/settings/:module', perm: INTERNAL_PERMS.settingsRead },

  { service: 'flow-runtime', method: 'GET', path: '/internal/options/:source', perm: INTERNAL_PERMS.optionsRead },
  { service: 'flow-runtime', method: 'POST', path: '/internal/flows/documents', perm: INTERNAL_PERMS.flowsRead },
  { service: 'flow-runtime', method: 'POST', path: '/internal/flows/from-template', perm: INTERNAL_PERMS.flowsCreate },
  { service: 'flow-runtime', method: 'GET', path: '/internal/flows/api-routes', perm: INTERNAL_PERMS.flowsRead },
  { service: 'flow-runtime', method: 'PUT', path: '/internal/flows/:id', perm: INTERNAL_PERMS.flowsSeed },
  { service: 'flow-runtime', method: 'POST', path: '/internal/schedules/seed', perm: INTERNAL_PERMS.schedulesSeed },
  { service: 'flow-runtime', method: 'PUT', path: '/internal/templates/providers/:source', perm: INTERNAL_PERMS.templatesRegister },
  { service: 'flow-runtime', method: 'POST', path: '/internal/runs', perm: INTERNAL_PERMS.runsStart },
  { service: 'flow-runtime', method: 'GET', path: '/internal/runs/:runId/events', perm: INTERNAL_PERMS.runsRead },
  { service: 'flow-runtime', method: 'POST', path: '/internal/runs/:runId/cancel', perm: INTERNAL_PERMS.runsCancel },
  { service: 'flow-runtime', method: 'POST', path: '/internal/llm/usage/runs', perm: INTERNAL_PERMS.usageRead },
  { service: 'flow-runtime', method: 'PUT', path: '/internal/nodes/:id', perm: INTERNAL_PERMS.nodesRegister },
  { service: 'flow-runtime', method: 'PUT', path: '/internal/nodes/:namespace/:name', perm: INTERNAL_PERMS.nodesRegister },
  { service: 'flow-runtime', method: 'DELETE', path: '/internal/nodes/:id', perm: INTERNAL_PERMS.nodesRegister },
  { service: 'flow-runtime', method: 'DELETE', path: '/internal/nodes/:namespace/:name', perm: INTERNAL_PERMS.nodesRegister },

  { service: 'deployments', method: 'GET', path: '/internal/deployments', perm: INTERNAL_PERMS.deploymentsRead },
  { service: 'deployments', method: 'GET', path: '/internal/deployments/descriptions', perm: INTERNAL_PERMS.deploymentsDescribe },
  { service: 'deployments', method: 'POST', path: '/internal/deployments/route-check', perm: INTERNAL_PERMS.deploymentsRead },
  { service: 'deployments', method: 'POST', path: '/internal/deployments/:id/select', perm: INTERNAL_PERMS.deploymentsSelect },
  { service: 'deployments', method: 'PUT', path: '/internal/deployments/:id', perm: INTERNAL_PERMS.deploymentsWrite },
  { service: 'deployments', method: 'PUT', path: '/internal/deployments/flows/:flowId', perm: INTERNAL_PERMS.deploymentsWrite },

  { service: 'search', method: 'PUT', path: '/internal/search/owners/:module', perm: INTERNAL_PERMS.searchOwners },
  { service: 'search', method: 'DELETE', path: '/internal/search/owners/:module', perm: INTERNAL_PERMS.searchOwners },
  { service: 'search', method: 'POST', path: '/internal/search/indexes/:name/query', perm: INTERNAL_PERMS.searchQuery },
  { service: 'search', method: 'POST', path: '/internal/search/indexes/:name/upsert', perm: INTERNAL_PERMS.searchWrite },
  { service: 'search', method: 'POST', path: '/internal/search/indexes/:name/delete', perm: INTERNAL_PERMS.searchWrite },

  { service: 'assistant', method: 'POST', path: '/internal/assistant/handoffs', perm: INTERNAL_PERMS.assistantHandoff },
] satisfies InternalRoute[]);

const compiled = INTERNAL_ROUTES.map((r) => ({
  ...r,
  pattern: new RegExp(`^${r.path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`),
}));

/**
 * The permissions a call to `service` needs: those of the internal route matching method and path
 * (a HEAD counts as its GET), or none for a path outside the table (a token with an audience and no
 * permission opens nothing but audience-only routes).
 */
export function internalPermsFor(service: string, method: string, path: string): string[] {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const bare = path.split(/[?#]/, 1)[0];
  const hit = compiled.find((r) => (r.service === '*' || r.service === service) && r.method === m && r.pattern.test(bare));
  return hit ? [hit.perm] : [];
}
