import { LlmAbortedError } from '../errors';
import { classifierRubric } from '../guards/rubric';
import { countPromptTokens, tokenize } from '../tokenizer';
import { LocalProvider } from './local.provider';
import { sseData } from './sse';

const settings = { providerID: 'local' };

describe('local provider', () => {
  it('quotes the latest user message and the rows a system message supplies, deterministically', async () => {
    const messages = [
      { role: 'system' as const, content: 'Recommend only from this list:\n- Blue kettle (€30)\n- Red toaster (€25)' },
      { role: 'user' as const, content: 'old question' },
      { role: 'assistant' as const, content: 'old answer' },
      { role: 'user' as const, content: 'Which kettle is cheap?' },
    ];
    const a = await new LocalProvider().chat({ settings, messages });
    const b = await new LocalProvider().chat({ settings, messages });
    expect(a.content).toBe('You said: "Which kettle is cheap?". From the supplied list: Blue kettle (€30); Red toaster (€25).');
    expect(b.content).toBe(a.content);
    expect(a.model).toBe('local-echo');
  });

  it('streams the reply token by token; the chunks are the reply and the completion count', async () => {
    const tokens: string[] = [];
    const messages = [{ role: 'user' as const, content: 'Stream me, please!' }];
    const result = await new LocalProvider().chat({ settings, messages, onToken: (t) => tokens.push(t) });
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join('')).toBe(result.content);
    expect(result.usage).toEqual({ promptTokens: countPromptTokens(messages), completionTokens: tokens.length, totalTokens: countPromptTokens(messages) + tokens.length, source: 'provider' });
  });

  it('honours maxTokens with finish reason length', async () => {
    const result = await new LocalProvider().chat({ settings: { ...settings, maxTokens: 3 }, messages: [{ role: 'user', content: 'one two three four five six' }] });
    expect(tokenize(result.content)).toHaveLength(3);
    expect(result.finishReason).toBe('length');
    expect(result.usage.completionTokens).toBe(3);
  });

  it('can be scripted: fixed replies, [[reply: ...]], [[ESCALATE]]', async () => {
    const scripted = new LocalProvider({ replies: ['first', 'second'] });
    const m = [{ role: 'user' as const, content: 'x' }];
    expect((await scripted.chat({ settings, messages: m })).content).toBe('first');
    expect((await scripted.chat({ settings, messages: m })).content).toBe('second');
    expect((await scripted.chat({ settings, messages: m })).content).toBe('second');
    const local = new LocalProvider();
    expect((await local.chat({ settings, messages: [{ role: 'user', content: 'say [[reply: Exactly this.]] now' }] })).content).toBe('Exactly this.');
    expect((await local.chat({ settings, messages: [{ role: 'user', content: 'I want a human [[ESCALATE]]' }] })).content).toMatch(/\[\[ESCALATE\]\]$/);
  });

  it('answers guard verdict requests in the strict verdict format', async () => {
    const ask = (text: string, p = new LocalProvider()) => p.chat({ settings, messages: [{ role: 'system', content: classifierRubric('input') }, { role: 'user', content: text }] });
    expect(JSON.parse((await ask('hello')).content)).toEqual({ verdict: 'allow', reasons: [] });
    expect(JSON.parse((await ask('bad [[BLOCK]]')).content)).toMatchObject({ verdict: 'block' });
    expect(JSON.parse((await ask('hmm [[flag]]')).content)).toMatchObject({ verdict: 'flag' });
    expect(JSON.parse((await ask('hello', new LocalProvider({ verdict: 'block' }))).content)).toMatchObject({ verdict: 'block' });
    expect((await ask('[[garbled]]')).content).not.toMatch(/^\{/);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const p = new LocalProvider({ tokenDelayMs: 5 }).chat({ settings, messages: [{ role: 'user', content: 'a long message to stream slowly' }], signal: controller.signal, onToken: () => controller.abort() });
    await expect(p).rejects.toBeInstanceOf(LlmAbortedError);
  });
});

describe('tokenizer', () => {
  it('splits into tokens that join back to the text', () => {
    for (const text of ['', 'Hello, world!', '  leading and trailing  ', 'naïve café — 3.14 ünïcödé\n\nnew line', '日本語のテキスト']) {
      expect(tokenize(text).join('')).toBe(text);
    }
  });
});

describe('SSE parsing', () => {
  it('yields each event whatever the chunk boundaries and line ends', async () => {
    const wire = 'data: {"a":1}\r\n\r\n: comment\n\nevent: x\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';
    for (const size of [1, 2, 3, 7, wire.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < wire.length; i += size) chunks.push(Buffer.from(wire.slice(i, i + size)));
      const out: string[] = [];
      for await (const d of sseData((async function* () { yield* chunks; })())) out.push(d);
      expect(out).toEqual(['{"a":1}', 'line1\nline2', '[DONE]']);
    }
  });
});

describe('local provider tasks', () => {
  it('answers a structured request through the task whose marker a system message carries, and counts its tokens', async () => {
    const provider = new LocalProvider({ replies: ['scripted'] }, 'local', [{ marker: '(task: upper/1)', answer: (messages) => messages[messages.length - 1].content.toUpperCase() }]);
    const tasked = await provider.chat({ settings, messages: [{ role: 'system', content: 'Shout. (task: upper/1)' }, { role: 'user', content: 'hello there' }] });
    expect(tasked.content).toBe('HELLO THERE');
    expect(tasked.usage.completionTokens).toBe(tokenize('HELLO THERE').length);
    const plain = await provider.chat({ settings, messages: [{ role: 'user', content: 'hello there' }] });
    expect(plain.content).toBe('scripted');
  });
});
