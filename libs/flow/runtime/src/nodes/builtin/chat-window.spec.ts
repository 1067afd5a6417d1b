import { chatWindowHandler, windowOf } from './chat-window.node';
import { nodeContext, single } from './test-context';

describe('svc/chat-window', () => {
  const history = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: 'a1' },
    { role: 'user', content: 'q2' },
    { role: 'assistant', content: 'a2' },
    { role: 'user', content: 'q3' },
  ];

  it('keeps only the latest user message by default (each turn stands alone)', async () => {
    const out = await single(chatWindowHandler(nodeContext({ messages: history, message: 'q3' })));
    expect(out).toEqual({ port: 'out', packet: { messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'q3' }], message: 'q3' } });
  });

  it('keeps the last N user turns with their replies, with or without system messages', () => {
    expect(windowOf(history, 2, false)).toEqual(history.slice(3));
    expect(windowOf(history, 10, true)).toEqual(history);
    expect(windowOf([{ role: 'assistant', content: 'hi' }], 1, true)).toEqual([{ role: 'assistant', content: 'hi' }]);
  });

  it('passes a packet without messages unchanged', async () => {
    expect(await single(chatWindowHandler(nodeContext({ prompt: 'x' }, { turns: 3 })))).toEqual({ port: 'out', packet: { prompt: 'x' } });
  });
});
