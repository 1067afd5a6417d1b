import type { FlowDocument, FlowEdge, FlowNode } from '@flowplane/flow/ir';
import { compileFlow } from './compile-flow';
import { RunRejectedError } from './engine-errors';
import { FlowEngine, type FlowEngineOptions } from './flow-engine';
import type { NodeContext, NodeHandler, NodeManifest, NodeOutput } from './node-manifest';
import { NodeRegistry } from './node-registry';
import type { RunEvent, RunEventType } from './run-events';

function manifest(id: string, outputs: string[] = ['out'], extra: Partial<NodeManifest> = {}): NodeManifest {
  return { id, name: id, kind: 'action', inputs: [{ port: 'in' }], outputs: outputs.map((port) => ({ port })), ...extra };
}

function doc(nodes: FlowNode[], edges: Array<Omit<FlowEdge, 'id'> & { id?: string }>): FlowDocument {
  return { nodes, edges: edges.map((e, i) => ({ id: e.id ?? `e${i}`, ...e })) };
}

const start: FlowNode = { id: 'start', kind: 'start' };
const end: FlowNode = { id: 'end', kind: 'end' };

/** An engine that records every event. */
function setup(register: (r: NodeRegistry) => void, options: FlowEngineOptions = {}) {
  const registry = new NodeRegistry();
  register(registry);
  const events: RunEvent[] = [];
  const engine = new FlowEngine({ onEvent: (e) => events.push(e), ...options });
  const of = <T extends RunEventType>(type: T) => events.filter((e) => e.type === type) as Array<RunEvent<T>>;
  return { registry, engine, events, of };
}

