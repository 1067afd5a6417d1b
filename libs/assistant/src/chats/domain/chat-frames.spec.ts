import { capabilitiesOf, templateDocument } from '../../templates/domain/assistant-templates';
import { quantile, variantStats } from '../use-cases/chat-stats.use-case';
import { chatStepOf, replyOf } from './chat-frames';
import { chatExpiry, transcriptOf, type Chat } from './chat.entity';
import { sseFrames } from './sse';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

describe('chat frames', () => {
  it('maps run events onto session, token, message and error steps', () => {
    expect(chatStepOf({ seq: 1, type: 'run.started', data: { versionId: 'assistant@v1' } })).toEqual({ kind: 'started', seq: 1, versionId: 'assistant@v1' });
    expect(chatStepOf({ seq: 4, type: 'token', data: { nodeId: 'chat', chunk: 'Hel', index: 0 } })).toEqual({ kind: 'token', seq: 4, data: { chunk: 'Hel', index: 0, nodeId: 'chat' } });
    expect(chatStepOf({ seq: 9, type: 'run.completed', data: { output: { content: 'Hi', sources: [{ url: 'u' }] } } })).toEqual({ kind: 'reply', seq: 9, reply: { content: 'Hi', sources: [{ url: 'u' }], actions: [], status: 'completed' } });
    expect(chatStepOf({ seq: 9, type: 'run.rejected', data: { output: { content: 'No.', refusal: true } } })).toMatchObject({ kind: 'reply', reply: { content: 'No.', status: 'rejected' } });
    expect(chatStepOf({ seq: 7, type: 'run.failed', data: { error: { code: 'NODE_TIMEOUT', message: 'slow' } } })).toEqual({ kind: 'failed', seq: 7, code: 'NODE_TIMEOUT', message: 'slow' });
    expect(chatStepOf({ seq: 3, type: 'node.started', data: {} })).toEqual({ kind: 'skip' });
  });

  it('reads the reply from content, text or a plain string', () => {
    expect(replyOf({ text: 't' }, 'completed').content).toBe('t');
    expect(replyOf('plain', 'completed').content).toBe('plain');
    expect(replyOf(undefined, 'completed')).toEqual({ content: '', sources: [], actions: [], status: 'completed' });
    expect(replyOf({ content: 'c', warnings: ['index svc_docs does not exist', 3, ''] }, 'completed').warnings).toEqual(['index svc_docs does not exist']);
  });

  it('parses SSE frames split across chunks and skips comments', async () => {
    const out = [];
    for await (const f of sseFrames(chunks(': keepalive\n\nid: 1\nevent: run.st', 'arted\ndata: {"a":1}\n\nid: 2\nevent: token\ndata: {}\n\n'))) out.push(f);
    expect(out).toEqual([
      { id: '1', event: 'run.started', data: '{"a":1}' },
      { id: '2', event: 'token', data: '{}' },
    ]);
  });
});

describe('chat rules', () => {
  it('moves the expiry by the TTL from each append and writes role: content transcripts', () => {
    expect(chatExpiry(new Date('2030-01-01T00:00:00Z'), 30).toISOString()).toBe('2030-01-31T00:00:00.000Z');
    expect(transcriptOf([{ role: 'user', content: 'hi\nthere' }, { role: 'assistant', content: 'hello' }])).toBe('user: hi there\nassistant: hello');
  });

  it('derives capabilities from the shipped templates', () => {
    expect(capabilitiesOf(templateDocument('echo'))).toEqual({ handoff: false, escalation: false, streaming: false });
    expect(capabilitiesOf(templateDocument('default'))).toEqual({ handoff: true, escalation: false, streaming: false });
    expect(capabilitiesOf(templateDocument('default-stream'))).toEqual({ handoff: true, escalation: false, streaming: true });
    expect(capabilitiesOf(templateDocument('production'))).toEqual({ handoff: true, escalation: true, streaming: false });
    expect(capabilitiesOf(templateDocument('multi-guard'))).toEqual({ handoff: false, escalation: false, streaming: false });
    expect(capabilitiesOf(templateDocument('rag-stream'))).toEqual({ handoff: true, escalation: false, streaming: true });
    expect(capabilitiesOf(templateDocument('qa-only'))).toEqual({ handoff: false, escalation: false, streaming: false });
  });

  it('folds chats into per-variant stats with quantiles and ledger totals', () => {
    const at = new Date();
    const chat = (label: string, runs: string[], ttft: number[], rating?: 'up' | 'down', handoffId?: string): Chat => ({
      id: label + runs.join(), sessionId: 's', flowId: 'f', versionHash: 'h', variantLabel: label, runIds: runs, expiresAt: at, lastActivityAt: at, createdAt: at, handoffId,
      messages: ttft.flatMap((ms, i) => [{ role: 'user' as const, content: 'q', at }, { role: 'assistant' as const, content: 'a', at, runId: runs[i], firstTokenMs: ms, rating }]),
    });
    const stats = variantStats([chat('a', ['r1', 'r2'], [10, 30], 'up', 'h1'), chat('b', ['r3'], [5], 'down')], { r1: { totalTokens: 7, cost: 0.5, currency: 'USD' }, r3: { totalTokens: 2, cost: null, currency: null } });
    expect(stats).toEqual([
      { variantLabel: 'a', chats: 1, turns: 2, handoffs: 1, up: 2, down: 0, p50FirstTokenMs: 10, p95FirstTokenMs: 30, tokens: 7, cost: 0.5, currency: 'USD' },
      { variantLabel: 'b', chats: 1, turns: 1, handoffs: 0, up: 0, down: 1, p50FirstTokenMs: 5, p95FirstTokenMs: 5, tokens: 2, cost: null, currency: null },
    ]);
    expect(quantile([], 0.5)).toBeNull();
  });
});
