/**
 * What the engine needs from the condition language (spec: "Rules: templates" item 7). The
 * implementation lives in this lib; the engine depends on this shape only.
 */

/** Values a condition can see when an edge is considered. */
export interface ConditionContext {
  /** The output port the handler emitted on (`port`, `output`, `output.name`). */
  port: string;
  /** The step's output packet (`output.<path>`, `packet.<path>`). */
  output: unknown;
  /** The packet that arrived at the step (`input.<path>`). */
  input: unknown;
  /**
   * The `meta` object of the run's input (`meta.<path>`), so that a branch can follow what the
   * caller asked for (for example `meta.intent == 'handoff'`) wherever in the flow it sits.
   * Absent reads as null.
   */
  meta?: unknown;
}

/** Outcome of one evaluation: never throws; an error means the condition counts as false. */
export interface ConditionResult {
  value: boolean;
  error?: string;
}

/** A condition compiled once per flow version. */
export interface CompiledCondition {
  readonly source: string;
  /** Parse error, when the source does not parse (evaluation then always yields false with this error). */
  readonly parseError?: string;
  /** True for an absent condition or the literal `true`: the edge is a default. */
  readonly isDefault: boolean;
  evaluate(ctx: ConditionContext): ConditionResult;
}