const out = (packet: unknown, port = 'out'): NodeOutput => ({ port, packet });
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('FlowEngine routing', () => {
  it('runs start → action → end and completes with the end packet; sequence numbers grow by one', async () => {
    const { registry, engine, events } = setup((r) =>
      r.define(manifest('t/greet'), (ctx) => out({ text: `Hello ${(ctx.input as { name: string }).name}` })),
    );
    const flow = compileFlow(doc([start, { id: 'greet', kind: 'action', action_ref: 't/greet' }, end], [
      { from: 'start', to: 'greet' },
      { from: 'greet', to: 'end' },
    ]), registry);
    const { runId, done } = engine.start(flow, { name: 'Ada' }, { user: 'u1' });
    const result = await done;
    expect(result).toMatchObject({ runId, status: 'completed', output: { text: 'Hello Ada' }, endNodeId: 'end', steps: 3 });
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'node.started', 'node.completed',
      'node.started', 'node.completed',
      'node.started', 'node.completed',
      'run.completed',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(result.lastSeq).toBe(8);
    expect(events.every((e) => e.runId === runId)).toBe(true);
    const greet = events.find((e) => e.type === 'node.completed' && e.data.nodeId === 'greet');
    expect(greet?.data).toMatchObject({ port: 'out', ports: ['out'] });
    expect(typeof (greet?.data as { durationMs: number }).durationMs).toBe('number');
  });

  it('fires a default edge only when no conditional edge matched', async () => {
    const seen: string[] = [];
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/score'), (ctx) => out({ score: (ctx.input as { score: number }).score }));
      for (const id of ['high', 'fallback']) r.define(manifest(`t/${id}`), (ctx) => (seen.push(id), out(ctx.input)));
    });
    const flow = compileFlow(doc([
      start,
      { id: 'score', kind: 'action', action_ref: 't/score' },
      { id: 'high', kind: 'action', action_ref: 't/high' },
      { id: 'fallback', kind: 'action', action_ref: 't/fallback' },
      end,
    ], [
      { from: 'start', to: 'score' },
      { from: 'score', to: 'high', condition: 'packet.score > 5' },
      { from: 'score', to: 'fallback' },
      { from: 'high', to: 'end' },
      { from: 'fallback', to: 'end' },
    ]), registry);

    expect(await engine.start(flow, { score: 9 }).done).toMatchObject({ status: 'completed', output: { score: 9 } });
    expect(seen).toEqual(['high']);
    seen.length = 0;
    expect(await engine.start(flow, { score: 1 }).done).toMatchObject({ status: 'completed', output: { score: 1 } });
    expect(seen).toEqual(['fallback']);
  });

  it('treats condition `true` as a default edge', async () => {
    const seen: string[] = [];
    const { registry, engine } = setup((r) => {
      for (const id of ['a', 'b', 'c']) r.define(manifest(`t/${id}`), (ctx) => (seen.push(id), out(ctx.input)));
    });
    const flow = compileFlow(doc([start, ...['a', 'b', 'c'].map((id) => ({ id, kind: 'action' as const, action_ref: `t/${id}` }))], [
      { from: 'start', to: 'a', condition: 'input.x == 1' },
      { from: 'start', to: 'b', condition: 'true' },
      { from: 'start', to: 'c', condition: '' },
    ]), registry);
    await engine.start(flow, { x: 1 }).done;
    expect(seen).toEqual(['a']);
    seen.length = 0;
    await engine.start(flow, { x: 2 }).done;
    expect(seen.sort()).toEqual(['b', 'c']);
  });

  it('routes each output to the edges of its port (multi-port) and by condition on `port`', async () => {
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/classify', ['Yes', 'No']), (ctx) => {
        const v = (ctx.input as { v: number }).v;
        return v > 0 ? out({ v, sign: '+' }, 'Yes') : out({ v, sign: '-' }, 'No');
      });
      r.define(manifest('t/tag', ['out'], { settingsSchema: { type: 'object', properties: { tag: { type: 'string' } } } }), (ctx) =>
        out({ ...(ctx.input as object), tag: ctx.config.tag }),
      );
    });
    const flow = compileFlow(doc([
      start,
      { id: 'classify', kind: 'gateway', action_ref: 't/classify' },
      { id: 'yes', kind: 'action', action_ref: 't/tag', config: { tag: 'yes' } },
      { id: 'no', kind: 'action', action_ref: 't/tag', config: { tag: 'no' } },
      end,
    ], [
      { from: 'start', to: 'classify' },
      { from: 'classify', to: 'yes', port: 'Yes' },
      // Port-less edge selecting its port with a condition (spec rule 6).
      { from: 'classify', to: 'no', condition: 'port == "No"' },
      { from: 'yes', to: 'end' },
      { from: 'no', to: 'end' },
    ]), registry);
    expect((await engine.start(flow, { v: 3 }).done).output).toEqual({ v: 3, sign: '+', tag: 'yes' });
    expect((await engine.start(flow, { v: -3 }).done).output).toEqual({ v: -3, sign: '-', tag: 'no' });
  });

  it('routes several outputs of one step, each on its own port', async () => {
    const reached: string[] = [];
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/split', ['A', 'B']), () => [out(1, 'A'), out(2, 'B')]);
      r.define(manifest('t/sink'), (ctx) => void reached.push(`${ctx.nodeId}:${String(ctx.input)}`));
    });
    const flow = compileFlow(doc([
      start,
      { id: 'split', kind: 'action', action_ref: 't/split' },
      { id: 'a', kind: 'action', action_ref: 't/sink' },
      { id: 'b', kind: 'action', action_ref: 't/sink' },
    ], [
      { from: 'start', to: 'split' },
      { from: 'split', to: 'a', port: 'A' },
      { from: 'split', to: 'b', port: 'B' },
    ]), registry);
    const result = await engine.start(flow, null).done;
    expect(result.status).toBe('completed');
    expect(reached.sort()).toEqual(['a:1', 'b:2']);
  });

  it('fans out in parallel to every matching conditional edge', async () => {
    const timeline: string[] = [];
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/slow'), async (ctx) => {
        timeline.push(`start ${ctx.nodeId}`);
        await delay(30);
        timeline.push(`end ${ctx.nodeId}`);
      });
    });
    const flow = compileFlow(doc([
      start,
      { id: 'x', kind: 'action', action_ref: 't/slow' },
      { id: 'y', kind: 'action', action_ref: 't/slow' },
      { id: 'z', kind: 'action', action_ref: 't/slow' },
    ], [
      { from: 'start', to: 'x', condition: 'input.go == true' },
      { from: 'start', to: 'y', condition: 'input.go == true' },
      { from: 'start', to: 'z' },
    ]), registry);
    const result = await engine.start(flow, { go: true }).done;
    expect(result.status).toBe('completed');
    expect(result.output).toBeUndefined();
    // Both branches started before either finished, and z (a default) never ran.
    expect(timeline.slice(0, 2).sort()).toEqual(['start x', 'start y']);
    expect(timeline).not.toContain('start z');
  });

  it('passes the packet on unchanged when an edge has no packet (inheritance, no coercion)', async () => {
    const packet = { n: '42', list: { 0: 'a' }, nested: { deep: [1, '2'] } };
    let received: unknown;
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/emit'), () => out(packet));
      r.define(manifest('t/recv'), (ctx) => ((received = ctx.input), out(ctx.input)));
    });
    const flow = compileFlow(doc([start, { id: 'emit', kind: 'action', action_ref: 't/emit' }, { id: 'recv', kind: 'action', action_ref: 't/recv' }, end], [
      { from: 'start', to: 'emit' },
      { from: 'emit', to: 'recv' },
      { from: 'recv', to: 'end', packet: 'SomePacket' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(received).toBe(packet);
    expect(result.output).toBe(packet);
  });

  it('gives the first end node the run; other branches are aborted', async () => {
    let slowAborted = false;
    const { registry, engine, of } = setup((r) => {
      r.define(manifest('t/slow'), async (ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        slowAborted = ctx.signal.aborted;
        return out('late');
      });
    });
    const flow = compileFlow(doc([start, { id: 'slow', kind: 'action', action_ref: 't/slow' }, { id: 'end2', kind: 'end' }, end], [
      { from: 'start', to: 'end' },
      { from: 'start', to: 'slow' },
      { from: 'slow', to: 'end2' },
    ]), registry);
    const result = await engine.start(flow, 'fast').done;
    expect(result).toMatchObject({ status: 'completed', output: 'fast', endNodeId: 'end' });
    await delay(5);
    expect(slowAborted).toBe(true);
    expect(of('run.completed')).toHaveLength(1);
    // Nothing is emitted after the final event.
    expect(of('node.completed').some((e) => e.data.nodeId === 'slow')).toBe(false);
  });

  it('ends the run as rejected on an end node with config status "rejected"', async () => {
    const { registry, engine, of } = setup(() => undefined);
    const flow = compileFlow(doc([start, { id: 'refuse', kind: 'end', config: { status: 'rejected' } }], [{ from: 'start', to: 'refuse' }]), registry);
    const result = await engine.start(flow, { reply: 'no' }).done;
    expect(result).toMatchObject({ status: 'rejected', output: { reply: 'no' } });
    expect(of('run.rejected')[0].data).toMatchObject({ output: { reply: 'no' }, nodeId: 'refuse' });
  });

  it('ends the run as rejected when a handler throws RunRejectedError', async () => {
    const { registry, engine, of } = setup((r) => {
      r.define(manifest('t/guard', ['out', 'Error']), () => {
        throw new RunRejectedError('unsafe input', { reply: 'I cannot help with that.' });
      });
    });
    const flow = compileFlow(doc([start, { id: 'guard', kind: 'action', action_ref: 't/guard' }, end], [
      { from: 'start', to: 'guard' },
      { from: 'guard', to: 'end' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'rejected', reason: 'unsafe input', output: { reply: 'I cannot help with that.' } });
    expect(of('run.rejected')).toHaveLength(1);
  });

  it('completes with no output when every branch ends without an end node', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/noop'), () => undefined));
    const flow = compileFlow(doc([start, { id: 'n', kind: 'action', action_ref: 't/noop' }], [{ from: 'start', to: 'n' }]), registry);
    const result = await engine.start(flow, 1).done;
    expect(result.status).toBe('completed');
    expect(result.output).toBeUndefined();
    expect(result.endNodeId).toBeUndefined();
  });

  it('fails a run that reaches a broken node (unknown action_ref) and lists it at compile time', async () => {
    const { registry, engine } = setup(() => undefined);
    const flow = compileFlow(doc([start, { id: 'x', kind: 'action', action_ref: 'svc/missing' }, end], [
      { from: 'start', to: 'x' },
      { from: 'x', to: 'end' },
    ]), registry);
    expect(flow.broken).toEqual([{ nodeId: 'x', actionRef: 'svc/missing' }]);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'BROKEN_NODE', nodeId: 'x' } });
  });

  it('fails a flow without start node', async () => {
    const { registry, engine } = setup(() => undefined);
    const flow = compileFlow(doc([], []), registry);
    expect(await engine.start(flow, {}).done).toMatchObject({ status: 'failed', error: { code: 'NO_START_NODE' } });
  });
});

