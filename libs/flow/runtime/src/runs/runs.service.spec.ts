import { Logger } from '@nestjs/common';
import { NodeRegistry, type NodeOutput } from '@flowplane/flow/engine';
import type { FlowDocument } from '@flowplane/flow/ir';
import type { ServiceConfig, ServiceContext } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import type { FlowsService } from '../flows/flows.service';
import type { FlowVersion } from '../flows/flow.entities';
import { RunRepository } from './run.repository';
import { RunsService } from './runs.service';

/** A flow start -> <node> -> end, published as flow `f`. */
function versionOf(actionRef: string): FlowVersion {
  const document: FlowDocument = {
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'step', kind: 'action', action_ref: actionRef },
      { id: 'end', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'step' },
      { id: 'e2', from: 'step', to: 'end' },
    ],
  };
  return { versionId: `f-${actionRef.replace(/\W/g, '')}@v1`, flowId: 'f', number: 1, hash: 'h', document, warnings: [], createdAt: new Date(), createdBy: 'test' };
}

describe('RunsService when run events cannot be stored', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  let store: Store;
  let runs: RunsService;
  let repo: RunRepository;
  const versions = new Map<string, FlowVersion>();

  beforeEach(async () => {
    store = createMemoryStore();
    const config = { PORT: 0, RUN_RETENTION_DAYS: 1, FLOW_CHECKPOINT_LEASE_MS: 30_000, FLOW_NODE_TIMEOUT_MS: 5_000, FLOW_MAX_STEPS: 100 } as unknown as ServiceConfig;
    const ctx = { name: 'flow-runtime', config, env: {}, serviceUrls: {} } as ServiceContext;
    const registry = new NodeRegistry();
    registry.define({ id: 't/echo', name: 'echo', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, (c): NodeOutput => ({ port: 'out', packet: c.input }));
    // Runs until its signal aborts (a long step, like a model call).
    registry.define({ id: 't/wait', name: 'wait', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, (c) =>
      new Promise<NodeOutput>((resolve) => c.signal.addEventListener('abort', () => resolve({ port: 'out', packet: 'aborted' }))),
    );
    for (const v of [versionOf('t/echo'), versionOf('t/wait')]) versions.set(v.versionId, v);
    const flows = { getVersion: async (_flowId: string, versionId: string) => versions.get(versionId)! } as unknown as FlowsService;
    repo = new RunRepository(store, config);
    await repo.onModuleInit();
    runs = new RunsService(flows, repo, registry, store, ctx);
    await runs.onApplicationBootstrap();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await runs.onApplicationShutdown();
    await store.close();
  });

  it('stops a run in progress and records it failed with RUN_EVENTS_NOT_PERSISTED', async () => {
    jest.spyOn(store.collection('run_event_batches'), 'insertOne').mockRejectedValue(new Error('disk full'));
    const started = await runs.start('f', { versionId: 'f-twait@v1' }, 'alice');
    const result = await Promise.race([started.done, new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 3000))]);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED' } });
    expect(await repo.get(started.runId)).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED' } });
  });

  it('records a run failed when its last events cannot be stored after it completed', async () => {
    jest.spyOn(store.collection('run_event_batches'), 'insertOne').mockRejectedValue(new Error('disk full'));
    const started = await runs.start('f', { versionId: 'f-techo@v1', input: { a: 1 } }, 'alice');
    expect(await started.done).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED' } });
    expect(await repo.get(started.runId)).toMatchObject({ status: 'failed', error: { code: 'RUN_EVENTS_NOT_PERSISTED' } });
  });

  it('records a run failed without its output when the output cannot be stored', async () => {
    // An output nested too deep for JSON.stringify (a node can build one even when request bodies cannot).
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    jest.spyOn(repo, 'appendEvents').mockResolvedValue();
    const started = await runs.start('f', { versionId: 'f-techo@v1', input: deep }, 'alice');
    expect(await started.done).toMatchObject({ status: 'failed' });
    const stored = await repo.get(started.runId);
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'RUN_RESULT_NOT_PERSISTED' } });
    expect(stored?.output ?? undefined).toBeUndefined();
  });

  it('still records an ordinary run as completed', async () => {
    const started = await runs.start('f', { versionId: 'f-techo@v1', input: { a: 1 } }, 'alice');
    expect(await started.done).toMatchObject({ status: 'completed', output: { a: 1 } });
    expect(await repo.get(started.runId)).toMatchObject({ status: 'completed', output: { a: 1 } });
    expect((await runs.get(started.runId)).timeline.at(-1)?.type).toBe('run.completed');
  });
});

