import { parseExcerpts } from '@flowplane/llm';
import { questionOf, ragSettingsOf, retrievalError, withExcerpts } from './rag-context.node';

const hits = [
  { score: 0.8, payload: { title: 'Refunds', headings: ['Refunds', 'Cards'], url: 'https://x.test/r', text: 'Refunds take 14 days.' } },
  { score: 0.3, payload: { title: 'Shipping', headings: [], text: 'Parcels take five days.' } },
  { score: -0.1, payload: { title: 'Noise', text: 'Unrelated.' } },
];

describe('svc/assistant-rag-context', () => {
  it('defaults to svc_docs, top 4, min score 0, citations on, and refuses bad values', () => {
    expect(ragSettingsOf({})).toEqual({ index: 'svc_docs', topK: 4, minScore: 0, citations: true });
    expect(ragSettingsOf({ index: 'kb', topK: '2', minScore: 0.5, citations: false, queryKey: 'search' })).toEqual({ index: 'kb', topK: 2, minScore: 0.5, citations: false, queryKey: 'search' });
    expect(() => ragSettingsOf({ topK: 0 })).toThrow('topK must be an integer from 1 to 50');
  });

  it('reads the latest user message, or the queryKey field', () => {
    const packet = { messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'a' }, { role: 'user', content: [{ type: 'text', text: 'second' }] }], q: 'rewritten' };
    expect(questionOf(packet)).toBe('second');
    expect(questionOf(packet, 'q')).toBe('rewritten');
    expect(questionOf(packet, 'missing')).toBeUndefined();
    expect(questionOf({ message: 'hello' })).toBe('hello');
  });

  it('prepends one system message the local provider can parse back, numbered like the sources', () => {
    const packet = { messages: [{ role: 'user', content: 'How long do refunds take?' }], keep: 1 };
    const out = withExcerpts(packet, 'How long do refunds take?', hits, ragSettingsOf({}), 'svc_docs');
    expect(out.keep).toBe(1);
    expect(out.index).toBe('svc_docs');
    expect(out.sources).toEqual([
      { n: 1, title: 'Refunds', url: 'https://x.test/r', score: 0.8 },
      { n: 2, title: 'Shipping', score: 0.3 },
    ]);
    const messages = out.messages as Array<{ role: string; content: string }>;
    expect(messages).toHaveLength(2);
    expect(messages[0].role).toBe('system');
    expect(messages[0].content).toContain('[1]');
    expect(parseExcerpts(messages[0].content)).toEqual([
      { n: 1, title: 'Refunds > Cards', text: 'Refunds take 14 days.' },
      { n: 2, title: 'Shipping', text: 'Parcels take five days.' },
    ]);
    expect(messages[1]).toEqual(packet.messages[0]);
  });

  it('honours topK and minScore, and asks for no markers without citations', () => {
    const out = withExcerpts({}, 'q', hits, ragSettingsOf({ topK: 1, citations: false, minScore: -1 }), 'svc_docs');
    expect(out.sources).toHaveLength(1);
    const [system, user] = out.messages as Array<{ role: string; content: string }>;
    expect(system.content).toMatch(/Do not write \[N\] citation markers/);
    expect(system.content).not.toMatch(/Cite the excerpts/);
    expect(user).toEqual({ role: 'user', content: 'q' });
  });

  it('the Error packet keeps the messages and adds a warning', () => {
    const out = retrievalError({ messages: [{ role: 'user', content: 'x' }], warnings: ['w0'] }, 'INDEX_NOT_FOUND', 'the knowledge index svc_kb does not exist', 'svc_kb', 'no excerpts from svc_kb');
    expect(out).toEqual({ messages: [{ role: 'user', content: 'x' }], warnings: ['w0', 'no excerpts from svc_kb'], sources: [], code: 'INDEX_NOT_FOUND', error: 'the knowledge index svc_kb does not exist', index: 'svc_kb' });
  });
});
