import type { NodeKind } from '@flowplane/flow/ir';
import type { NodeLogLevel, RunMeta } from './node-manifest';

/**
 * What a run reports while it executes. Every event of a run carries a sequence number that grows
 * by one per event of that run, starting at 1: the HTTP layer uses it as the SSE `id` so a client
 * reconnecting with `Last-Event-ID` gets exactly what it missed.
 */

/** Status of a run. `running` is the only non-final one. */
export type RunStatus = 'running' | 'completed' | 'rejected' | 'failed' | 'cancelled';

/** A final status. */
export type FinalRunStatus = Exclude<RunStatus, 'running'>;

/** Why a run or a step failed. `code` is stable (`NODE_ERROR`, `NODE_TIMEOUT`, `MAX_STEPS`, ...). */
export interface RunError {
  code: string;
  message: string;
  /** The node where it happened, when one did. */
  nodeId?: string;
  /** The node config key at fault (`INVALID_NODE_CONFIG`), as a JSON pointer inside the config. */
  field?: string;
}

/** Data of each event type. */
export interface RunEventDataMap {
  'run.started': { versionId: string; input: unknown; meta: RunMeta };
  /** A run taken over from its checkpoints (`engine.resume`), possibly by another engine instance. */
  'run.resumed': { versionId: string; fromCheckpoints: number; restarted: boolean };
  'node.started': { nodeId: string; name?: string; kind: NodeKind; actionRef?: string; step: number };
  /** `port` is the first output's port (absent when the handler emitted nothing); `ports` lists every output. */
  'node.completed': { nodeId: string; port?: string; ports: string[]; durationMs: number };
  /** A step that threw or timed out; `routedTo` is `Error` when its Error port took it over. */
  'node.failed': { nodeId: string; error: RunError; durationMs: number; routedTo?: string };
  'node.warning': { nodeId: string; code: string; message: string; key?: string };
  'node.log': { nodeId: string; level: NodeLogLevel; message: string; data?: Record<string, unknown> };
  /** A condition that did not parse or evaluate: the edge was skipped; the run goes on. */
  'condition.error': { nodeId: string; edgeId: string; condition: string; error: string };
  'token': { nodeId: string; chunk: string; index: number };
  'run.completed': { output: unknown; endNodeId?: string; durationMs: number };
  'run.rejected': { output: unknown; reason?: string; nodeId?: string; durationMs: number };
  'run.failed': { error: RunError; durationMs: number };
  'run.cancelled': { reason?: string; durationMs: number };
}

/** Every event type. */
export type RunEventType = keyof RunEventDataMap;

/** One run event. `time` is epoch milliseconds. */
export type RunEvent<T extends RunEventType = RunEventType> = {
  [K in T]: { runId: string; seq: number; time: number; type: K; data: RunEventDataMap[K] };
}[T];

/** Receives run events; a throwing listener is ignored (it never affects the run). */
export type RunEventListener = (event: RunEvent) => void;

/** How a run ended. */
export interface RunResult {
  runId: string;
  versionId: string;
  status: FinalRunStatus;
  /** The end node's packet (completed, rejected); undefined when no end node was reached. */
  output?: unknown;
  error?: RunError;
  /** Rejection reason, when a handler gave one. */
  reason?: string;
  /** The end node that finished the run. */
  endNodeId?: string;
  /** Steps executed (every node execution, ephemeral branches included). */
  steps: number;
  /** Sequence number of the run's last event. */
  lastSeq: number;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /**
   * True when the engine was closed under the run (status `failed`, code `ENGINE_CLOSED`): no final
   * event was emitted and checkpoints were kept, so another instance can resume it.
   */
  interrupted?: boolean;
}

/** A started run. `done` never rejects. */
export interface RunHandle {
  runId: string;
  done: Promise<RunResult>;
}

/** A condition error as reported to the `onConditionError` hook. */
export interface ConditionErrorReport {
  runId: string;
  nodeId: string;
  edgeId: string;
  condition: string;
  error: string;
}