describe('FlowEngine handler errors', () => {
  const failing: NodeHandler = () => {
    throw new Error('smtp refused');
  };

  it('sends {error} on the Error port when the manifest declares one', async () => {
    const { registry, engine, of } = setup((r) => r.define(manifest('t/email', ['Sent', 'Error']), failing));
    const flow = compileFlow(doc([start, { id: 'email', kind: 'action', action_ref: 't/email' }, { id: 'ok', kind: 'end' }, { id: 'bad', kind: 'end' }], [
      { from: 'start', to: 'email' },
      { from: 'email', to: 'ok', port: 'Sent' },
      { from: 'email', to: 'bad', port: 'Error' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'completed', endNodeId: 'bad', output: { error: 'smtp refused' } });
    expect(of('node.failed')[0].data).toMatchObject({ nodeId: 'email', routedTo: 'Error', error: { message: 'smtp refused' } });
  });

  it('fails the run with the error recorded when there is no Error port', async () => {
    const { registry, engine, of } = setup((r) => r.define(manifest('t/boom', ['out']), failing));
    const flow = compileFlow(doc([start, { id: 'boom', kind: 'action', action_ref: 't/boom' }, end], [
      { from: 'start', to: 'boom' },
      { from: 'boom', to: 'end' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'NODE_ERROR', message: 'smtp refused', nodeId: 'boom' } });
    expect(of('run.failed')[0].data.error).toMatchObject({ message: 'smtp refused', nodeId: 'boom' });
  });

  it('fails the run when the Error port exists but no edge leaves it; async rejections and non-Error throws too', async () => {
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/async', ['out', 'Error']), async () => Promise.reject('plain string'));
      r.define(manifest('t/bad-output'), () => ({ nope: true }) as unknown as NodeOutput);
    });
    const a = compileFlow(doc([start, { id: 'n', kind: 'action', action_ref: 't/async' }, end], [{ from: 'start', to: 'n' }, { from: 'n', to: 'end', port: 'out' }]), registry);
    expect(await engine.start(a, {}).done).toMatchObject({ status: 'failed', error: { message: 'plain string' } });
    const b = compileFlow(doc([start, { id: 'n', kind: 'action', action_ref: 't/bad-output' }, end], [{ from: 'start', to: 'n' }, { from: 'n', to: 'end' }]), registry);
    expect(await engine.start(b, {}).done).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('invalid output') } });
  });

  it('fails the run when every edge of the failing node selects another port by condition', async () => {
    const { registry, engine, of } = setup((r) => r.define(manifest('t/remote', ['out', 'Error']), failing));
    // Rule 6 style: one edge per port, each with a condition selecting it; nobody drew the Error edge.
    const flow = compileFlow(doc([start, { id: 'call', kind: 'action', action_ref: 't/remote' }, end], [
      { from: 'start', to: 'call' },
      { from: 'call', to: 'end', condition: 'port == "out"' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'NODE_ERROR', message: 'smtp refused', nodeId: 'call' } });
    expect(of('node.failed')[0].data).not.toHaveProperty('routedTo');
  });

  it('routes a failure along a conditional edge that selects the Error port', async () => {
    const { registry, engine, of } = setup((r) => r.define(manifest('t/remote', ['out', 'Error']), failing));
    const flow = compileFlow(doc([start, { id: 'call', kind: 'action', action_ref: 't/remote' }, { id: 'ok', kind: 'end' }, { id: 'bad', kind: 'end' }], [
      { from: 'start', to: 'call' },
      { from: 'call', to: 'ok', condition: 'port == "out"' },
      { from: 'call', to: 'bad', condition: 'port == "Error" && output.error != null' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'completed', endNodeId: 'bad', output: { error: 'smtp refused' } });
    expect(of('node.failed')[0].data).toMatchObject({ routedTo: 'Error' });
  });

  it('never lets an ephemeral branch failure affect the run', async () => {
    let mailsTried = 0;
    const { registry, engine, of } = setup((r) => {
      r.define(manifest('t/mail'), async () => {
        mailsTried++;
        throw new Error('mail server down');
      });
      r.define(manifest('t/reply'), async (ctx) => {
        await delay(10);
        return out({ reply: `echo ${String((ctx.input as { q: string }).q)}` });
      });
    });
    const flow = compileFlow(doc([
      start,
      { id: 'mail', kind: 'action', action_ref: 't/mail' },
      { id: 'mail-end', kind: 'end', config: { status: 'rejected' } },
      { id: 'reply', kind: 'action', action_ref: 't/reply' },
      end,
    ], [
      { from: 'start', to: 'mail', delivery_mode: 'ephemeral' },
      { from: 'mail', to: 'mail-end' },
      { from: 'start', to: 'reply' },
      { from: 'reply', to: 'end' },
    ]), registry);
    const result = await engine.start(flow, { q: 'hi' }).done;
    expect(result).toMatchObject({ status: 'completed', output: { reply: 'echo hi' } });
    expect(mailsTried).toBe(1);
    expect(of('node.failed').map((e) => e.data.nodeId)).toEqual(['mail']);
  });

  it('does not wait for ephemeral branches and lets them finish after the run completed', async () => {
    let finished = false;
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/slow-mail'), async () => {
        await delay(30);
        finished = true;
      });
    });
    const flow = compileFlow(doc([start, { id: 'mail', kind: 'action', action_ref: 't/slow-mail' }, end], [
      { from: 'start', to: 'mail', delivery_mode: 'ephemeral' },
      { from: 'start', to: 'end' },
    ]), registry);
    const result = await engine.start(flow, 'x').done;
    expect(result.status).toBe('completed');
    expect(finished).toBe(false);
    await delay(50);
    expect(finished).toBe(true);
  });

  it('an ephemeral branch reaching an end node does not end the run', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/wait'), async (ctx) => (await delay(15), out(ctx.input))));
    const flow = compileFlow(doc([start, { id: 'side-end', kind: 'end' }, { id: 'w', kind: 'action', action_ref: 't/wait' }, end], [
      { from: 'start', to: 'side-end', delivery_mode: 'ephemeral' },
      { from: 'start', to: 'w' },
      { from: 'w', to: 'end' },
    ]), registry);
    expect(await engine.start(flow, 'main').done).toMatchObject({ status: 'completed', endNodeId: 'end' });
  });
});

