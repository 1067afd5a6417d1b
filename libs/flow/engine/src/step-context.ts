import type { NodeContext, NodeInfo, NodeLogLevel, RunMeta } from './node-manifest';
import type { RunEventDataMap, RunEventType } from './run-events';

/**
 * Internals of one step: where its events go, its abort state and the context its handler sees.
 * Not exported from the lib.
 */

/** Where a step reports: a local run, or a durable step being run for a remote origin. */
export interface StepHost {
  readonly runId: string;
  readonly meta: RunMeta;
  /** The `meta` object of the run's input (edge conditions read it as `meta.<path>`). */
  readonly inputMeta: unknown;
  emit<T extends RunEventType>(type: T, data: RunEventDataMap[T]): void;
  add(step: StepState): void;
  remove(step: StepState): void;
}

/**
 * Abort state of one step. The `AbortController` is created only when the handler reads
 * `ctx.signal` (most handlers never do), so an ordinary step costs no controller.
 */
export class StepState {
  reason?: Error;
  finished = false;
  tokenIndex = 0;
  readonly tokens?: string[];
  timer?: NodeJS.Timeout;
  private controller?: AbortController;
  private interrupt?: (reason: Error) => void;

  constructor(
    readonly ephemeral: boolean,
    collectTokens: boolean,
  ) {
    if (collectTokens) this.tokens = [];
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Stops the step: its signal fires and whatever it awaits (handler, profile) is abandoned. */
  abort(reason: Error): void {
    if (this.finished || this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    const interrupt = this.interrupt;
    this.interrupt = undefined;
    interrupt?.(reason);
  }

  /** `promise`, unless the step is aborted first (then the abort reason rejects). */
  race<T>(promise: PromiseLike<T>): Promise<T> {
    if (this.reason) return Promise.reject(this.reason);
    return new Promise<T>((resolve, reject) => {
      this.interrupt = reject;
      promise.then(resolve, reject);
    });
  }

  finish(): void {
    this.finished = true;
    this.interrupt = undefined;
    if (this.timer) clearTimeout(this.timer);
  }
}

/** The `ctx` of a handler. */
export class StepContext implements NodeContext {
  constructor(
    readonly input: unknown,
    readonly config: Readonly<Record<string, unknown>>,
    readonly node: NodeInfo,
    readonly upstreamTokens: readonly string[] | undefined,
    private readonly host: StepHost,
    private readonly step: StepState,
    readonly stepKey: string,
  ) {}

  get runId(): string {
    return this.host.runId;
  }

  get nodeId(): string {
    return this.node.id;
  }

  get meta(): RunMeta {
    return this.host.meta;
  }

  get signal(): AbortSignal {
    return this.step.signal;
  }

  emitToken(chunk: string): void {
    if (this.step.finished || this.step.reason) return;
    const text = typeof chunk === 'string' ? chunk : String(chunk);
    this.step.tokens?.push(text);
    this.host.emit('token', { nodeId: this.node.id, chunk: text, index: this.step.tokenIndex++ });
  }

  log(message: string, data?: Record<string, unknown>, level: NodeLogLevel = 'info'): void {
    if (this.step.finished) return;
    this.host.emit('node.log', { nodeId: this.node.id, level, message, data });
  }
}