describe('RunsService streams and listings', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  let store: Store;
  let runs: RunsService;
  let repo: RunRepository;
  let gate: Promise<void>;
  let openGate: () => void;

  beforeEach(async () => {
    store = createMemoryStore();
    const config = { PORT: 0, RUN_RETENTION_DAYS: 1, FLOW_CHECKPOINT_LEASE_MS: 30_000, FLOW_NODE_TIMEOUT_MS: 5_000, FLOW_MAX_STEPS: 100 } as unknown as ServiceConfig;
    const ctx = { name: 'flow-runtime', config, env: {}, serviceUrls: {} } as ServiceContext;
    const registry = new NodeRegistry();
    registry.define({ id: 't/echo', name: 'echo', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, (c): NodeOutput => ({ port: 'out', packet: c.input }));
    registry.define({ id: 't/gate', name: 'gate', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, async (c): Promise<NodeOutput> => {
      await gate;
      return { port: 'out', packet: c.input };
    });
    gate = new Promise((r) => (openGate = r));
    const byId = new Map([versionOf('t/echo'), versionOf('t/gate')].map((v) => [v.versionId, v]));
    const flows = { getVersion: async (_flowId: string, versionId: string) => byId.get(versionId)! } as unknown as FlowsService;
    repo = new RunRepository(store, config);
    await repo.onModuleInit();
    runs = new RunsService(flows, repo, registry, store, ctx);
    await runs.onApplicationBootstrap();
  });

  afterEach(async () => {
    await runs.onApplicationShutdown();
    await store.close();
  });

  /** Follows a run from `afterSeq`; resolves with what was sent once the stream ends (or 'open' after 500 ms). */
  async function followed(runId: string, afterSeq: number): Promise<string[] | 'open'> {
    const sent: string[] = [];
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve('open'), 500);
      void runs.follow(runId, afterSeq, (e) => sent.push(e.type), () => {
        clearTimeout(timer);
        resolve(sent);
      });
    });
  }

  it('ends a stream at once when the reader is at or past the final event of an ended run', async () => {
    const started = await runs.start('f', { versionId: 'f-techo@v1', input: { a: 1 } }, 'alice');
    await started.done;
    const final = await runs.finalSeq(started.runId);
    expect(final).toBe((await runs.get(started.runId)).timeline.at(-1)?.seq);
    expect(await followed(started.runId, final!)).toEqual([]);
    expect(await followed(started.runId, final! + 50)).toEqual([]);
    expect(await followed(started.runId, final! - 1)).toEqual(['run.completed']);
  });

  it('knows no final event while a run is going, and answers 404 for an unknown run', async () => {
    const started = await runs.start('f', { versionId: 'f-tgate@v1', input: { a: 1 } }, 'alice');
    expect(await runs.finalSeq(started.runId)).toBeUndefined();
    openGate();
    await started.done;
    expect(await runs.finalSeq(started.runId)).toEqual(expect.any(Number));
    await expect(runs.finalSeq('nope')).rejects.toMatchObject({ status: 404 });
  });

  it('lists runs newest first in pages, by flow, status and start time', async () => {
    const base = Date.parse('2030-01-01T00:00:00Z');
    const seed = async (runId: string, flowId: string, minutes: number, status: 'completed' | 'failed') => {
      await repo.insert({ runId, flowId, versionId: `${flowId}@v1`, status: 'running', startedBy: 'alice', startedAt: new Date(base + minutes * 60_000), lastSeq: 0 });
      await repo.finish(runId, { status, finishedAt: new Date(base + minutes * 60_000 + 10), durationMs: 10, lastSeq: 3, output: { big: 'x'.repeat(1000) } });
    };
    await seed('r1', 'a', 1, 'completed');
    await seed('r2', 'b', 2, 'failed');
    await seed('r3', 'a', 3, 'failed');
    // Two runs started in the same millisecond: the id breaks the tie, so no page repeats or skips one.
    await seed('r4a', 'a', 4, 'completed');
    await seed('r4b', 'a', 4, 'completed');

    const ids = (p: { items: Array<{ runId: string }> }) => p.items.map((r) => r.runId);
    const p1 = await runs.list({ flowId: 'a' }, 2);
    expect(ids(p1)).toEqual(['r4b', 'r4a']);
    expect(p1.items[0].output).toBeUndefined();
    const p2 = await runs.list({ flowId: 'a' }, 2, p1.next);
    expect(ids(p2)).toEqual(['r3', 'r1']);
    expect(p2.next).toBeUndefined();
    expect(ids(await runs.list({}, 10))).toEqual(['r4b', 'r4a', 'r3', 'r2', 'r1']);
    expect(ids(await runs.list({ status: 'failed' }, 10))).toEqual(['r3', 'r2']);
    expect(ids(await runs.list({ from: new Date(base + 2 * 60_000), to: new Date(base + 4 * 60_000) }, 10))).toEqual(['r3', 'r2']);
  });
});