describe('FlowEngine guards', () => {
  it('fails a cycle with a clear error once max steps are exceeded', async () => {
    let loops = 0;
    const { registry, engine, of } = setup((r) => r.define(manifest('t/loop'), (ctx) => (loops++, out(ctx.input))), { maxSteps: 50 });
    const flow = compileFlow(doc([start, { id: 'a', kind: 'action', action_ref: 't/loop' }, { id: 'b', kind: 'action', action_ref: 't/loop' }], [
      { from: 'start', to: 'a' },
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('MAX_STEPS');
    expect(result.error?.message).toMatch(/exceeded 50 steps .*loops/);
    expect(loops).toBe(49);
    expect(of('run.failed')).toHaveLength(1);
  });

  it('uses the default max steps of 1000', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/loop'), (ctx) => out(ctx.input)));
    const flow = compileFlow(doc([start, { id: 'a', kind: 'action', action_ref: 't/loop' }], [{ from: 'start', to: 'a' }, { from: 'a', to: 'a' }]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'MAX_STEPS' }, steps: 1001 });
  });

  it('times a step out (engine default), aborting its signal; the Error port takes it when declared', async () => {
    let signalReason: unknown;
    const { registry, engine } = setup(
      (r) => {
        const hang: NodeHandler = (ctx) =>
          new Promise<NodeOutput>((_resolve, reject) => ctx.signal.addEventListener('abort', () => ((signalReason = ctx.signal.reason), reject(new Error('gave up')))));
        r.define(manifest('t/hang'), hang);
        r.define(manifest('t/hang-err', ['out', 'Error']), hang);
      },
      { nodeTimeoutMs: 40 },
    );
    const a = compileFlow(doc([start, { id: 'h', kind: 'action', action_ref: 't/hang' }, end], [{ from: 'start', to: 'h' }, { from: 'h', to: 'end' }]), registry);
    const t0 = Date.now();
    const result = await engine.start(a, {}).done;
    expect(Date.now() - t0).toBeLessThan(500);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'NODE_TIMEOUT', nodeId: 'h', message: 'node "h" timed out after 40 ms' } });
    expect((signalReason as Error).name).toBe('NodeTimeoutError');

    const b = compileFlow(doc([start, { id: 'h', kind: 'action', action_ref: 't/hang-err' }, end], [{ from: 'start', to: 'h' }, { from: 'h', to: 'end', port: 'Error' }]), registry);
    expect(await engine.start(b, {}).done).toMatchObject({ status: 'completed', output: { error: 'node "h" timed out after 40 ms' } });
  });

  it('prefers the manifest timeout over the engine default', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/slowish', ['out'], { timeoutMs: 20 }), async () => (await delay(200), out(1))), { nodeTimeoutMs: 10_000 });
    const flow = compileFlow(doc([start, { id: 's', kind: 'action', action_ref: 't/slowish' }, end], [{ from: 'start', to: 's' }, { from: 's', to: 'end' }]), registry);
    expect(await engine.start(flow, {}).done).toMatchObject({ status: 'failed', error: { code: 'NODE_TIMEOUT' } });
  });

  it('cancels a run: status cancelled, handlers see their signal aborted, nothing runs after', async () => {
    let aborted = false;
    let after = false;
    const { registry, engine, of } = setup((r) => {
      r.define(manifest('t/wait'), (ctx) =>
        new Promise<NodeOutput>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve(out('ignored'));
          });
        }),
      );
      r.define(manifest('t/after'), () => void (after = true));
    });
    const flow = compileFlow(doc([start, { id: 'w', kind: 'action', action_ref: 't/wait' }, { id: 'after', kind: 'action', action_ref: 't/after' }], [
      { from: 'start', to: 'w' },
      { from: 'w', to: 'after' },
    ]), registry);
    const { runId, done } = engine.start(flow, {});
    await delay(10);
    expect(engine.runStatus(runId)).toBe('running');
    expect(engine.cancel(runId, 'user left')).toBe(true);
    const result = await done;
    expect(result).toMatchObject({ status: 'cancelled', reason: 'user left' });
    await delay(5);
    expect(aborted).toBe(true);
    expect(after).toBe(false);
    expect(of('run.cancelled')[0].data.reason).toBe('user left');
    expect(engine.cancel(runId)).toBe(false);
    expect(engine.runStatus(runId)).toBeUndefined();
  });

  it('fails a run from outside with the given error: status failed, run.failed event, steps aborted', async () => {
    let aborted = false;
    const { registry, engine, of } = setup((r) =>
      r.define(manifest('t/wait'), (ctx) => new Promise<NodeOutput>((resolve) => ctx.signal.addEventListener('abort', () => ((aborted = true), resolve(out('ignored')))))),
    );
    const flow = compileFlow(doc([start, { id: 'w', kind: 'action', action_ref: 't/wait' }, end], [{ from: 'start', to: 'w' }, { from: 'w', to: 'end' }]), registry);
    const { runId, done } = engine.start(flow, {});
    await delay(10);
    expect(engine.fail(runId, { code: 'RUN_EVENTS_NOT_PERSISTED', message: 'store down' })).toBe(true);
    expect(await done).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED', message: 'store down' } });
    await delay(5);
    expect(aborted).toBe(true);
    expect(of('run.failed')[0].data.error.code).toBe('RUN_EVENTS_NOT_PERSISTED');
    expect(of('run.completed')).toEqual([]);
    expect(engine.fail(runId, { code: 'X', message: 'again' })).toBe(false);
  });

  it('cancels through StartOptions.signal', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/forever'), () => new Promise<void>(() => undefined)));
    const flow = compileFlow(doc([start, { id: 'f', kind: 'action', action_ref: 't/forever' }], [{ from: 'start', to: 'f' }]), registry);
    const controller = new AbortController();
    const { done } = engine.start(flow, {}, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    expect((await done).status).toBe('cancelled');
  });

  it('reports a condition that fails to parse, skips its edge and falls back to the default', async () => {
    const reports: unknown[] = [];
    const reached: string[] = [];
    const { registry, engine, of } = setup(
      (r) => r.define(manifest('t/mark'), (ctx) => (reached.push(ctx.nodeId), out(ctx.input))),
      { onConditionError: (rep) => reports.push(rep) },
    );
    const flow = compileFlow(doc([start, { id: 'bad', kind: 'action', action_ref: 't/mark' }, { id: 'good', kind: 'action', action_ref: 't/mark' }, end], [
      { id: 'broken-edge', from: 'start', to: 'bad', condition: 'len(packet.items) > 2' },
      { from: 'start', to: 'good' },
      { from: 'good', to: 'end' },
      { from: 'bad', to: 'end' },
    ]), registry);
    expect(flow.warnings.some((w) => w.code === 'CONDITION_PARSE_ERROR' && w.edgeId === 'broken-edge')).toBe(true);
    const result = await engine.start(flow, { items: [1, 2, 3] }).done;
    expect(result.status).toBe('completed');
    expect(reached).toEqual(['good']);
    const ev = of('condition.error');
    expect(ev).toHaveLength(1);
    expect(ev[0].data).toMatchObject({ nodeId: 'start', edgeId: 'broken-edge', condition: 'len(packet.items) > 2' });
    expect(ev[0].data.error).toMatch(/function calls/);
    expect(reports).toEqual([expect.objectContaining({ runId: result.runId, edgeId: 'broken-edge' })]);
  });

  it('keeps going when an injected condition throws while evaluating', async () => {
    const { registry, engine, of } = setup(() => undefined);
    const flow = compileFlow(
      doc([start, { id: 'a', kind: 'end' }, { id: 'b', kind: 'end' }], [
        { from: 'start', to: 'a', condition: 'explode' },
        { from: 'start', to: 'b' },
      ]),
      registry,
      {
        compileCondition: (source) => ({
          source,
          isDefault: false,
          evaluate: () => {
            throw new Error('kaboom');
          },
        }),
      },
    );
    expect(await engine.start(flow, 1).done).toMatchObject({ status: 'completed', endNodeId: 'b' });
    expect(of('condition.error')[0].data.error).toBe('kaboom');
  });

  it('swallows listener and hook exceptions', async () => {
    const registry = new NodeRegistry();
    const engine = new FlowEngine({
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    const flow = compileFlow(doc([start, end], [{ from: 'start', to: 'end' }]), registry);
    expect(await engine.start(flow, 7, {}, { onEvent: () => { throw new Error('also'); } }).done).toMatchObject({ status: 'completed', output: 7 });
  });

  it('refuses a duplicate run id and runs after close, without throwing', async () => {
    const { registry, engine } = setup((r) => r.define(manifest('t/forever'), () => new Promise<void>(() => undefined)));
    const flow = compileFlow(doc([start, { id: 'f', kind: 'action', action_ref: 't/forever' }], [{ from: 'start', to: 'f' }]), registry);
    const first = engine.start(flow, {}, {}, { runId: 'r1' });
    expect(await engine.start(flow, {}, {}, { runId: 'r1' }).done).toMatchObject({ status: 'failed', error: { code: 'DUPLICATE_RUN' } });
    await engine.close();
    expect(await first.done).toMatchObject({ status: 'failed', interrupted: true, error: { code: 'ENGINE_CLOSED' } });
    expect(await engine.start(flow, {}).done).toMatchObject({ status: 'failed', error: { code: 'ENGINE_CLOSED' } });
  });
});

