import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRouteFastPath, type ServiceContext, sendJson } from '@flowplane/platform/service';
import { toSearchException } from '../domain/search.errors';
import { InternalIndexesController } from './internal-indexes.controller';

/** The route as Express routes it (the metrics label of the Nest route). */
export const INTERNAL_QUERY_ROUTE = '/internal/search/indexes/:name/query';
const PREFIX = '/internal/search/indexes/';
const SUFFIX = '/query';
/** Index names the fast path takes as they stand (no percent-escapes to decode); others go to Express. */
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `{name}` of a path of the route with a plain index name. */
export function plainIndexName(path: string, prefix: string, suffix: string): Record<string, string> | undefined {
  if (!path.startsWith(prefix) || !path.endsWith(suffix)) return undefined;
  const name = path.slice(prefix.length, path.length - suffix.length);
  return PLAIN_NAME.test(name) ? { name } : undefined;
}

/**
 * `POST /internal/search/indexes/{name}/query` in front of Express (`jsonRouteFastPath`): the
 * retrieval node queries here once per chat turn, and at 10,000 chunks the router, guard and
 * interceptor chain cost about as much as the query itself. The controller's own method does the
 * work and its errors become the same bodies through the same mapping. The caller must hold a
 * service token search has verified already, with `internal:search:query`.
 */
export function internalQueryFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const controller = app.get(InternalIndexesController);
  return jsonRouteFastPath<Record<string, unknown>>(app, ctx, {
    path: INTERNAL_QUERY_ROUTE,
    match: (path) => plainIndexName(path, PREFIX, SUFFIX),
    controller: InternalIndexesController,
    handler: InternalIndexesController.prototype.query,
    // The route takes any JSON body (the pipe has no class to check) and judges it itself.
    dto: Object as never,
    plainlyValid: () => true,
    handle: async ({ params, dto, res }) => {
      let result: unknown;
      try {
        result = await controller.query(params.name, dto);
      } catch (e) {
        throw toSearchException(e);
      }
      sendJson(res, 200, result);
    },
  });
}
