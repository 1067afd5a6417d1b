import type { FlowDocument } from '@flowplane/flow/ir';
import { MemoryCheckpointStore, type CheckpointStep } from './checkpoint-store.port';
import { compileFlow, type CompiledFlow } from './compile-flow';
import { FlowEngine } from './flow-engine';
import type { NodeHandler, NodeManifest } from './node-manifest';
import { NodeRegistry } from './node-registry';
import type { RunEvent } from './run-events';

const manifest = (id: string): NodeManifest => ({ id, name: id, kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] });
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = () => new Promise<never>(() => undefined);

/**
 * One "process": a registry whose handlers count their calls, and an engine over the shared store.
 * `hang` makes a node never answer, as a process that dies in the middle of that step.
 */
function processOver(store: MemoryCheckpointStore, document: FlowDocument, hang: string[] = []) {
  const calls: string[] = [];
  const keys: Array<[string, string]> = [];
  const registry = new NodeRegistry();
  const handler: NodeHandler = (ctx) => {
    calls.push(ctx.nodeId);
    keys.push([ctx.nodeId, ctx.stepKey]);
    if (hang.includes(ctx.nodeId)) return never();
    const input = ctx.input as { trail: string[] };
    return { port: 'out', packet: { trail: [...input.trail, ctx.nodeId] } };
  };
  for (const id of ['t/step']) registry.define(manifest(id), handler);
  const flow = compileFlow(document, registry, { versionId: 'v1' });
  const events: RunEvent[] = [];
  const engine = new FlowEngine({ checkpoints: store, onEvent: (e) => events.push(e), nodeTimeoutMs: 0, loadVersion: (id) => (id === 'v1' ? flow : undefined) });
  return { engine, flow, calls, keys, events };
}

const linear: FlowDocument = {
  nodes: [
    { id: 'start', kind: 'start' },
    { id: 'charge', kind: 'action', action_ref: 't/step' },
    { id: 'notify', kind: 'action', action_ref: 't/step' },
    { id: 'end', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'charge', delivery_mode: 'checkpoint' },
    { id: 'e2', from: 'charge', to: 'notify', delivery_mode: 'checkpoint' },
    { id: 'e3', from: 'notify', to: 'end' },
  ],
};

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await delay(2);
  }
}

