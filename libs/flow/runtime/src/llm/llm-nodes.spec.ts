import { createProviderRegistry, GuardRegistry, LlmUnavailableError, LocalProvider, type UsageRecord } from '@flowplane/llm';
import { nodeContext, single } from '../nodes/builtin/test-context';
import { guardNode, guardText, llmChatNode, messagesOf } from './llm-nodes';

describe('svc/llm-chat and svc/guard handlers', () => {
  const rows: UsageRecord[] = [];
  const deps = () => ({ providers: createProviderRegistry(), guards: new GuardRegistry(), usage: { record: async (r: UsageRecord) => void rows.push(r) }, callTimeoutMs: 180_000 });
  beforeEach(() => (rows.length = 0));

  it('reads messages, or a prompt, and refuses malformed ones', () => {
    expect(messagesOf({ prompt: 'hi' })).toEqual([{ role: 'user', content: 'hi' }]);
    expect(messagesOf('plain')).toEqual([{ role: 'user', content: 'plain' }]);
    expect(messagesOf({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] })).toEqual([{ role: 'user', content: 'ab' }]);
    expect(() => messagesOf({ messages: [{ role: 'wizard', content: 'x' }] })).toThrow(/messages\[0\]/);
  });

  it('streams tokens through ctx.emitToken and forwards sources and actions unchanged', async () => {
    const tokens: string[] = [];
    const sources = [{ url: 'https://example.org' }];
    const ctx = nodeContext({ prompt: 'hello there', sources, actions: [] }, { providerID: 'local', stream: true, profile: 'p1' }, { emitToken: (t: string) => void tokens.push(t), meta: { sessionId: 's1', source: 'assistant' } });
    const out = await single(llmChatNode(deps()).handler(ctx));
    expect(out.port).toBe('Reply');
    const packet = out.packet as any;
    expect(tokens.join('')).toBe(packet.content);
    expect(packet.sources).toBe(sources);
    expect(packet.usage).toMatchObject({ providerId: 'local', model: 'local-echo', profileId: 'p1', completionTokens: tokens.length });
    expect(rows).toEqual([expect.objectContaining({ runId: 'run-1', nodeId: 'n1', profileId: 'p1', sessionId: 's1', assistant: true, kind: 'chat', status: 'ok' })]);
  });

  it('writes the reply at outputKey of a copy of the packet when asked (query rewrite)', async () => {
    const input = { messages: [{ role: 'user', content: 'find kettles' }] };
    const out = await single(llmChatNode(deps()).handler(nodeContext(input, { providerID: 'local', outputKey: 'searchQuery' })));
    expect(out.packet).toMatchObject({ messages: input.messages, searchQuery: 'You said: "find kettles".' });
    expect(input).not.toHaveProperty('searchQuery');
  });

  it('fails without a conversation and with an unknown provider', async () => {
    await expect(llmChatNode(deps()).handler(nodeContext({}, {}))).rejects.toThrow(/no messages and no prompt/);
    await expect(llmChatNode(deps()).handler(nodeContext({ prompt: 'x' }, { providerID: 'nope' }))).rejects.toThrow(/unknown LLM provider "nope"/);
  });

  it('routes Allow and Flag with the packet unchanged, Block with the refusal', async () => {
    const packet = { messages: [{ role: 'user', content: 'mail me at ada@example.org' }], sources: [] };
    const flagged = await single(guardNode(deps()).handler(nodeContext(packet, { guardID: 'pii', role: 'input' })));
    expect(flagged).toEqual({ port: 'Flag', packet });
    expect((flagged.packet as unknown) === packet).toBe(true);
    const blocked = await single(guardNode(deps()).handler(nodeContext(packet, { guardID: 'pii', role: 'input', action: 'block', refusal: 'No personal data, please.' })));
    expect(blocked).toMatchObject({ port: 'Block', packet: { content: 'No personal data, please.', refusal: true, guard: { guardID: 'pii', role: 'input' } } });
    expect(await single(guardNode(deps()).handler(nodeContext({ prompt: 'fine' }, { guardID: 'pii' })))).toMatchObject({ port: 'Allow' });
  });

  it('checks the full draft of an output guard, from the packet or the streamed tokens', () => {
    expect(guardText({ content: 'draft' }, 'output', undefined)).toBe('draft');
    expect(guardText({}, 'output', undefined, ['a', 'b'])).toBe('ab');
    expect(guardText({ messages: [{ role: 'user', content: 'q' }] }, 'input', undefined)).toBe('q');
    expect(guardText({ deep: { text: 'x' } }, 'input', 'deep.text')).toBe('x');
  });

  it('applies onError to a failing classifier, and fails loudly on misconfiguration', async () => {
    const d = deps();
    d.providers.register(new LocalProvider({ fail: new (class extends Error {})('boom') }, 'down'));
    const open = await single(guardNode(d).handler(nodeContext({ prompt: 'x' }, { guardID: 'llm-classifier', onError: 'open', providerID: 'down' })));
    expect(open.port).toBe('Allow');
    const closed = await single(guardNode(d).handler(nodeContext({ prompt: 'x' }, { guardID: 'llm-classifier', onError: 'closed', providerID: 'down' })));
    expect(closed).toMatchObject({ port: 'Block', packet: { guard: { reasons: [expect.stringMatching(/failing closed/)] } } });
    await expect(guardNode(d).handler(nodeContext({ prompt: 'x' }, { guardID: 'blocklist', patterns: ['('] }))).rejects.toThrow(/not a valid regular expression/);
    await expect(guardNode(d).handler(nodeContext({ prompt: 'x' }, { guardID: 'nope' }))).rejects.toThrow(/unknown guard/);
  });

  it('multi-guard pair on a classifier outage: the first guard fails open (Allow, warned in the timeline), the second fails closed (refusal)', async () => {
    const d = deps();
    d.providers.register(new LocalProvider({ fail: new LlmUnavailableError('classifier unreachable') }, 'down'));
    const logs: Array<{ message: string; level?: string }> = [];
    const log = (message: string, _data?: unknown, level?: string) => void logs.push({ message, level });
    const packet = { messages: [{ role: 'user', content: 'Where is my order?' }] };
    const first = await single(guardNode(d).handler(nodeContext(packet, { guardID: 'llm-classifier', role: 'input', onError: 'open', providerID: 'down' }, { log: log as never })));
    expect(first.port).toBe('Allow');
    expect(first.packet).toBe(packet);
    expect(logs).toEqual([expect.objectContaining({ message: expect.stringMatching(/guard llm-classifier failed \(LLM_UNAVAILABLE.*failing open/), level: 'warn' })]);
    const second = await single(guardNode(d).handler(nodeContext(first.packet, { guardID: 'llm-classifier', role: 'input', onError: 'closed', providerID: 'down', refusal: 'Safety checks are down; please try again later.' })));
    expect(second).toMatchObject({ port: 'Block', packet: { content: 'Safety checks are down; please try again later.', refusal: true, guard: { reasons: [expect.stringMatching(/failing closed/)] } } });
    // onError defaults to closed.
    expect((await single(guardNode(d).handler(nodeContext(packet, { guardID: 'llm-classifier', providerID: 'down' })))).port).toBe('Block');
  });
});
