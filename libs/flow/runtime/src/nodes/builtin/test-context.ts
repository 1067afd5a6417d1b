import type { NodeContext, NodeOutput } from '@flowplane/flow/engine';

/** A NodeContext for calling a handler directly in unit tests. */
export function nodeContext(input: unknown, config: Record<string, unknown> = {}, extra: Partial<NodeContext> = {}): NodeContext {
  return {
    input,
    config,
    runId: 'run-1',
    nodeId: 'n1',
    stepKey: 'run-1:run:n1:1',
    node: { id: 'n1', kind: 'action' },
    meta: {},
    signal: new AbortController().signal,
    emitToken: () => undefined,
    log: () => undefined,
    ...extra,
  };
}

/** Awaits a handler result that is known to be one output. */
export async function single(result: unknown): Promise<NodeOutput> {
  return (await result) as NodeOutput;
}