describe('checkpoint delivery and resume', () => {
  it('persists the packet before the next step runs', async () => {
    const store = new MemoryCheckpointStore();
    const order: string[] = [];
    const save = store.save.bind(store);
    store.save = async (runId: string, step: CheckpointStep) => {
      await delay(10);
      await save(runId, step);
      order.push(`saved ${step.nodeId}`);
    };
    const p = processOver(store, linear);
    const registry = new NodeRegistry().define(manifest('t/step'), (ctx) => {
      order.push(`ran ${ctx.nodeId}`);
      return { port: 'out', packet: ctx.input };
    });
    const flow = compileFlow(linear, registry, { versionId: 'v1' });
    const result = await p.engine.start(flow, { trail: [] }).done;
    expect(result.status).toBe('completed');
    expect(order).toEqual(['saved charge', 'ran charge', 'saved notify', 'ran notify']);
    // A finished run leaves nothing to resume.
    expect(await store.pending()).toEqual([]);
  });

  it('resumes a crashed run from its last checkpoint on a new engine instance', async () => {
    const store = new MemoryCheckpointStore();
    const first = processOver(store, linear, ['notify']);
    const { runId } = first.engine.start(first.flow, { trail: [] }, { user: 'u1' });
    await waitFor(() => first.calls.includes('notify'));
    // The process dies here: the engine instance is simply dropped, mid-step.
    expect(await store.pending()).toEqual([runId]);
    const lastSeqBeforeCrash = first.events[first.events.length - 1].seq;

    const second = processOver(store, linear);
    const handles = await second.engine.resumeAll();
    expect(handles.map((h) => h.runId)).toEqual([runId]);
    const result = await handles[0].done;
    expect(result).toMatchObject({ runId, status: 'completed', output: { trail: ['charge', 'notify'] }, versionId: 'v1' });
    // `charge` ran once, before the crash; only the step after the last checkpoint ran again.
    expect(first.calls).toEqual(['charge', 'notify']);
    expect(second.calls).toEqual(['notify']);
    const resumed = second.events.find((e) => e.type === 'run.resumed');
    expect(resumed?.data).toEqual({ versionId: 'v1', fromCheckpoints: 1, restarted: false });
    expect(resumed!.seq).toBeGreaterThan(first.events.find((e) => e.type === 'node.started' && e.data.nodeId === 'charge')!.seq);
    expect(resumed!.seq).toBeLessThanOrEqual(lastSeqBeforeCrash + 1);
    const seqs = second.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(await store.pending()).toEqual([]);
  });

  it('gives a step run again after a crash the step key it had, and every other step its own', async () => {
    const document: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'charge', kind: 'action', action_ref: 't/step' },
        { id: 'notify', kind: 'action', action_ref: 't/step' },
        { id: 'audit', kind: 'action', action_ref: 't/step' },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'charge', delivery_mode: 'checkpoint' },
        { id: 'e2', from: 'charge', to: 'notify', delivery_mode: 'checkpoint' },
        { id: 'e3', from: 'notify', to: 'audit' },
        { id: 'e4', from: 'audit', to: 'end' },
      ],
    };
    const store = new MemoryCheckpointStore();
    const first = processOver(store, document, ['audit']);
    const { runId } = first.engine.start(first.flow, { trail: [] });
    await waitFor(() => first.calls.includes('audit'));
    const second = processOver(store, document);
    const [handle] = await second.engine.resumeAll();
    expect((await handle.done).status).toBe('completed');
    // notify and audit ran in both processes (after the last checkpoint), with the same keys.
    expect(second.keys).toEqual(first.keys.filter(([id]) => id !== 'charge'));
    const all = new Set(first.keys.map(([, key]) => key));
    expect(all.size).toBe(3);
    for (const key of all) expect(key.startsWith(`${runId}:`)).toBe(true);
    // Another run of the same version gets other keys.
    const other = processOver(new MemoryCheckpointStore(), document);
    await other.engine.start(other.flow, { trail: [] }).done;
    for (const [, key] of other.keys) expect(all.has(key)).toBe(false);
  });

  it('gives each arrival at a node its own step key (a join reached by two branches)', async () => {
    const document: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'a', kind: 'action', action_ref: 't/step' },
        { id: 'b', kind: 'action', action_ref: 't/step' },
        { id: 'join', kind: 'action', action_ref: 't/step' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'a' },
        { id: 'e2', from: 'start', to: 'b' },
        { id: 'e3', from: 'a', to: 'join' },
        { id: 'e4', from: 'b', to: 'join' },
      ],
    };
    const p = processOver(new MemoryCheckpointStore(), document);
    await p.engine.start(p.flow, { trail: [] }).done;
    const joins = p.keys.filter(([id]) => id === 'join').map(([, key]) => key);
    expect(joins).toHaveLength(2);
    expect(new Set(joins).size).toBe(2);
  });

  it('continues sequence numbers after the caller-supplied nextSeq', async () => {
    const store = new MemoryCheckpointStore();
    const first = processOver(store, linear, ['notify']);
    const { runId } = first.engine.start(first.flow, { trail: [] });
    await waitFor(() => first.calls.includes('notify'));
    const second = processOver(store, linear);
    const handle = await second.engine.resume(runId, { nextSeq: 100 });
    await handle!.done;
    expect(second.events[0]).toMatchObject({ type: 'run.resumed', seq: 100 });
  });

  it('restarts from the start nodes a run that crashed before its first checkpoint', async () => {
    const store = new MemoryCheckpointStore();
    const document: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'prepare', kind: 'action', action_ref: 't/step' },
        { id: 'commit', kind: 'action', action_ref: 't/step' },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'prepare' },
        { id: 'e2', from: 'prepare', to: 'commit', delivery_mode: 'checkpoint' },
        { id: 'e3', from: 'commit', to: 'end' },
      ],
    };
    const first = processOver(store, document, ['prepare']);
    const { runId } = first.engine.start(first.flow, { trail: [] });
    await waitFor(() => first.calls.includes('prepare'));
    const second = processOver(store, document);
    const handle = await second.engine.resume(runId);
    expect(await handle!.done).toMatchObject({ status: 'completed', output: { trail: ['prepare', 'commit'] } });
    expect(second.events.find((e) => e.type === 'run.resumed')?.data).toMatchObject({ restarted: true, fromCheckpoints: 0 });
  });

  it('does not run a fanned-out checkpointed branch twice when the start branch is re-run', async () => {
    const store = new MemoryCheckpointStore();
    const document: FlowDocument = {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'audit', kind: 'action', action_ref: 't/step' },
        { id: 'work', kind: 'action', action_ref: 't/step' },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'to-audit', from: 'start', to: 'audit', delivery_mode: 'checkpoint' },
        { id: 'to-work', from: 'start', to: 'work' },
        { id: 'done', from: 'work', to: 'end' },
      ],
    };
    const first = processOver(store, document, ['work']);
    const { runId } = first.engine.start(first.flow, { trail: [] });
    await waitFor(() => first.calls.includes('work') && first.calls.includes('audit'));
    await delay(5);
    const second = processOver(store, document);
    const handle = await second.engine.resume(runId);
    expect(await handle!.done).toMatchObject({ status: 'completed', output: { trail: ['work'] } });
    // The start branch was not handed off (work never finished), so it ran again, but the audit
    // checkpoint it re-created had the same id as the saved one and was not run a second time.
    expect(first.calls.sort()).toEqual(['audit', 'work']);
    expect(second.calls).toEqual(['work']);
  });

  it('interrupts runs on close and lets another instance resume them; a lease keeps a second resumer out', async () => {
    const store = new MemoryCheckpointStore();
    const first = processOver(store, linear, ['notify']);
    const { runId, done } = first.engine.start(first.flow, { trail: [] });
    await waitFor(() => first.calls.includes('notify'));
    await first.engine.close();
    expect(await done).toMatchObject({ status: 'failed', interrupted: true, error: { code: 'ENGINE_CLOSED' } });
    expect(first.events.some((e) => e.type === 'run.failed')).toBe(false);

    const second = processOver(store, linear, ['notify']);
    const third = processOver(store, linear);
    const h2 = await second.engine.resume(runId);
    expect(h2).toBeDefined();
    expect(await third.engine.resume(runId)).toBeUndefined();
    // The second owner dies too; once its lease is released, the third takes over.
    await second.engine.close();
    store.release(runId);
    const h3 = await third.engine.resume(runId);
    expect(await h3!.done).toMatchObject({ status: 'completed', output: { trail: ['charge', 'notify'] } });
  });

  it('fails a resumed run whose version is unknown', async () => {
    const store = new MemoryCheckpointStore();
    await store.begin({ runId: 'r-old', versionId: 'v-gone', input: {}, meta: {}, startedAt: Date.now() });
    const engine = new FlowEngine({ checkpoints: store });
    const [handle] = await engine.resumeAll();
    expect(await handle.done).toMatchObject({ status: 'failed', versionId: 'v-gone', error: { code: 'UNKNOWN_VERSION' } });
    expect(await store.pending()).toEqual([]);
  });

  it('fails the run when a checkpoint cannot be saved', async () => {
    const store = new MemoryCheckpointStore();
    store.save = () => Promise.reject(new Error('disk full'));
    const p = processOver(store, linear);
    const result = await p.engine.start(p.flow, { trail: [] }).done;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CHECKPOINT_FAILED', message: expect.stringContaining('disk full') } });
    expect(p.calls).toEqual([]);
  });

  it('treats checkpoint edges as direct without a store', async () => {
    const registry = new NodeRegistry().define(manifest('t/step'), (ctx) => ({ port: 'out', packet: ctx.input }));
    const flow: CompiledFlow = compileFlow(linear, registry);
    expect(flow.hasCheckpoints).toBe(true);
    expect(await new FlowEngine().start(flow, { trail: [] }).done).toMatchObject({ status: 'completed' });
  });
});
