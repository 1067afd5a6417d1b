/**
 * The frames of the platform's event streams, typed as discriminated unions on `event`. `id` is the
 * sequence number of the run event a frame comes from (what `Last-Event-ID` resumes after).
 */

/** A link shown under an assistant reply. */
export interface ChatSource {
  title?: string;
  url?: string;
  [key: string]: unknown;
}

/** A button offered with an assistant reply. */
export interface ChatAction {
  label?: string;
  [key: string]: unknown;
}

/** First frame of a chat answer. */
export interface ChatSessionData {
  sessionId: string;
  runId: string;
  flowId: string;
  versionId: string;
  /** The deployment variant the session is routed to. */
  variant: string;
}

/** A piece of a streamed answer (flows with `stream: true` on `svc/llm-chat`). */
export interface ChatTokenData {
  chunk: string;
  index: number;
  nodeId: string;
}

/** Last frame when the run completed or was refused; the turn is stored before it is sent. */
export interface ChatMessageData {
  content: string;
  sources: ChatSource[];
  actions: ChatAction[];
  status: 'completed' | 'rejected';
  /** What the answer could not use (a knowledge index that does not exist, ...). */
  warnings?: string[];
}

/** Last frame when the run failed, timed out or was cancelled; the user turn is kept. */
export interface ChatErrorData {
  code: string;
  message: string;
  errorId: string;
}

/** A frame of `POST /api/v1/assistant/messages` (and of its resume route). */
export type ChatFrame =
  | { event: 'session'; id: number; data: ChatSessionData }
  | { event: 'token'; id: number; data: ChatTokenData }
  | { event: 'message'; id: number; data: ChatMessageData }
  | { event: 'error'; id: number; data: ChatErrorData };

/** Event names of chat frames. */
export const CHAT_EVENTS: ReadonlySet<string> = new Set(['session', 'token', 'message', 'error']);
/** Chat frames after which nothing follows. */
export const CHAT_FINAL_EVENTS: ReadonlySet<string> = new Set(['message', 'error']);

/** Why a run or a step failed. */
export interface RunError {
  code: string;
  message: string;
  nodeId?: string;
  field?: string;
}

/** Data of each run event. */
export interface RunFrameDataMap {
  'run.started': { versionId: string; input: unknown; meta: Record<string, unknown> };
  'run.resumed': { versionId: string; fromCheckpoints: number; restarted: boolean };
  'node.started': { nodeId: string; name?: string; kind: string; actionRef?: string; step: number };
  'node.completed': { nodeId: string; port?: string; ports: string[]; durationMs: number };
  'node.failed': { nodeId: string; error: RunError; durationMs: number; routedTo?: string };
  'node.warning': { nodeId: string; code: string; message: string; key?: string };
  'node.log': { nodeId: string; level: string; message: string; data?: Record<string, unknown> };
  'condition.error': { nodeId: string; edgeId: string; condition: string; error: string };
  token: { nodeId: string; chunk: string; index: number };
  'run.completed': { output: unknown; endNodeId?: string; durationMs: number };
  'run.rejected': { output: unknown; reason?: string; nodeId?: string; durationMs: number };
  'run.failed': { error: RunError; durationMs: number };
  'run.cancelled': { reason?: string; durationMs: number };
}

/** A frame of a run's event stream (`POST /api/v1/flows/{id}/runs` with SSE, `GET /api/v1/runs/{runId}/events`). */
export type RunFrame = { [K in keyof RunFrameDataMap]: { event: K; id: number; data: RunFrameDataMap[K] } }[keyof RunFrameDataMap];

/** Event names of run frames. */
export const RUN_EVENTS: ReadonlySet<string> = new Set<keyof RunFrameDataMap>([
  'run.started',
  'run.resumed',
  'node.started',
  'node.completed',
  'node.failed',
  'node.warning',
  'node.log',
  'condition.error',
  'token',
  'run.completed',
  'run.rejected',
  'run.failed',
  'run.cancelled',
]);
/** Run frames after which nothing follows. */
export const RUN_FINAL_EVENTS: ReadonlySet<string> = new Set(['run.completed', 'run.rejected', 'run.failed', 'run.cancelled']);
