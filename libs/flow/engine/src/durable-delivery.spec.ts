import { MemoryEventBus } from '@flowplane/platform/bus';
import type { FlowDocument } from '@flowplane/flow/ir';
import { BusDurableTransport } from './bus-durable-transport';
import { compileFlow } from './compile-flow';
import { FlowEngine } from './flow-engine';
import type { NodeHandler, NodeManifest } from './node-manifest';
import { NodeRegistry } from './node-registry';
import type { RunEvent } from './run-events';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const document: FlowDocument = {
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'work', kind: 'action', action_ref: 't/work' },
    { id: 'end', kind: 'end' },
    { id: 'oops', kind: 'end', config: { status: 'rejected' } },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'work', delivery_mode: 'durable' },
    { id: 'e2', from: 'work', to: 'end', port: 'out' },
    { id: 'e3', from: 'work', to: 'oops', port: 'Error' },
  ],
};

const manifest: NodeManifest = { id: 't/work', name: 'Work', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }, { port: 'Error' }] };

/** One replica: its own registry and engine over the shared bus. */
async function replica(bus: MemoryEventBus, name: string, handler: NodeHandler, consume = true) {
  const registry = new NodeRegistry().define(manifest, handler);
  const flow = compileFlow(document, registry, { versionId: 'v1' });
  const events: RunEvent[] = [];
  const engine = new FlowEngine({
    instanceId: name,
    durable: new BusDurableTransport(bus, { instanceId: name }),
    consumeDurableSteps: consume,
    loadVersion: (id) => (id === 'v1' ? flow : undefined),
    onEvent: (e) => events.push(e),
  });
  await engine.connect();
  return { name, engine, flow, events };
}

describe('durable delivery over the bus', () => {
  let bus: MemoryEventBus;
  beforeEach(() => {
    bus = MemoryEventBus.silent({ retryDelayMs: 20 });
  });
  afterEach(async () => {
    await bus.close();
  });

  it('runs each durable step on exactly one of two consumers and brings the result home', async () => {
    const ranOn = new Map<string, string[]>();
    const handlerFor = (name: string): NodeHandler => (ctx) => {
      ranOn.set(ctx.runId, [...(ranOn.get(ctx.runId) ?? []), name]);
      ctx.emitToken('tick');
      return { port: 'out', packet: { doubled: (ctx.input as { n: number }).n * 2, by: name } };
    };
    const a = await replica(bus, 'a', handlerFor('a'));
    const b = await replica(bus, 'b', handlerFor('b'));

    const runs = Array.from({ length: 24 }, (_, n) => (n % 2 ? a : b).engine.start((n % 2 ? a : b).flow, { n }));
    const results = await Promise.all(runs.map((r) => r.done));
    results.forEach((r, n) => expect(r).toMatchObject({ status: 'completed', output: { doubled: n * 2 } }));
    expect(ranOn.size).toBe(24);
    for (const r of runs) expect(ranOn.get(r.runId)).toHaveLength(1);
    const perConsumer = [...ranOn.values()].flat();
    expect(perConsumer.filter((x) => x === 'a').length).toBeGreaterThan(0);
    expect(perConsumer.filter((x) => x === 'b').length).toBeGreaterThan(0);

    // The origin's stream holds the remote step's events, re-sequenced in order.
    const runId = runs[1].runId;
    const own = a.events.filter((e) => e.runId === runId);
    expect(own.map((e) => e.type)).toEqual([
      'run.started',
      'node.started', 'node.completed',
      'node.started', 'token', 'node.completed',
      'node.started', 'node.completed',
      'run.completed',
    ]);
    expect(own.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Nothing about another engine's runs leaks into a consumer's own listener.
    expect(b.events.filter((e) => e.runId === runId)).toEqual([]);
    await Promise.all([a.engine.close(), b.engine.close()]);
  });

  it('redelivers a step whose consumer crashed to the other consumer', async () => {
    const calls: string[] = [];
    const keys: string[] = [];
    let hungOn: string | undefined;
    const handlerFor = (name: string): NodeHandler => (ctx) => {
      calls.push(name);
      keys.push(ctx.stepKey);
      if (hungOn === undefined) {
        hungOn = name;
        return new Promise(() => undefined); // the process dies in here
      }
      return { port: 'out', packet: { by: name, input: ctx.input } };
    };
    const origin = await replica(bus, 'origin', () => undefined, false);
    const a = await replica(bus, 'a', handlerFor('a'));
    const b = await replica(bus, 'b', handlerFor('b'));

    const { done } = origin.engine.start(origin.flow, { q: 1 });
    const until = Date.now() + 2000;
    while (hungOn === undefined && Date.now() < until) await delay(2);
    expect(hungOn).toBeDefined();
    const crashed = hungOn === 'a' ? a : b;
    const survivor = hungOn === 'a' ? b : a;
    await crashed.engine.close();

    const result = await done;
    expect(result).toMatchObject({ status: 'completed', output: { by: survivor.name, input: { q: 1 } } });
    expect(calls).toEqual([crashed.name, survivor.name]);
    // The redelivered step is the same step: the same idempotency key on both consumers.
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[0]).toBe(`${result.runId}:run:work:1`);
    await Promise.all([origin.engine.close(), survivor.engine.close()]);
  });

  it('routes a remote handler error to the Error port at the origin', async () => {
    const origin = await replica(bus, 'origin', () => {
      throw new Error('remote boom');
    });
    const result = await origin.engine.start(origin.flow, {}).done;
    expect(result).toMatchObject({ status: 'rejected', endNodeId: 'oops', output: { error: 'remote boom' } });
    expect(origin.events.find((e) => e.type === 'node.failed')?.data).toMatchObject({ nodeId: 'work', routedTo: 'Error' });
    await origin.engine.close();
  });

  it('ignores a duplicate result of a step (at-least-once execution, first result wins)', async () => {
    let calls = 0;
    const origin = await replica(bus, 'origin', (ctx) => ((calls += 1), { port: 'out', packet: ctx.input }));
    const transport = new BusDurableTransport(bus, { instanceId: 'spy', groupId: 'spy-steps' });
    // A second group on the step topic re-sends every step's result as if it had run it too.
    const spy = await transport.onStep(async (step) => {
      await delay(20);
      await transport.sendResult({ stepId: step.stepId, originId: step.originId, runId: step.runId, consumerId: 'spy', events: [], outcome: { kind: 'outputs', outputs: [{ port: 'out', packet: 'dup' }] } });
    });
    const result = await origin.engine.start(origin.flow, { v: 1 }).done;
    expect(result).toMatchObject({ status: 'completed', output: { v: 1 } });
    await delay(60);
    expect(calls).toBe(1);
    await spy.stop();
    await origin.engine.close();
  });

  it('runs a durable step inline, with a warning, when no transport is connected', async () => {
    const registry = new NodeRegistry().define(manifest, (ctx) => ({ port: 'out', packet: ctx.input }));
    const events: RunEvent[] = [];
    const engine = new FlowEngine({ onEvent: (e) => events.push(e) });
    const result = await engine.start(compileFlow(document, registry), 'x').done;
    expect(result).toMatchObject({ status: 'completed', output: 'x' });
    expect(events.some((e) => e.type === 'node.warning' && e.data.code === 'DURABLE_UNAVAILABLE')).toBe(true);
  });
});
