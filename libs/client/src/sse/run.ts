import { gatewayOrigin, guardedFetch } from '../api/client';
import { FlowplaneApiError } from '../errors';
import { openOrThrow, type StreamCommonOptions, streamHeaders } from './chat';
import { RUN_EVENTS, RUN_FINAL_EVENTS, type RunFrame } from './frames';
import { type FrameStream, linkedController, ResumableStream } from './stream';

/** Options of {@link streamRun}: either `flowId` (start a run) or `runId` (follow one). */
export type StreamRunOptions = StreamCommonOptions &
  (
    | {
        /** Starts a run of this flow's published version (or `versionId`, or `variant`). */
        flowId: string;
        input?: unknown;
        meta?: Record<string, unknown>;
        versionId?: string;
        variant?: string;
        runId?: undefined;
      }
    | {
        /** Follows a run that was started elsewhere (`?wait=false`, a schedule, an event). */
        runId: string;
        /** Only the frames after this one (what an earlier stream's `lastEventId` said). */
        lastEventId?: string | number;
        flowId?: undefined;
      }
  );

/** A run's event stream. */
export interface RunStream extends FrameStream<RunFrame> {
  /** The run (`X-Run-Id` of a started run). */
  readonly runId: string;
}

/**
 * Streams a flow run's events as typed frames (`run.started`, `node.*`, `token`, then one of
 * `run.completed`, `run.rejected`, `run.failed`, `run.cancelled`). With `flowId` it starts a run
 * (`POST /api/v1/flows/{id}/runs` with `Accept: text/event-stream`); with `runId` it follows one
 * (`GET /api/v1/runs/{runId}/events`). Both need a token with `admin:access`.
 *
 * A refusal before the stream opens rejects with {@link FlowplaneApiError}; a dropped connection
 * resumes from `GET /api/v1/runs/{runId}/events` with `Last-Event-ID` (204, the run ended with
 * nothing after the last frame, ends the iteration).
 *
 * @example
 * ```ts
 * const run = await streamRun({ baseUrl, token, flowId: 'hello', input: { name: 'Ada' } });
 * for await (const f of run) if (f.event === 'run.completed') console.log(f.data.output);
 * ```
 */
export async function streamRun(options: StreamRunOptions): Promise<RunStream> {
  const origin = gatewayOrigin(options.baseUrl);
  const fetch = guardedFetch(options.fetch);
  const controller = linkedController(options.signal);
  const events = (runId: string, lastEventId: string | undefined, signal: AbortSignal) =>
    (async () => {
      const h = await streamHeaders(options, lastEventId ? { 'last-event-id': lastEventId } : {});
      return fetch(new Request(`${origin}/api/v1/runs/${encodeURIComponent(runId)}/events`, { headers: h, signal }));
    })();
  let first: Response;
  let runId: string;
  try {
    if (options.flowId !== undefined) {
      const { flowId, input, meta, versionId, variant } = options;
      const body = JSON.stringify({ input: input ?? {}, ...(meta ? { meta } : {}), ...(versionId ? { versionId } : {}), ...(variant ? { variant } : {}) });
      const headers = await streamHeaders(options, { 'content-type': 'application/json' });
      first = await openOrThrow(fetch, new Request(`${origin}/api/v1/flows/${encodeURIComponent(flowId)}/runs`, { method: 'POST', headers, body, signal: controller.signal }));
      runId = first.headers.get('x-run-id') ?? '';
    } else {
      runId = options.runId;
      const after = options.lastEventId === undefined ? undefined : String(options.lastEventId);
      first = await events(runId, after, controller.signal);
      if (!first.ok) throw await FlowplaneApiError.fromResponse(first);
    }
  } catch (e) {
    controller.abort();
    throw e;
  }
  const stream = new ResumableStream<RunFrame>(
    // 204: the run ended and nothing follows the frame asked for.
    first.status === 204 ? null : first,
    controller,
    { known: RUN_EVENTS, final: RUN_FINAL_EVENTS, resume: (last, signal) => (runId ? events(runId, last, signal) : undefined) },
    options,
  );
  return Object.defineProperty(stream, 'runId', { value: runId, enumerable: true }) as ResumableStream<RunFrame> & RunStream;
}
