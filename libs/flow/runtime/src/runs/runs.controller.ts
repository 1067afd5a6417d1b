import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiExcludeController, ApiBadRequestResponse, ApiBearerAuth, ApiBody, ApiHeader, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiPropertyOptional, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import type { RunEvent } from '@flowplane/flow/engine';
import { AdminRoute, CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import type { RunRecord } from './run.repository';
import { ListRunsQueryDto, RUNS_PAGE_DEFAULT, RunPageView, type RunSummaryView } from './dto/list-runs.dto';
import { RunsService } from './runs.service';

/** Body of POST /flows/{id}/runs. */
export class StartRunDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The run input: the packet the start node receives.' })
  @IsOptional()
  input?: unknown;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Run metadata (for example session_id for sticky routing).' })
  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Run this version instead of the published one.' })
  @IsOptional()
  @IsString()
  versionId?: string;

  @ApiPropertyOptional({ description: 'Run this variant label of a split publish.' })
  @IsOptional()
  @IsString()
  variant?: string;
}

export class RunResultView {
  @ApiProperty() runId!: string;
  @ApiProperty({ enum: ['running', 'completed', 'rejected', 'failed', 'cancelled'] }) status!: string;
  @ApiPropertyOptional({ description: 'The end node packet.' }) output?: unknown;
  @ApiProperty() versionId!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) error?: Record<string, unknown>;
}

export class RunView extends RunResultView {
  @ApiProperty() flowId!: string;
  @ApiPropertyOptional() variant?: string;
  @ApiProperty() startedBy!: string;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) finishedAt?: string;
  @ApiPropertyOptional() durationMs?: number;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Every run event: node started/completed with ports and durations, condition errors, tokens, the final event.' })
  timeline!: unknown[];
}

const KEEPALIVE_MS = 15_000;

function encodeCursor(at: Date, runId: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), runId])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; runId: string } {
  try {
    const [t, runId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof t === 'number' && Number.isFinite(t) && typeof runId === 'string') return { at: new Date(t), runId };
  } catch {
    /* falls through */
  }
  throw new DomainException('INVALID_CURSOR', 400, 'cursor is not a nextCursor of this listing');
}

/** A run in a listing; fields a run does not have are left out rather than sent as null. */
function summaryView(r: RunRecord): RunSummaryView {
  return {
    runId: r.runId,
    flowId: r.flowId,
    versionId: r.versionId,
    ...(r.variant ? { variant: r.variant } : {}),
    status: r.status,
    startedBy: r.startedBy,
    startedAt: r.startedAt.toISOString(),
    ...(r.finishedAt ? { finishedAt: r.finishedAt.toISOString() } : {}),
    ...(r.durationMs != null ? { durationMs: r.durationMs } : {}),
    ...(r.error ? { error: r.error as unknown as Record<string, unknown> } : {}),
  };
}

/** A run's event stream on a response: its events as SSE frames, then its end. */
export interface RunStream {
  send(e: RunEvent): void;
  end(): void;
  /** The reader went away: no more keep-alive comments. */
  detach(): void;
}

/**
 * Opens a response as Server-Sent Events of run events (`id` = sequence number, so Last-Event-ID
 * resumes exactly), with a keep-alive comment every KEEPALIVE_MS; works on a bare node:http
 * response (the internal runs fast path) as on Express's.
 */
