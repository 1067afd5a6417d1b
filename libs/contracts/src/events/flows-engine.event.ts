import { IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Min, IsArray } from 'class-validator';

/**
 * Payloads of the flow engine's `durable` delivery mode (our own topics): a step crosses the bus
 * to any flow-runtime replica and its result comes back to the replica that owns the run. The
 * engine's `DurableStepMessage` / `DurableStepResult` (libs/flow/engine) are these shapes.
 */

/** What identifies a durable step on both topics: the send, the engine owning the run, the run. */
abstract class FlowsEngineStepRef {
  /** Unique per send; results are matched and de-duplicated by it. */
  @IsString()
  @IsNotEmpty()
  stepId!: string;

  /** Instance id of the engine that owns the run. */
  @IsString()
  @IsNotEmpty()
  originId!: string;

  @IsString()
  @IsNotEmpty()
  runId!: string;
}

/** Payload of `flows.engine.step`: one node to run, at least once, on any replica. */
export class FlowsEngineStepPayload extends FlowsEngineStepRef {

  @IsString()
  @IsNotEmpty()
  versionId!: string;

  @IsString()
  @IsNotEmpty()
  nodeId!: string;

  @IsString()
  @IsNotEmpty()
  edgeId!: string;

  /** The packet the node receives (any JSON). */
  @IsOptional()
  packet?: unknown;

  /** The run's `Meta`. */
  @IsObject()
  meta!: Record<string, unknown>;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  upstreamTokens?: string[];

  @IsInt()
  @Min(0)
  step!: number;

  /** The step's idempotency key (`NodeContext.stepKey`), the same when a resumed run sends it again. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  stepKey?: string;
}

/** Payload of `flows.engine.step_result`: how a durable step ended, with the events it produced. */
export class FlowsEngineStepResultPayload extends FlowsEngineStepRef {
  /** Instance id of the engine that ran the step. */
  @IsString()
  @IsNotEmpty()
  consumerId!: string;

  /** Run events the step produced (`{type, data, time}`), re-sequenced by the origin. */
  @IsArray()
  @IsObject({ each: true })
  events!: Array<Record<string, unknown>>;

  /** `{kind: outputs|end|rejected|failed, ...}`. */
  @IsObject()
  outcome!: Record<string, unknown>;
}
