/** The eight deployable services (ARCHITECTURE §1), in routing-table order. */
export const SERVICE_NAMES = [
  'gateway',
  'flow-runtime',
  'deployments',
  'profiles',
  'assistant',
  'i18n',
  'search',
  'hub',
] as const;
/** Name of a deployable service. */
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Default HTTP port of each service. The same table drives `PORT` in docker/compose.yml and the
 * container ports in k8s/, and the standalone process binds each service to its port.
 */
export const SERVICE_PORTS: Readonly<Record<ServiceName, number>> = Object.freeze({
  gateway: 8080,
  'flow-runtime': 8081,
  deployments: 8082,
  profiles: 8083,
  assistant: 8084,
  i18n: 8085,
  search: 8086,
  hub: 8087,
});

/** True when the string names one of the services. */
export function isServiceName(name: string): name is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(name);
}

/** Environment variable holding a service's base URL: `flow-runtime` gives `FLOW_RUNTIME_URL`. */
export function serviceUrlEnvVar(service: ServiceName): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_URL`;
}

/** Base URL of a service: `<SERVICE>_URL` when set, else `http://localhost:<port>`; no trailing slash. */
export function serviceUrl(
  service: ServiceName,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const variable = serviceUrlEnvVar(service);
  const raw = env[variable]?.trim();
  if (!raw) return `http://localhost:${SERVICE_PORTS[service]}`;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Fail at wiring time with the variable's name rather than on the first call with a fetch TypeError.
    throw new Error(`${variable} is not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`${variable} must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return raw.replace(/\/+$/, '');
}
