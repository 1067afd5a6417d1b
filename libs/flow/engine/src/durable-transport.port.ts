import type { NodeOutput, RunMeta } from './node-manifest';
import type { RunError, RunEventDataMap, RunEventType } from './run-events';

/**
 * `durable` edges: the packet crosses a transport and the next step runs at least once on any
 * consumer (replica). The run itself stays with the engine that started it (the origin): it
 * sends the step, a consumer runs that ONE node (config, profiles, timeout and Error port included)
 * and sends back the outputs and the events it produced; the origin re-sequences the events into
 * the run's stream and routes the outputs. A consumer that crashes mid-step never acknowledges it,
 * so the transport redelivers it; the origin keeps the first result of a step and ignores the rest.
 */

/** A step sent over a durable edge. JSON-serialisable. */
export interface DurableStepMessage {
  /** Unique per send; results are matched (and deduplicated) by it. */
  stepId: string;
  /** Instance id of the engine that owns the run. */
  originId: string;
  runId: string;
  versionId: string;
  /** The node to run. */
  nodeId: string;
  edgeId: string;
  packet: unknown;
  meta: RunMeta;
  /** The `meta` object of the run's input, for edge conditions on `meta.<path>` (absent from older senders). */
  inputMeta?: unknown;
  upstreamTokens?: string[];
  /** The run's step number of this step (for `node.started`). */
  step: number;
  /** The step's `NodeContext.stepKey` (absent from older senders: the consumer then uses `stepId`). */
  stepKey?: string;
}

/** An event produced by a remote step, before the origin gives it a sequence number. */
export interface DurableStepEvent<T extends RunEventType = RunEventType> {
  type: T;
  data: RunEventDataMap[T];
  time: number;
}

/** How a step ended, as it travels back to the origin. */
export type DurableStepOutcome =
  | { kind: 'outputs'; outputs: NodeOutput[]; tokens?: string[] }
  | { kind: 'end'; status: 'completed' | 'rejected'; packet: unknown }
  | { kind: 'rejected'; packet: unknown; reason: string }
  | { kind: 'failed'; error: RunError };

/** The answer of a consumer to one step. */
export interface DurableStepResult {
  stepId: string;
  originId: string;
  runId: string;
  /** Instance id of the consumer that ran the step. */
  consumerId: string;
  events: DurableStepEvent[];
  outcome: DurableStepOutcome;
}

/** A live subscription of a transport. */
export interface DurableSubscription {
  stop(): Promise<void>;
}

/**
 * The transport port. `onStep` handlers are shared by every consumer (each step goes to one of
 * them); a handler that rejects leaves the step unacknowledged, to be redelivered. `onResult`
 * handlers see every result (each engine keeps its own runs' results).
 */
export interface DurableTransport {
  send(step: DurableStepMessage): Promise<void>;
  onStep(handler: (step: DurableStepMessage) => Promise<void>): Promise<DurableSubscription>;
  sendResult(result: DurableStepResult): Promise<void>;
  onResult(handler: (result: DurableStepResult) => Promise<void>): Promise<DurableSubscription>;
}
