/**
 * Errors handlers throw on purpose and errors the engine records. None of them ever leaves the
 * engine: they end up in a run result, a run event or an Error port packet.
 */

/**
 * Thrown by a handler to end the run as `rejected` (a guard or refusal path): the run stops at
 * once with `packet` as its output, the node's Error port is not used.
 */
export class RunRejectedError extends Error {
  readonly code = 'RUN_REJECTED';
  constructor(
    readonly reason: string,
    readonly packet?: unknown,
  ) {
    super(reason);
    this.name = 'RunRejectedError';
  }
}

/** A step that ran past its timeout (its signal is aborted with this error). */
export class NodeTimeoutError extends Error {
  readonly code = 'NODE_TIMEOUT';
  constructor(
    readonly nodeId: string,
    readonly timeoutMs: number,
  ) {
    super(`node ${JSON.stringify(nodeId)} timed out after ${timeoutMs} ms`);
    this.name = 'NodeTimeoutError';
  }
}

/** The signal reason of steps stopped because their run ended (cancelled, or another branch finished it). */
export class RunAbortedError extends Error {
  readonly code = 'RUN_ABORTED';
  constructor(message: string) {
    super(message);
    this.name = 'RunAbortedError';
  }
}

/** The signal reason of steps stopped by `engine.close()`. */
export class EngineClosedError extends Error {
  readonly code = 'ENGINE_CLOSED';
  constructor() {
    super('flow engine closed');
    this.name = 'EngineClosedError';
  }
}

/** A message and a stable code for anything thrown. */
export function describeThrown(error: unknown): { code: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' && code ? code : 'NODE_ERROR', message: error.message || error.name };
  }
  if (typeof error === 'string') return { code: 'NODE_ERROR', message: error };
  try {
    return { code: 'NODE_ERROR', message: JSON.stringify(error) ?? String(error) };
  } catch {
    return { code: 'NODE_ERROR', message: String(error) };
  }
}