export function openRunStream(res: ServerResponse, options: { coalesce?: boolean } = {}): RunStream {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  // `coalesce` (a service reading the stream, not a person): the head leaves with the first event
  // and the events of one tick (a finished run's replay, a terminal event and the end) in one write.
  if (!options.coalesce) res.flushHeaders();
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  let ended = false;
  let corked = false;
  const uncork = () => {
    if (!corked) return; // end() uncorked already
    corked = false;
    res.uncork();
  };
  return {
    send: (e) => {
      if (options.coalesce && !corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data ?? null)}\n\n`);
    },
    end: () => {
      if (ended) return;
      ended = true;
      clearInterval(keepalive);
      corked = false; // end() fully uncorks the socket
      res.end();
    },
    detach: () => clearInterval(keepalive),
  };
}

/** Writes run events as Server-Sent Events; `onClose` runs when the request closes. */
function openSse(res: Response, req: Request): RunStream & { onClose(fn: () => void): void } {
  const stream = openRunStream(res);
  return {
    ...stream,
    onClose: (fn) =>
      req.once('close', () => {
        stream.detach();
        fn();
      }),
  };
}

@ApiTags('runs')
@ApiBearerAuth()
@Controller()
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post('flows/:id/runs')
  @AdminRoute()
  @ApiOperation({ summary: 'Start a run of the published version (or the given one): waits for the result, streams it as SSE with Accept: text/event-stream, or answers 202 at once with ?wait=false' })
  @ApiBody({ type: StartRunDto })
  @ApiQuery({ name: 'wait', required: false, description: 'false: answer 202 with {runId} at once.' })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({ type: RunResultView })
  @ApiAcceptedResponse({ description: '`{runId}` when wait=false.' })
  async start(
    @Param('id') flowId: string,
    @Body() dto: StartRunDto,
    @Query('wait') wait: string | undefined,
    @Headers('accept') accept: string | undefined,
    @CurrentPrincipal() who: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const started = await this.runs.start(flowId, dto, who.sub);
    res.setHeader('X-Run-Id', started.runId);
    if (accept?.includes('text/event-stream')) {
      const sse = openSse(res, req);
      const stop = await this.runs.follow(started.runId, 0, (e) => sse.send(e), () => sse.end());
      sse.onClose(stop);
      return;
    }
    if (wait === 'false') {
      res.status(202).json({ runId: started.runId, versionId: started.versionId });
      return;
    }
    const r = await started.done;
    res.status(200).json({ runId: r.runId, status: r.status, output: r.output, versionId: r.versionId, error: r.error });
  }

  @Get('runs')
  @AdminRoute()
  @ApiOperation({ summary: 'Runs, newest first, filtered by flow, status and start time; paged with an opaque cursor' })
  @ApiOkResponse({ type: RunPageView })
  @ApiBadRequestResponse({ description: 'An unknown query parameter, an invalid flowId, status, timestamp, limit or cursor, or `from` not before `to`.' })
  async list(@Query() q: ListRunsQueryDto): Promise<RunPageView> {
    const from = q.from ? new Date(q.from) : undefined;
    const to = q.to ? new Date(q.to) : undefined;
    if (from && to && from.getTime() >= to.getTime()) throw new DomainException('INVALID_RANGE', 400, '`from` must be before `to`');
    const page = await this.runs.list({ flowId: q.flowId, status: q.status, from, to }, q.limit ?? RUNS_PAGE_DEFAULT, q.cursor ? decodeCursor(q.cursor) : undefined);
    return { items: page.items.map(summaryView), ...(page.next ? { nextCursor: encodeCursor(page.next.at, page.next.runId) } : {}) };
  }

  @Get('runs/:runId')
  @AdminRoute()
  @ApiOperation({ summary: 'One run: status, output or error, timings' })
  @ApiOkResponse({ type: RunView })
  @ApiNotFoundResponse()
  async get(@Param('runId') runId: string): Promise<RunView> {
    const { run, timeline } = await this.runs.get(runId);
    return {
      runId: run.runId,
      flowId: run.flowId,
      versionId: run.versionId,
      variant: run.variant,
      status: run.status,
      output: run.output,
      error: run.error as unknown as Record<string, unknown> | undefined,
      startedBy: run.startedBy,
      startedAt: run.startedAt.toISOString(),
      finishedAt: run.finishedAt?.toISOString(),
      durationMs: run.durationMs,
      timeline: timeline.map((e) => ({ seq: e.seq, type: e.type, time: new Date(e.time).toISOString(), data: e.data })),
    };
  }

  @Get('runs/:runId/events')
  @AdminRoute()
  @ApiOperation({ summary: 'The run as Server-Sent Events; reconnect with Last-Event-ID to replay exactly what was missed' })
  @ApiHeader({ name: 'Last-Event-ID', required: false })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'Events run.started, node.started, node.completed, token, run.completed, run.failed, run.rejected, run.cancelled (and node.failed, node.warning, node.log, condition.error). The stream ends after the final event.' })
  @ApiNoContentResponse({ description: 'The run has ended and Last-Event-ID is at or past its final event: nothing is left to send (a browser EventSource stops reconnecting on 204).' })
  @ApiNotFoundResponse({ description: 'No run with this id.' })
  async events(@Param('runId') runId: string, @Headers('last-event-id') lastEventId: string | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const parsed = Number.parseInt(lastEventId ?? '0', 10);
    const after = Number.isFinite(parsed) && parsed > 0 ? parsed : 0;
    // Resolves the run first, so an unknown id is a JSON 404, not an empty stream.
    const finalSeq = await this.runs.finalSeq(runId);
    if (finalSeq !== undefined && after > 0 && after >= finalSeq) {
      res.status(204).end();
      return;
    }
    const sse = openSse(res, req);
    const stop = await this.runs.follow(runId, after, (e) => sse.send(e), () => sse.end());
    sse.onClose(stop);
  }

  @Post('runs/:runId/cancel')
  @HttpCode(202)
  @AdminRoute()
  @ApiOperation({ summary: 'Cancel a run in progress' })
  @ApiAcceptedResponse({ description: 'The run is being cancelled; it ends with run.cancelled.' })
  async cancel(@Param('runId') runId: string): Promise<{ runId: string; cancelling: true }> {
    await this.runs.cancel(runId);
    return { runId, cancelling: true };
  }
}

/** Body of POST /internal/runs. */
export class InternalStartRunDto {
  @IsString()
  @MaxLength(200)
  flowId!: string;

  @IsOptional()
  @IsString()
  @MaxLength(250)
  versionId?: string;

  @IsOptional()
  input?: unknown;

  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;

  /** Who the run is for (`user:<sub>`, `anonymous`); the calling service when absent. */
  @IsOptional()
  @IsString()
  @MaxLength(300)
  startedBy?: string;

  /** The label of the deployment variant that chose the flow, recorded as the run's variant. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  deploymentVariant?: string;

  /**
   * Stream only these event types (ids stay the run's sequence numbers, so Last-Event-ID resumes
   * as before); every event when absent. A chat needs the start, tokens and the end, not the
   * node events with their packets, which would be serialized and parsed for nothing.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  events?: string[];
}

/** Passes the events whose type is in `only` (all when undefined) to `send`. */
export function eventFilter(only: readonly string[] | undefined, send: (e: RunEvent) => void): (e: RunEvent) => void {
  if (!only) return send;
  const types = new Set(only);
  return (e) => {
    if (types.has(e.type)) send(e);
  };
}

/** `?events=a,b` of the internal events route: the types to stream, or undefined for every event. */
function eventsQuery(raw: unknown): string[] | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  return raw.split(',').slice(0, 50);
}

/** Body of POST /internal/runs/{runId}/cancel. */
export class InternalCancelRunDto {
  /** Recorded on the run's `run.cancelled` event. */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

/**
 * Runs for services (the assistant's chats): start a run and stream its events in the same
 * response, so the caller learns the run id (`X-Run-Id`) and its version (`X-Version-Id`,
 * `X-Version-Hash`) with the first byte; and resume a run's events after Last-Event-ID.
 */
@Controller('internal/runs')
@ApiExcludeController()
export class InternalRunsController {
  constructor(private readonly runs: RunsService) {}

  @Post()
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.runsStart)
  async start(@Body() dto: InternalStartRunDto, @CurrentPrincipal() who: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    const started = await this.runs.start(dto.flowId, { input: dto.input, meta: dto.meta, versionId: dto.versionId, deploymentVariant: dto.deploymentVariant }, dto.startedBy ?? who.sub);
    res.setHeader('X-Run-Id', started.runId);
    res.setHeader('X-Version-Id', started.versionId);
    res.setHeader('X-Version-Hash', started.versionHash);
    const sse = openSse(res, req);
    const stop = await this.runs.follow(started.runId, 0, eventFilter(dto.events, (e) => sse.send(e)), () => sse.end());
    sse.onClose(stop);
  }

  @Get(':runId/events')
  @Internal(INTERNAL_PERMS.runsRead)
  async events(@Param('runId') runId: string, @Headers('last-event-id') lastEventId: string | undefined, @Query('events') events: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const parsed = Number.parseInt(lastEventId ?? '0', 10);
    const after = Number.isFinite(parsed) && parsed > 0 ? parsed : 0;
    const { run } = await this.runs.get(runId);
    res.setHeader('X-Flow-Id', run.flowId);
    res.setHeader('X-Version-Id', run.versionId);
    const sse = openSse(res, req);
    const stop = await this.runs.follow(runId, after, eventFilter(eventsQuery(events), (e) => sse.send(e)), () => sse.end());
    sse.onClose(stop);
  }

  /** Cancels a run the calling service started; 409 RUN_ENDED when it has ended already. */
  @Post(':runId/cancel')
  @HttpCode(202)
  @Internal(INTERNAL_PERMS.runsCancel)
  async cancel(@Param('runId') runId: string, @Body() dto: InternalCancelRunDto): Promise<{ runId: string; cancelling: true }> {
    await this.runs.cancel(runId, dto.reason ?? 'cancelled by a service');
    return { runId, cancelling: true };
  }
}
