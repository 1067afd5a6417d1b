import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRouteFastPath, type ServiceContext, sendJson } from '@flowplane/platform/service';
import { toSearchException } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import { SearchQueryDto } from '../dto/search.dto';
import { plainIndexName } from './internal-query.fast-path';
import { SearchController } from './search.controller';

/** The public query route as Express routes it (the metrics label of the Nest route). */
export const SEARCH_QUERY_ROUTE = '/api/v1/search/indexes/:name/query';
const PREFIX = '/api/v1/search/indexes/';
const SUFFIX = '/query';
const FIELDS = new Set(['text', 'vector', 'limit', 'payload', 'filter']);

/**
 * `POST /api/v1/search/indexes/{name}/query` in front of Express (`jsonRouteFastPath`): a query
 * of a few hundred microseconds crossed the router, logger, guard, validation pipe and
 * interceptor chain, which cost several times the query. It takes callers whose user token search
 * has verified already and that the route admits (an active user); the answer and its errors are
 * the Nest route's (the same service call, the same error mapping).
 */
export function searchQueryFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const search = app.get(SearchService);
  return jsonRouteFastPath(app, ctx, {
    path: SEARCH_QUERY_ROUTE,
    match: (path) => plainIndexName(path, PREFIX, SUFFIX),
    controller: SearchController,
    handler: SearchController.prototype.query,
    dto: SearchQueryDto,
    plainlyValid,
    handle: async ({ params, dto, res }) => {
      let result: unknown;
      try {
        result = await search.query(params.name, dto);
      } catch (e) {
        throw toSearchException(e);
      }
      sendJson(res, 200, result);
    },
  });
}

/** True when SearchQueryDto certainly accepts `body` as is; anything else goes through the validation pipe. */
export function plainlyValid(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return false;
  if (b.text !== undefined && (typeof b.text !== 'string' || b.text.length > 100_000)) return false;
  if (b.vector !== undefined) {
    if (!Array.isArray(b.vector) || b.vector.length > 65_536) return false;
    for (const x of b.vector) if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  }
  if (b.limit !== undefined && (typeof b.limit !== 'number' || !Number.isInteger(b.limit) || b.limit < 1)) return false;
  for (const k of ['payload', 'filter'] as const) {
    const v = b[k];
    if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) return false;
  }
  return true;
}
