import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, tempDir, TEST_SECRET, token } from '../support/http';

/**
 * Checkpoint delivery across a restart (issue 4 item 3): a run whose start branch was saved on a
 * `checkpoint` edge is resumed from that checkpoint when flow-runtime starts again, by the same
 * replica at once or by another one once the dead owner's lease expired. A run with no
 * checkpoint is marked failed (INTERRUPTED) instead of staying `running` forever.
 */

/** A server whose first request hangs (the step in progress when the service stops), later ones answer. */
class SlowOnce {
  server!: Server;
  calls = 0;
  private firstArrived!: () => void;
  readonly first = new Promise<void>((r) => (this.firstArrived = r));
  private readonly hanging: ServerResponse[] = [];

  async listen(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      this.calls += 1;
      if (this.calls === 1) {
        this.hanging.push(res);
        this.firstArrived();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answered: this.calls, path: req.url }));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

function flowWith(mode: 'checkpoint' | 'direct', url: string) {
  return {
    name: `Slow call (${mode})`,
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'call', name: 'Call', kind: 'action', action_ref: 'svc/http-request', config: { method: 'GET', url: `${url}/work`, timeoutMs: 20000 } },
      { id: 'end', name: 'End', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'call', delivery_mode: mode },
      { id: 'e2', from: 'call', to: 'end', port: 'out' },
    ],
  };
}

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('run recovery after a restart', () => {
  let admin: string;
  let remote: SlowOnce;
  let url: string;
  const running: Standalone[] = [];

  const boot = async (dataDir: string, instanceId: string, extra: Record<string, string> = {}) => {
    const p = await startStandalone({
      env: {
        ...process.env,
        PORT: '0',
        STORE: 'embedded',
        DATA_DIR: dataDir,
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'silent',
        FLOW_HTTP_ALLOW_PRIVATE: 'true',
        FLOW_ENGINE_INSTANCE_ID: instanceId,
        ...extra,
      },
    });
    running.push(p);
    return p;
  };
  const stop = async (p: Standalone) => {
    running.splice(running.indexOf(p), 1);
    await p.close();
  };

  beforeAll(async () => {
    admin = await token('alice', ['admin:access']);
  });
  beforeEach(async () => {
    remote = new SlowOnce();
    url = await remote.listen();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.close()));
    await remote.close();
  });

  async function startSlowRun(p: Standalone, flowId: string, mode: 'checkpoint' | 'direct'): Promise<string> {
    const api = `${p.url}/api/v1`;
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: flowId, name: flowId }) })).status).toBe(201);
    const v = await call(`${api}/flows/${flowId}/versions`, { method: 'POST', bearer: admin, ...json(flowWith(mode, url)) });
    expect(v.status).toBe(201);
    expect((await call(`${api}/flows/${flowId}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
    const started = await call(`${api}/flows/${flowId}/runs?wait=false`, { method: 'POST', bearer: admin, ...json({ input: { order: 7 } }) });
    expect(started.status).toBe(202);
    await remote.first;
    return started.body.runId as string;
  }

  const runOn = async (p: Standalone, runId: string) => (await call(`${p.url}/api/v1/runs/${runId}`, { bearer: admin })).body;
  const finished = (p: Standalone, runId: string, timeoutMs?: number) =>
    until(async () => {
      const r = await runOn(p, runId);
      return r && r.status !== 'running' ? r : undefined;
    }, timeoutMs);

  it('resumes a checkpointed run from its checkpoint when the same replica restarts', async () => {
    const dir = tempDir('recovery-same');
    const first = await boot(dir, 'replica-a');
    const runId = await startSlowRun(first, 'slow-cp', 'checkpoint');
    await stop(first); // the step after the checkpoint is cut off mid-call

    const second = await boot(dir, 'replica-a');
    const run = await finished(second, runId);
    expect(run.status).toBe('completed');
    expect(run.output).toMatchObject({ status: 200, body: { answered: 2, path: '/work' } });
    const types = (run.timeline as Array<{ type: string; data: { nodeId?: string } }>).map((e) => `${e.type}${e.data?.nodeId ? `:${e.data.nodeId}` : ''}`);
    // The start node ran once, before the crash; the checkpointed step ran again after it.
    expect(types.filter((t) => t === 'node.started:start')).toHaveLength(1);
    expect(types).toContain('run.resumed');
    expect(types.filter((t) => t === 'node.started:call')).toHaveLength(2);
    expect(types.at(-1)).toBe('run.completed');
    expect(remote.calls).toBe(2);
    // Sequence numbers continue the stored stream without gaps or repeats.
    const seqs = (run.timeline as Array<{ seq: number }>).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('lets another replica adopt the run once the dead owner lease expired', async () => {
    const dir = tempDir('recovery-adopt');
    const env = { FLOW_CHECKPOINT_LEASE_MS: '1500' };
    const first = await boot(dir, 'replica-a', env);
    const runId = await startSlowRun(first, 'slow-adopt', 'checkpoint');
    await stop(first);

    const startedAt = Date.now();
    const other = await boot(dir, 'replica-b', env);
    const run = await finished(other, runId);
    expect(run.status).toBe('completed');
    expect(run.output).toMatchObject({ status: 200 });
    // Not before the lease of replica-a ran out.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500);
  });

  it('marks a run without checkpoints failed with INTERRUPTED instead of leaving it running', async () => {
    const dir = tempDir('recovery-direct');
    const first = await boot(dir, 'replica-a');
    const runId = await startSlowRun(first, 'slow-direct', 'direct');
    await stop(first);

    const second = await boot(dir, 'replica-a');
    const run = await finished(second, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'INTERRUPTED' });
    expect(remote.calls).toBe(1);
  });
});
