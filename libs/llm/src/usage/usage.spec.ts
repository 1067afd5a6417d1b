import { LlmClient } from '../llm-client';
import { LlmTimeoutError } from '../errors';
import { LocalProvider } from '../providers/local.provider';
import { createProviderRegistry, ProviderRegistry } from '../providers/provider-registry';
import { buildSystemPrompt, callTimeoutMs, chatSettingsOf, mergeModuleProfile, parseDuration, translationTokenCap } from '../settings';
import { computeCost, DEFAULT_PRICE_TABLE, findPrice, type PriceTable } from './pricing';
import { BusUsageSink, type UsageRecord, usageEventPayload } from './usage-record';

describe('pricing', () => {
  const table: PriceTable = {
    currency: 'USD',
    prices: [
      { model: 'gpt-4o*', inputPerMillion: 2.5, outputPerMillion: 10 },
      { model: 'gpt-4o-mini*', inputPerMillion: 0.15, outputPerMillion: 0.6 },
      { providerId: 'ollama', model: '*', inputPerMillion: 0, outputPerMillion: 0 },
      { providerId: 'openai', model: 'gpt-4o-mini', inputPerMillion: 0.1, outputPerMillion: 0.5 },
    ],
  };

  it('picks the most specific price', () => {
    expect(findPrice(table, 'openai', 'gpt-4o-mini')?.inputPerMillion).toBe(0.1);
    expect(findPrice(table, 'openai-compatible', 'gpt-4o-mini-2024')?.inputPerMillion).toBe(0.15);
    expect(findPrice(table, 'openai-compatible', 'gpt-4o')?.inputPerMillion).toBe(2.5);
    expect(findPrice(table, 'ollama', 'gpt-4o')?.inputPerMillion).toBe(0);
  });

  it('costs a call per million tokens, and an unknown model is unpriced, never zero', () => {
    expect(computeCost(table, 'openai-compatible', 'gpt-4o', { promptTokens: 1000, completionTokens: 500 })).toEqual({ status: 'priced', cost: 0.0075, currency: 'USD' });
    expect(computeCost(table, 'openai', 'claude-3', { promptTokens: 1000, completionTokens: 500 })).toEqual({ status: 'unpriced' });
    expect(computeCost(DEFAULT_PRICE_TABLE, 'local', 'anything', { promptTokens: 10, completionTokens: 10 })).toEqual({ status: 'priced', cost: 0, currency: 'USD' });
    expect(computeCost(DEFAULT_PRICE_TABLE, 'openai', 'gpt-4o', { promptTokens: 10, completionTokens: 10 })).toEqual({ status: 'unpriced' });
  });
});

describe('settings', () => {
  it('appends plain directives only when the tuning differs from neutral', () => {
    expect(buildSystemPrompt({ systemPrompt: 'Base.' })).toBe('Base.');
    expect(buildSystemPrompt({ systemPrompt: 'Base.', replyStyle: 'normal', examplesPolicy: 'when_asked' })).toBe('Base.');
    expect(buildSystemPrompt({ systemPrompt: 'Base.', replyStyle: 'short', examplesPolicy: 'avoid' })).toBe('Base.\n\nKeep your reply short: at most three sentences.\n\nDo not include examples.');
    expect(buildSystemPrompt({ replyStyle: 'detailed', examplesPolicy: 'always' })).toMatch(/detailed[\s\S]*example/);
    expect(buildSystemPrompt({ replyStyle: 'concise' })).toBe(buildSystemPrompt({ replyStyle: 'short' }));
  });

  it('reads chat settings and refuses out-of-range tuning', () => {
    expect(chatSettingsOf({ model: ' gpt ', temperature: '0.5', maxTokens: 10 })).toEqual({ providerID: 'local', model: 'gpt', temperature: 0.5, maxTokens: 10, baseURL: undefined, apiKey: undefined });
    expect(() => chatSettingsOf({ temperature: 3 })).toThrow(/temperature/);
    expect(() => chatSettingsOf({ maxTokens: 0.5 })).toThrow(/maxTokens/);
  });

  it('rule 19: a module profile overrides flat settings when set; blank profile values do not', () => {
    expect(mergeModuleProfile({ providerID: 'local', model: 'flat', temperature: 0.1 }, { providerID: 'openai', model: '', temperature: 0.7 })).toEqual({ providerID: 'openai', model: 'flat', temperature: 0.7 });
    expect(mergeModuleProfile({ model: 'flat' })).toEqual({ model: 'flat' });
    // Rule 19 names provider, model and temperature: the module's prompt and token bound stay its own.
    expect(mergeModuleProfile({ providerID: 'local', maxTokens: 4096, systemPrompt: 'Translate.' }, { providerID: 'openai', maxTokens: 100, systemPrompt: 'You are a chat bot.', baseURL: 'https://api.example.com/v1', apiKey: 'sk-1' })).toEqual({
      providerID: 'openai',
      maxTokens: 4096,
      systemPrompt: 'Translate.',
      baseURL: 'https://api.example.com/v1',
      apiKey: 'sk-1',
    });
  });

  it('AI_CALL_TIMEOUT: durations or milliseconds, TRANSLATE_CALL_TIMEOUT feeds it, 3 minutes by default, 0 disables', () => {
    expect(callTimeoutMs({})).toBe(180_000);
    expect(callTimeoutMs({ AI_CALL_TIMEOUT: '90s' })).toBe(90_000);
    expect(callTimeoutMs({ AI_CALL_TIMEOUT: '1m30s' })).toBe(90_000);
    expect(callTimeoutMs({ AI_CALL_TIMEOUT: '2500' })).toBe(2500);
    expect(callTimeoutMs({ TRANSLATE_CALL_TIMEOUT: '5m' })).toBe(300_000);
    expect(callTimeoutMs({ AI_CALL_TIMEOUT: '0' })).toBe(0);
    expect(() => callTimeoutMs({ AI_CALL_TIMEOUT: 'soon' })).toThrow(/AI_CALL_TIMEOUT/);
    expect(parseDuration('500ms')).toBe(500);
  });

  it('sizes translation token caps from the source with AI_MAX_TOKENS as a floor', () => {
    expect(translationTokenCap(100, 1)).toBe(2048);
    expect(translationTokenCap(20_000, 1)).toBe(10_096);
    expect(translationTokenCap(20_000, 6)).toBeGreaterThan(translationTokenCap(20_000, 1) * 5);
  });
});

