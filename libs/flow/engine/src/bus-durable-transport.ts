import type {
  DurableStepMessage,
  DurableStepResult,
  DurableSubscription,
  DurableTransport,
} from './durable-transport.port';

/**
 * A `DurableTransport` over the platform EventBus, written against the bus' structural shape only
 * (`EventBus` from `@flowplane/platform/bus` fits) so the engine stays framework-free.
 *
 * Steps go to `stepTopic`, keyed by run id (a run's steps keep their order), consumed by ONE shared
 * group: each step runs on one member, and a member that throws or leaves without committing hands
 * it to another (the bus' at-least-once delivery). Results go to `resultTopic`; every engine reads
 * all of them in its own group (`<groupId>-results-<instanceId>`) and keeps those of its runs.
 */

/** The part of the EventBus port the transport uses. */
export interface DurableBus {
  publish(topic: string, data: unknown, options?: { key?: string }): Promise<unknown>;
  subscribe(
    topics: string[],
    options: { groupId: string; fromBeginning?: boolean; maxAttempts?: number; retryDelayMs?: number; concurrency?: number },
    handler: (event: { data: unknown }) => Promise<void>,
  ): Promise<{ stop(): Promise<void> }>;
}

/** Options of `BusDurableTransport`. */
export interface BusDurableTransportOptions {
  /** Names this engine's result group; use the engine's `instanceId`. */
  instanceId: string;
  /** Default `flows.engine.step`. */
  stepTopic?: string;
  /** Default `flows.engine.step_result`. */
  resultTopic?: string;
  /** Consumer group shared by every replica running durable steps; default `flow-engine-steps`. */
  groupId?: string;
  /** Partitions one member runs in parallel (default 4). */
  concurrency?: number;
  /** Deliveries of a step before the bus dead-letters it (bus default when absent). */
  maxAttempts?: number;
  /** First redelivery delay (bus default when absent). */
  retryDelayMs?: number;
}

/** Default topic of durable steps. */
export const DURABLE_STEP_TOPIC = 'flows.engine.step'; // Topics.FlowsEngineStep
/** Default topic of durable step results. */
export const DURABLE_RESULT_TOPIC = 'flows.engine.step_result'; // Topics.FlowsEngineStepResult
/** Default consumer group of durable steps. */
export const DURABLE_STEP_GROUP = 'flow-engine-steps';

export class BusDurableTransport implements DurableTransport {
  readonly stepTopic: string;
  readonly resultTopic: string;
  readonly groupId: string;

  constructor(
    private readonly bus: DurableBus,
    private readonly options: BusDurableTransportOptions,
  ) {
    if (!options.instanceId) throw new TypeError('BusDurableTransport needs an instanceId');
    this.stepTopic = options.stepTopic ?? DURABLE_STEP_TOPIC;
    this.resultTopic = options.resultTopic ?? DURABLE_RESULT_TOPIC;
    this.groupId = options.groupId ?? DURABLE_STEP_GROUP;
  }

  async send(step: DurableStepMessage): Promise<void> {
    await this.bus.publish(this.stepTopic, step, { key: step.runId });
  }

  async sendResult(result: DurableStepResult): Promise<void> {
    await this.bus.publish(this.resultTopic, result, { key: result.runId });
  }

  onStep(handler: (step: DurableStepMessage) => Promise<void>): Promise<DurableSubscription> {
    return this.bus.subscribe(
      [this.stepTopic],
      {
        groupId: this.groupId,
        fromBeginning: true,
        concurrency: this.options.concurrency ?? 4,
        maxAttempts: this.options.maxAttempts,
        retryDelayMs: this.options.retryDelayMs,
      },
      async (event) => {
        // Something that is not a step can never succeed: drop it rather than loop to the DLQ.
        if (!isStep(event.data)) return;
        await handler(event.data);
      },
    );
  }

  onResult(handler: (result: DurableStepResult) => Promise<void>): Promise<DurableSubscription> {
    return this.bus.subscribe(
      [this.resultTopic],
      { groupId: `${this.groupId}-results-${this.options.instanceId}`, fromBeginning: false },
      async (event) => {
        if (!isResult(event.data)) return;
        await handler(event.data);
      },
    );
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStep(v: unknown): v is DurableStepMessage {
  return isRecord(v) && typeof v.stepId === 'string' && typeof v.runId === 'string' && typeof v.nodeId === 'string' && typeof v.versionId === 'string';
}

function isResult(v: unknown): v is DurableStepResult {
  return isRecord(v) && typeof v.stepId === 'string' && typeof v.runId === 'string' && typeof v.originId === 'string' && isRecord(v.outcome);
}
