import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRouteFastPath, type ServiceContext, sendJson } from '@flowplane/platform/service';
import { openRunStream, RunsController, StartRunDto } from './runs.controller';
import { RunsService } from './runs.service';

/** The public runs route as Express routes it (the metrics label of the Nest route). */
export const RUNS_ROUTE = '/api/v1/flows/:id/runs';
const PREFIX = '/api/v1/flows/';
const SUFFIX = '/runs';
/** Flow ids the fast path takes as they stand (no percent-escapes to decode); others go to Express. */
const PLAIN_ID = /^[A-Za-z0-9_.-]{1,200}$/;
const FIELDS = new Set(['input', 'meta', 'versionId', 'variant']);

/**
 * `POST /api/v1/flows/{id}/runs` in front of Express (`jsonRouteFastPath`): a run of a short flow
 * costs less than the router, logger, guard and validation pipe did. It takes callers whose token
 * flow-runtime has verified already and that the route admits (an active user with
 * `admin:access`), without a query string (`?wait=false` goes to the Nest route). The run is
 * started, persisted and answered as the Nest route does it (the same service calls): the result
 * as JSON once the run settles, or its events as SSE when the caller accepts text/event-stream.
 */
export function runsFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const runs = app.get(RunsService);
  return jsonRouteFastPath(app, ctx, {
    path: RUNS_ROUTE,
    match: (path) => {
      if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX)) return undefined;
      const id = path.slice(PREFIX.length, path.length - SUFFIX.length);
      return PLAIN_ID.test(id) ? { id } : undefined;
    },
    controller: RunsController,
    handler: RunsController.prototype.start,
    dto: StartRunDto,
    plainlyValid,
    handle: async ({ who, dto, params, req, res }) => {
      const started = await runs.start(params.id, dto, who!.sub);
      res.setHeader('X-Run-Id', started.runId);
      if (req.headers.accept?.includes('text/event-stream')) {
        const sse = openRunStream(res);
        const stop = await runs.follow(started.runId, 0, (e) => sse.send(e), () => sse.end());
        req.once('close', () => {
          sse.detach();
          stop();
        });
        return;
      }
      const r = await started.done;
      sendJson(res, 200, { runId: r.runId, status: r.status, output: r.output, versionId: r.versionId, error: r.error });
    },
  });
}

/** True when StartRunDto certainly accepts `body` as is; anything else goes through the validation pipe. */
export function plainlyValid(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return false;
  if (b.meta !== undefined && (b.meta === null || typeof b.meta !== 'object' || Array.isArray(b.meta))) return false;
  if (b.versionId !== undefined && typeof b.versionId !== 'string') return false;
  if (b.variant !== undefined && typeof b.variant !== 'string') return false;
  return true;
}
