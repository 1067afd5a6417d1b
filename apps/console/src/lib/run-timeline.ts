/**
 * A run's timeline per node, for the run view: from the stored events of `GET /runs/{runId}`
 * (`timeline`: `{seq, time, type, data}`) each step of each node with its start, duration, port or
 * error, warnings and streamed tokens; joined with the LLM usage ledger rows of the run
 * (`GET /admin/llm/usage?runId=`) for tokens and cost per node.
 */

export interface TimelineEvent {
  seq: number;
  /** When the event happened: an ISO 8601 string as the API sends it (epoch milliseconds also read). */
  time: string | number;
  type: string;
  data: Record<string, unknown>;
}

export interface UsageRow {
  nodeId?: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost?: number;
  currency?: string;
  pricing?: string;
}

export interface NodeStep {
  nodeId: string;
  name?: string;
  step: number;
  /** Milliseconds after the run started. */
  startMs: number;
  durationMs?: number;
  status: 'running' | 'completed' | 'failed';
  port?: string;
  error?: string;
  warnings: string[];
  /** Streamed chunks (LLM tokens) the step emitted. */
  chunks: number;
}

export interface NodeTotals {
  nodeId: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Sum of priced calls; undefined when no call was priced. */
  cost?: number;
  currency?: string;
  /** Calls the price table had no entry for (never counted as zero). */
  unpriced: number;
}

export interface RunTimeline {
  steps: NodeStep[];
  usage: NodeTotals[];
  /** Total run time, from the final event. */
  durationMs?: number;
}

const epochMs = (t: string | number): number => (typeof t === 'number' ? t : Date.parse(t));

/** A duration for people: two decimals under 1 ms, one under 10 ms, whole milliseconds above. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  return `${ms < 1 ? ms.toFixed(2) : ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

export function runTimeline(events: TimelineEvent[], usage: UsageRow[] = []): RunTimeline {
  const sorted = [...events].map((e) => ({ ...e, time: epochMs(e.time) })).sort((a, b) => a.seq - b.seq);
  const t0 = sorted[0]?.time ?? 0;
  const steps: NodeStep[] = [];
  const open = new Map<string, NodeStep>();
  let durationMs: number | undefined;
  for (const e of sorted) {
    const nodeId = typeof e.data['nodeId'] === 'string' ? (e.data['nodeId'] as string) : undefined;
    if (e.type === 'node.started' && nodeId) {
      const s: NodeStep = { nodeId, name: e.data['name'] as string | undefined, step: Number(e.data['step'] ?? steps.length), startMs: e.time - t0, status: 'running', warnings: [], chunks: 0 };
      steps.push(s);
      open.set(nodeId, s);
    } else if ((e.type === 'node.completed' || e.type === 'node.failed') && nodeId) {
      const s = open.get(nodeId);
      if (!s) continue;
      s.durationMs = typeof e.data['durationMs'] === 'number' ? (e.data['durationMs'] as number) : e.time - t0 - s.startMs;
      if (e.type === 'node.completed') {
        s.status = 'completed';
        if (typeof e.data['port'] === 'string') s.port = e.data['port'] as string;
      } else {
        s.status = 'failed';
        const err = e.data['error'] as { code?: string; message?: string } | undefined;
        s.error = err ? [err.code, err.message].filter(Boolean).join(': ') : undefined;
        if (typeof e.data['routedTo'] === 'string') s.port = e.data['routedTo'] as string;
      }
      open.delete(nodeId);
    } else if (e.type === 'node.warning' && nodeId) {
      open.get(nodeId)?.warnings.push(String(e.data['message'] ?? e.data['code'] ?? ''));
    } else if (e.type === 'token' && nodeId) {
      const s = open.get(nodeId);
      if (s) s.chunks++;
    } else if (e.type.startsWith('run.') && e.type !== 'run.started' && e.type !== 'run.resumed' && typeof e.data['durationMs'] === 'number') {
      durationMs = e.data['durationMs'] as number;
    }
  }
  const totals = new Map<string, NodeTotals>();
  for (const u of usage) {
    const id = u.nodeId ?? '';
    const t = totals.get(id) ?? { nodeId: id, calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, unpriced: 0 };
    t.calls++;
    t.promptTokens += u.promptTokens;
    t.completionTokens += u.completionTokens;
    t.totalTokens += u.totalTokens;
    if (typeof u.cost === 'number') {
      t.cost = (t.cost ?? 0) + u.cost;
      t.currency ??= u.currency;
    } else t.unpriced++;
    totals.set(id, t);
  }
  return { steps, usage: [...totals.values()], durationMs };
}
