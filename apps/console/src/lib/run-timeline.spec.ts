import { formatMs, runTimeline } from './run-timeline';

const ev = (seq: number, time: number, type: string, data: Record<string, unknown>) => ({ seq, time, type, data });

describe('run timeline per node', () => {
  it('gives each step its start, duration, port, warnings and streamed chunks, and the run duration', () => {
    const t = runTimeline([
      ev(1, 1000, 'run.started', { versionId: 'f@v1', input: {}, meta: {} }),
      ev(2, 1001, 'node.started', { nodeId: 'start', kind: 'start', step: 0 }),
      ev(3, 1002, 'node.completed', { nodeId: 'start', port: 'out', ports: ['out'], durationMs: 1 }),
      ev(4, 1003, 'node.started', { nodeId: 'llm', name: 'Answer', kind: 'action', step: 1 }),
      ev(5, 1010, 'token', { nodeId: 'llm', chunk: 'Hel', index: 0 }),
      ev(6, 1011, 'token', { nodeId: 'llm', chunk: 'lo', index: 1 }),
      ev(7, 1012, 'node.warning', { nodeId: 'llm', code: 'UNKNOWN_KEY', message: 'config key x dropped' }),
      ev(8, 1050, 'node.completed', { nodeId: 'llm', port: 'Reply', ports: ['Reply'], durationMs: 47 }),
      ev(9, 1051, 'run.completed', { output: {}, durationMs: 51 }),
    ]);
    expect(t.steps).toEqual([
      { nodeId: 'start', name: undefined, step: 0, startMs: 1, durationMs: 1, status: 'completed', port: 'out', warnings: [], chunks: 0 },
      { nodeId: 'llm', name: 'Answer', step: 1, startMs: 3, durationMs: 47, status: 'completed', port: 'Reply', warnings: ['config key x dropped'], chunks: 2 },
    ]);
    expect(t.durationMs).toBe(51);
  });

  it('reads event times as the API sends them (ISO 8601 strings)', () => {
    const iso = (ms: number) => new Date(Date.UTC(2026, 10, 26, 1, 0, 0) + ms).toISOString();
    const t = runTimeline([
      { seq: 1, time: iso(0), type: 'run.started', data: {} },
      { seq: 2, time: iso(4), type: 'node.started', data: { nodeId: 'render', step: 0 } },
      { seq: 3, time: iso(9), type: 'node.completed', data: { nodeId: 'render', port: 'out', durationMs: 0.3492 } },
      { seq: 4, time: iso(10), type: 'run.completed', data: { durationMs: 10 } },
    ]);
    expect(t.steps.map((s) => [s.nodeId, s.startMs, s.durationMs])).toEqual([['render', 4, 0.3492]]);
    expect([formatMs(0.3492), formatMs(4), formatMs(1234.56), formatMs(Number.NaN)]).toEqual(['0.35 ms', '4.0 ms', '1235 ms', '—']);
  });

  it('marks failed steps with their error and the port that took them, and leaves unfinished ones running', () => {
    const t = runTimeline([
      ev(2, 10, 'node.started', { nodeId: 'mail', step: 0 }),
      ev(1, 0, 'run.started', {}),
      ev(3, 30, 'node.failed', { nodeId: 'mail', error: { code: 'SMTP', message: 'refused' }, durationMs: 20, routedTo: 'Error' }),
      ev(4, 31, 'node.started', { nodeId: 'wait', step: 1 }),
    ]);
    expect(t.steps.map((s) => [s.nodeId, s.status, s.error, s.port, s.durationMs])).toEqual([
      ['mail', 'failed', 'SMTP: refused', 'Error', 20],
      ['wait', 'running', undefined, undefined, undefined],
    ]);
  });

  it('sums tokens and cost per node from the usage ledger, counting unpriced calls apart', () => {
    const t = runTimeline([], [
      { nodeId: 'llm', promptTokens: 10, completionTokens: 5, totalTokens: 15, cost: 0.001, currency: 'USD', pricing: 'priced' },
      { nodeId: 'llm', promptTokens: 20, completionTokens: 5, totalTokens: 25, cost: 0.002, currency: 'USD', pricing: 'priced' },
      { nodeId: 'guard', promptTokens: 7, completionTokens: 1, totalTokens: 8, pricing: 'unpriced' },
    ]);
    expect(t.usage).toEqual([
      { nodeId: 'llm', calls: 2, promptTokens: 30, completionTokens: 10, totalTokens: 40, cost: expect.closeTo(0.003, 9), currency: 'USD', unpriced: 0 },
      { nodeId: 'guard', calls: 1, promptTokens: 7, completionTokens: 1, totalTokens: 8, unpriced: 1 },
    ]);
  });
});
