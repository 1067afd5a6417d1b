/**
 * The services whose OpenAPI documents the typed client is generated from, and the property of
 * `createFlowplaneClient()` each one is reached through. Shared by the generator and the client.
 */
export const CLIENT_SERVICES = [
  { service: 'gateway', property: 'gateway' },
  { service: 'flow-runtime', property: 'flows' },
  { service: 'deployments', property: 'deployments' },
  { service: 'profiles', property: 'profiles' },
  { service: 'assistant', property: 'assistant' },
  { service: 'i18n', property: 'i18n' },
  { service: 'search', property: 'search' },
  { service: 'hub', property: 'hub' },
] as const;

/** A service name as the platform spells it. */
export type ClientServiceName = (typeof CLIENT_SERVICES)[number]['service'];