describe('LlmClient', () => {
  const rows: UsageRecord[] = [];
  const sink = { record: async (r: UsageRecord) => void rows.push(r) };
  beforeEach(() => (rows.length = 0));

  it('resolves the profile, merges it under the call config, and stamps its id on the usage row', async () => {
    const resolver = { resolve: jest.fn(async () => ({ config: { providerID: 'local', model: 'profile-model', systemPrompt: 'x' } })) };
    const client = new LlmClient({ providers: createProviderRegistry(), profiles: resolver, usage: sink, service: 'i18n' });
    const result = await client.chat({ profileId: 'support', config: { model: 'node-model' }, messages: [{ role: 'user', content: 'hi' }], context: { flowId: 'f', userId: 'u' } });
    expect(resolver.resolve).toHaveBeenCalledWith('llm', 'llm-chat', 'support');
    expect(result.model).toBe('node-model');
    expect(rows).toEqual([expect.objectContaining({ profileId: 'support', providerId: 'local', model: 'node-model', flowId: 'f', userId: 'u', status: 'ok', usageSource: 'provider', kind: 'chat', service: 'i18n' })]);
    expect(rows[0].totalTokens).toBe(rows[0].promptTokens + rows[0].completionTokens);

    await client.chat({ profileId: 'support', precedence: 'module', config: { model: 'flat' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(rows[1].model).toBe('profile-model');
  });

  it('never sends a profile key to another endpoint: node or flat endpoint values over a secret-holding profile are refused before any call', async () => {
    const sent: unknown[] = [];
    const spy = { id: 'openai-compatible', chat: async (request: { settings: unknown }) => (sent.push(request.settings), { content: 'x', model: 'm', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, source: 'provider' as const }, latencyMs: 1, finishReason: 'stop' as const, attempts: 1 }) };
    const registry = new ProviderRegistry().register(spy).register(new LocalProvider());
    const resolver = { resolve: async () => ({ config: { providerID: 'openai-compatible', apiKey: 'sk-profile', model: 'm' } }) };
    const client = new LlmClient({ providers: registry, profiles: resolver, usage: sink });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await expect(client.chat({ profileId: 'prod', config: { baseURL: 'https://evil.example/v1' }, messages })).rejects.toMatchObject({ code: 'PROFILE_ENDPOINT_OVERRIDE' });
    await expect(client.chat({ profileId: 'prod', config: { providerID: 'local' }, messages })).rejects.toMatchObject({ code: 'PROFILE_ENDPOINT_OVERRIDE' });
    await expect(client.chat({ profileId: 'prod', precedence: 'module', config: { baseURL: 'https://flat.example/v1' }, messages })).rejects.toMatchObject({ code: 'PROFILE_ENDPOINT_OVERRIDE' });
    expect(sent).toEqual([]);
    // Everything else still overrides.
    await client.chat({ profileId: 'prod', config: { model: 'other', temperature: 0.5 }, messages });
    expect(sent).toEqual([expect.objectContaining({ apiKey: 'sk-profile', model: 'other', temperature: 0.5 })]);
    expect(sent[0]).not.toHaveProperty('baseURL', expect.anything());
  });

  it('records a failed call with its error code and rethrows', async () => {
    const registry = new ProviderRegistry().register(new LocalProvider({ fail: new LlmTimeoutError(10) }));
    const client = new LlmClient({ providers: registry, usage: sink });
    await expect(client.chat({ config: { providerID: 'local' }, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(LlmTimeoutError);
    expect(rows).toEqual([expect.objectContaining({ status: 'error', errorCode: 'LLM_TIMEOUT', promptTokens: 0 })]);
  });

  it('publishes rows as llm.usage_recorded keyed by usage id for services other than flow-runtime', async () => {
    const published: any[] = [];
    const bus = { publish: async (topic: string, data: unknown, options: unknown) => void published.push({ topic, data, options }) };
    const client = new LlmClient({ providers: createProviderRegistry(), usage: new BusUsageSink(bus) });
    const r = await client.chat({ config: { providerID: 'local' }, messages: [{ role: 'user', content: 'x' }], context: { assistant: true } });
    expect(published).toEqual([{ topic: 'llm.usage_recorded', data: usageEventPayload(r.usageRecord), options: { key: r.usageRecord.usageId, entitytype: 'llm_usage', action: 'recorded' } }]);
    expect(published[0].data).toMatchObject({ usageId: r.usageRecord.usageId, providerId: 'local', model: 'local-echo', assistant: true, status: 'ok' });
    expect(published[0].data).not.toHaveProperty('costUsd');
  });
});
