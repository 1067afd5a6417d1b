import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpMetricsMiddleware } from '@flowplane/platform/health';
import { requestIdOf, securityHeaderList } from '@flowplane/platform/http';
import { weakEtag } from './json-route-fast-path';

const ROUTE = '/healthz';
const BODY = JSON.stringify({ status: 'ok' });
const LENGTH = String(Buffer.byteLength(BODY));
/** Express's default (weak) ETag of the body, as `res.json` sends it. */
const ETAG = weakEtag(BODY);

/**
 * `GET /healthz` answered in front of Express: probes and load balancers call it many times a
 * second, and the router, the logger, the guard and the interceptor chain cost several times what
 * the answer does. The answer is the Nest route's, header for header (request id, security
 * headers, JSON type, length and ETag), and it is counted in the request metrics under the same
 * route; the access log leaves probes out either way. It takes only a plain `GET /healthz`: a
 * query string, a conditional request (If-None-Match, If-Modified-Since: Express may answer 304)
 * or another method goes to Express, which stays the route's definition.
 */
export function healthzFastPath(metrics: HttpMetricsMiddleware, frameAncestors: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const security = securityHeaderList(frameAncestors);
  return (req, res) => {
    if (req.url !== ROUTE || req.method !== 'GET') return false;
    const h = req.headers;
    if (h['if-none-match'] !== undefined || h['if-modified-since'] !== undefined) return false;
    const id = requestIdOf(req);
    (req as IncomingMessage & { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of security) res.setHeader(name, value);
    (res as ServerResponse & { locals?: object }).locals = { metricsRoute: ROUTE };
    metrics(req as never, res as never, () => {
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', LENGTH);
      res.setHeader('ETag', ETAG);
      res.end(BODY);
    });
    return true;
  };
}