describe('FlowEngine streaming', () => {
  it('emits tokens as they arrive and hands the downstream node the final packet and the chunks', async () => {
    const seenTokensAt: number[] = [];
    let downstream: { input?: unknown; tokens?: readonly string[] } = {};
    const { registry, engine, events, of } = setup((r) => {
      r.define(manifest('t/llm'), async function* (ctx: NodeContext) {
        for (const t of ['Hel', 'lo', ' world']) {
          await delay(5);
          yield { token: t };
          seenTokensAt.push(events.length);
        }
        ctx.emitToken('!');
        yield out({ text: 'Hello world!' });
      });
      r.define(manifest('t/guard'), (ctx) => ((downstream = { input: ctx.input, tokens: ctx.upstreamTokens }), out(ctx.input)));
    });
    const flow = compileFlow(doc([start, { id: 'llm', kind: 'action', action_ref: 't/llm' }, { id: 'guard', kind: 'action', action_ref: 't/guard' }, end], [
      { from: 'start', to: 'llm' },
      { from: 'llm', to: 'guard', delivery_mode: 'stream' },
      { from: 'guard', to: 'end' },
    ]), registry);
    const result = await engine.start(flow, {}).done;
    expect(result).toMatchObject({ status: 'completed', output: { text: 'Hello world!' } });
    const tokens = of('token');
    expect(tokens.map((t) => t.data.chunk)).toEqual(['Hel', 'lo', ' world', '!']);
    expect(tokens.map((t) => t.data.index)).toEqual([0, 1, 2, 3]);
    // Every token event went out before the streaming node completed.
    const llmCompleted = events.findIndex((e) => e.type === 'node.completed' && e.data.nodeId === 'llm');
    expect(tokens.every((t) => events.indexOf(t) < llmCompleted)).toBe(true);
    expect(downstream).toEqual({ input: { text: 'Hello world!' }, tokens: ['Hel', 'lo', ' world', '!'] });
  });

  it('stops iterating a stream on cancel and calls the generator finally', async () => {
    let cleaned = false;
    const { registry, engine } = setup((r) => {
      r.define(manifest('t/endless'), async function* () {
        try {
          for (;;) {
            await delay(2);
            yield { token: '.' };
          }
        } finally {
          cleaned = true;
        }
      });
    });
    const flow = compileFlow(doc([start, { id: 's', kind: 'action', action_ref: 't/endless' }], [{ from: 'start', to: 's' }]), registry);
    const { runId, done } = engine.start(flow, {});
    await delay(15);
    engine.cancel(runId);
    expect((await done).status).toBe('cancelled');
    await delay(10);
    expect(cleaned).toBe(true);
  });

  it('logs to the timeline through ctx.log', async () => {
    const { registry, engine, of } = setup((r) => r.define(manifest('t/log'), (ctx) => (ctx.log('thinking', { a: 1 }), ctx.log('careful', undefined, 'warn'), out(ctx.meta.user))));
    const flow = compileFlow(doc([start, { id: 'l', kind: 'action', action_ref: 't/log' }, end], [{ from: 'start', to: 'l' }, { from: 'l', to: 'end' }]), registry);
    expect((await engine.start(flow, {}, { user: 'bob' }).done).output).toBe('bob');
    expect(of('node.log').map((e) => [e.data.level, e.data.message])).toEqual([['info', 'thinking'], ['warn', 'careful']]);
  });
});
