import type { FlowDocument, FlowEdge, FlowNode } from '@flowplane/flow/ir';
import { compileFlow } from './compile-flow';
import { FlowEngine } from './flow-engine';
import type { NodeManifest } from './node-manifest';
import { NodeRegistry } from './node-registry';

/** Edge conditions read `meta.<path>` from the run input's `meta`, wherever the edge sits in the flow. */

const manifest = (id: string, outputs = ['out']): NodeManifest => ({ id, name: id, kind: 'action', inputs: [{ port: 'in' }], outputs: outputs.map((port) => ({ port })) });
const doc = (nodes: FlowNode[], edges: Array<Omit<FlowEdge, 'id'>>): FlowDocument => ({ nodes, edges: edges.map((e, i) => ({ id: `e${i}`, ...e })) });
const start: FlowNode = { id: 'start', kind: 'start' };
const end: FlowNode = { id: 'end', kind: 'end' };

function assistantShape() {
  const registry = new NodeRegistry();
  // The first step drops `meta` from the packet, so only the run input can answer the condition.
  registry.define(manifest('t/strip'), (ctx) => ({ port: 'out', packet: { text: (ctx.input as { text: string }).text } }));
  registry.define(manifest('t/handoff'), () => ({ port: 'out', packet: { branch: 'handoff' } }));
  registry.define(manifest('t/chat'), () => ({ port: 'out', packet: { branch: 'chat' } }));
  const flow = compileFlow(
    doc(
      [start, { id: 'strip', kind: 'action', action_ref: 't/strip' }, { id: 'handoff', kind: 'action', action_ref: 't/handoff' }, { id: 'chat', kind: 'action', action_ref: 't/chat' }, end],
      [
        { from: 'start', to: 'strip' },
        { from: 'strip', to: 'handoff', condition: "meta.intent == 'handoff'" },
        { from: 'strip', to: 'chat' },
        { from: 'handoff', to: 'end' },
        { from: 'chat', to: 'end' },
      ],
    ),
    registry,
  );
  return { flow, engine: new FlowEngine() };
}

describe('edge conditions on meta', () => {
  it("takes the handoff branch when the run input's meta.intent is handoff", async () => {
    const { flow, engine } = assistantShape();
    const result = await engine.start(flow, { text: 'a human please', meta: { intent: 'handoff', email: 'a@b.co' } }).done;
    expect(result).toMatchObject({ status: 'completed', output: { branch: 'handoff' } });
  });

  it('takes the default branch for another intent, no meta, or a run input that is not an object', async () => {
    const { flow, engine } = assistantShape();
    expect((await engine.start(flow, { text: 'hi', meta: { intent: 'chat' } }).done).output).toEqual({ branch: 'chat' });
    expect((await engine.start(flow, { text: 'hi' }).done).output).toEqual({ branch: 'chat' });
    const events: string[] = [];
    const quiet = new FlowEngine({ onEvent: (e) => events.push(e.type) });
    const r = await quiet.start(flow, { text: 'hi', meta: 'not an object' }).done;
    expect(r.output).toEqual({ branch: 'chat' });
    expect(events).not.toContain('edge.condition_error');
  });

  it('does not read the run meta (the launcher’s own meta) as meta', async () => {
    const { flow, engine } = assistantShape();
    const result = await engine.start(flow, { text: 'hi' }, { intent: 'handoff' } as never).done;
    expect(result.output).toEqual({ branch: 'chat' });
  });

  it("routes a failure to the Error port when an Error edge's condition on meta holds", async () => {
    const registry = new NodeRegistry();
    registry.define({ ...manifest('t/fail', ['out', 'Error']) }, () => {
      throw new Error('boom');
    });
    registry.define(manifest('t/recover'), () => ({ port: 'out', packet: { recovered: true } }));
    const flow = compileFlow(
      doc(
        [start, { id: 'fail', kind: 'action', action_ref: 't/fail' }, { id: 'recover', kind: 'action', action_ref: 't/recover' }, end],
        [
          { from: 'start', to: 'fail' },
          { from: 'fail', to: 'recover', port: 'Error', condition: 'meta.retry == true' } as Omit<FlowEdge, 'id'>,
          { from: 'fail', to: 'end', port: 'out' } as Omit<FlowEdge, 'id'>,
          { from: 'recover', to: 'end' },
        ],
      ),
      registry,
    );
    const engine = new FlowEngine();
    expect(await engine.start(flow, { meta: { retry: true } }).done).toMatchObject({ status: 'completed', output: { recovered: true } });
    expect((await engine.start(flow, { meta: { retry: false } }).done).status).toBe('failed');
  });
});
