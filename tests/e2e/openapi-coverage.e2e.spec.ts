import { listRoutes, type RouteInfo } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv } from '../support/http';

/** Routes outside the public API: probes, metrics and service-to-service routes. */
const NOT_PUBLIC = /^\/(healthz|readyz|metrics|internal)(\/|$)/;

/**
 * A catch-all (`{*path}`) is not one route but a dispatcher: flow-runtime's DispatcherController
 * serves the route deployments, which the gateway documents from their own contracts.
 */
const CATCH_ALL = /\{\*[^}]*\}|\*/;

/** The hub's mount (WS_MOUNT_PATH): top level, outside the API prefix (spec "Hub"). */
const TOP_LEVEL = /^\/ws(\/|$)/;

/** `/flows/:id/runs` → `/api/v1/flows/{id}/runs`, as OpenAPI writes it; hub routes keep their absolute path. */
function openApiPath(route: string): string {
  return `${TOP_LEVEL.test(route) ? '' : '/api/v1'}${route}`.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}').replace(/(.)\/$/, '$1');
}

/**
 * Done-when of issue 4: "OpenAPI documents every route". Walks every controller route of every
 * service (as route-declarations.spec.ts does) and requires each public API route, with its
 * method, in the gateway's merged GET /api/v1/openapi.json.
 */
describe('the merged OpenAPI document covers every public route', () => {
  let platform: Standalone;
  let doc: { paths: Record<string, Record<string, unknown>>; 'x-unavailable-services'?: string[] };
  const routes: Array<RouteInfo & { service: string }> = [];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    for (const svc of [platform.gateway, ...platform.services]) for (const r of listRoutes(svc.app)) routes.push({ ...r, service: svc.name });
    const res = await call(`${platform.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => platform?.close());

  it('is merged from every service', () => {
    expect(doc['x-unavailable-services']).toBeUndefined();
    expect(new Set(routes.map((r) => r.service))).toEqual(new Set(['gateway', 'profiles', 'deployments', 'flow-runtime', 'assistant', 'i18n', 'search', 'hub']));
  });

  it('documents every public route with its method', () => {
    const publicRoutes = routes.filter((r) => !NOT_PUBLIC.test(r.path) && !CATCH_ALL.test(r.path));
    expect(publicRoutes.length).toBeGreaterThan(40);
    const missing = publicRoutes
      .filter((r) => {
        const item = doc.paths[openApiPath(r.path)];
        const methods = r.method === 'ALL' ? ['get'] : [r.method.toLowerCase()];
        return !item || methods.some((m) => !item[m]);
      })
      .map((r) => `${r.method} ${openApiPath(r.path)} (${r.service} ${r.controller}.${r.handler})`);
    expect(missing).toEqual([]);
  });

  it('documents no route under /internal, and no probe or metrics route', () => {
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/') && !TOP_LEVEL.test(p))).toEqual([]);
  });
});
