import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRouteFastPath, type ServiceContext } from '@flowplane/platform/service';
import { eventFilter, InternalRunsController, InternalStartRunDto, openRunStream } from './runs.controller';
import { RunsService } from './runs.service';

/** The route as Express routes it (the metrics label and the access line of the Nest route). */
export const INTERNAL_RUNS_PATH = '/internal/runs';

const FIELDS = new Set(['flowId', 'versionId', 'input', 'meta', 'startedBy', 'deploymentVariant', 'events']);

/**
 * `POST /internal/runs` in front of Express (`jsonRouteFastPath`): the assistant starts one run
 * per chat message here, so each chat would otherwise cross the whole request stack twice where a
 * direct run crosses it once. The caller must hold a service token flow-runtime has verified
 * already, with `internal:runs:start`; the answer is the Nest route's, header for header.
 */
export function internalRunsFastPath(app: INestApplication, ctx: ServiceContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const runs = app.get(RunsService);
  return jsonRouteFastPath(app, ctx, {
    path: INTERNAL_RUNS_PATH,
    controller: InternalRunsController,
    handler: InternalRunsController.prototype.start,
    dto: InternalStartRunDto,
    plainlyValid,
    handle: async ({ who, dto, res }) => {
      const run = await runs.start(dto.flowId, { input: dto.input, meta: dto.meta, versionId: dto.versionId, deploymentVariant: dto.deploymentVariant }, dto.startedBy ?? who!.sub);
      res.setHeader('X-Run-Id', run.runId);
      res.setHeader('X-Version-Id', run.versionId);
      res.setHeader('X-Version-Hash', run.versionHash);
      const sse = openRunStream(res, { coalesce: true });
      const stop = await runs.follow(run.runId, 0, eventFilter(dto.events, (e) => sse.send(e)), () => sse.end());
      res.once('close', () => {
        sse.detach();
        stop();
      });
    },
  });
}

/**
 * True when InternalStartRunDto certainly accepts `body` (only its fields, each of its type and
 * within its length in UTF-16 units, never more than class-validator counts); anything else goes
 * through the validation pipe, which gives the authoritative answer and its error body.
 */
export function plainlyValid(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return false;
  if (!isString(b.flowId, 200)) return false;
  if (b.versionId != null && !isString(b.versionId, 250)) return false;
  if (b.meta != null && (typeof b.meta !== 'object' || Array.isArray(b.meta))) return false;
  if (b.startedBy != null && !isString(b.startedBy, 300)) return false;
  if (b.deploymentVariant != null && !isString(b.deploymentVariant, 64)) return false;
  if (b.events != null) {
    if (!Array.isArray(b.events) || b.events.length > 50) return false;
    for (const e of b.events) if (!isString(e, 100)) return false;
  }
  return true;
}

function isString(v: unknown, max: number): boolean {
  return typeof v === 'string' && v.length <= max;
}
