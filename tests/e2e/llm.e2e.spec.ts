import { randomUUID } from 'node:crypto';
import { type LlmUsageRecordedPayload, Topics } from '@flowplane/contracts';
import { LLM_RUNTIME, type LlmRuntime } from '../../libs/flow/runtime/src/llm/llm.tokens';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, parseSse, serviceToken, testEnv, token } from '../support/http';
import { publishFlow } from '../support/flows';



/** start → guard (input, blocklist) → llm-chat (local, streaming, profile) → end; Block → rejected end. */
function chatFlow(llmConfig: Record<string, unknown>) {
  return {
    name: 'Guarded chat',
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'guard', name: 'Input guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'blocklist', role: 'input', terms: ['forbidden'], refusal: 'Not here, sorry.' } },
      { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: llmConfig },
      { id: 'end', name: 'End', kind: 'end' },
      { id: 'refused', name: 'Refused', kind: 'end', config: { status: 'rejected' } },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'guard' },
      { id: 'e2', from: 'guard', to: 'chat', port: 'Allow' },
      { id: 'e3', from: 'guard', to: 'chat', port: 'Flag' },
      { id: 'e4', from: 'guard', to: 'refused', port: 'Block' },
      { id: 'e5', from: 'chat', to: 'end', port: 'Reply', delivery_mode: 'stream' },
    ],
    meta: { positions: { start: { x: 0, y: 0 }, guard: { x: 150, y: 0 }, chat: { x: 300, y: 0 }, end: { x: 450, y: 0 }, refused: { x: 300, y: 150 } } },
  };
}

describe('LLM layer through the gateway', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  const publish = (id: string, doc: unknown) => publishFlow(api, admin, id, doc);

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access', 'profiles:*']);
    api = `${platform.url}/api/v1`;
    // Prices: the local model `local-echo` is priced; any other local model stays unpriced.
    const put = await call(`${api}/admin/llm/prices`, { bearer: admin, ...json('PUT', { currency: 'USD', prices: [{ providerId: 'local', model: 'local-echo', inputPerMillion: 1, outputPerMillion: 2 }] }) });
    expect(put.status).toBe(200);
    const profile = await call(`${api}/admin/profiles`, {
      bearer: admin,
      ...json('POST', { module: 'llm', kind: 'llm-chat', profileId: 'support-bot', name: 'Support bot', config: { providerID: 'local', apiKey: 'sk-e2e-never-shown', model: 'local-echo', systemPrompt: 'You are the support bot.' } }),
    });
    expect(profile.status).toBe(201);
    await publish('guarded-chat', chatFlow({ profile: 'support-bot', stream: true, replyStyle: 'short' }));
    await publish('unpriced-chat', chatFlow({ providerID: 'local', model: 'local-mystery' }));
  });
  afterAll(() => platform?.close());

  it('streams the reply of a guarded, profiled local model as SSE token events, then completes with it', async () => {
    const res = await fetch(`${api}/flows/guarded-chat/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: { messages: [{ role: 'user', content: 'Where is my parcel?' }], sources: [{ title: 'Tracking', url: 'https://example.org/t' }], actions: [{ label: 'Human' }] } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await res.text());
    const tokens = events.filter((e) => e.event === 'token');
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.every((t) => t.data.nodeId === 'chat')).toBe(true);
    expect(tokens.map((t) => t.data.index)).toEqual(tokens.map((_, i) => i));
    const done = events[events.length - 1];
    expect(done.event).toBe('run.completed');
    const reply = done.data.output;
    expect(tokens.map((t) => t.data.chunk).join('')).toBe(reply.content);
    expect(reply.content).toBe('You said: "Where is my parcel?".');
    expect(reply).toMatchObject({
      sources: [{ title: 'Tracking', url: 'https://example.org/t' }],
      actions: [{ label: 'Human' }],
      usage: { providerId: 'local', model: 'local-echo', profileId: 'support-bot', completionTokens: tokens.length, source: 'provider' },
    });
    // Tokens arrive before the run completes, as they are produced.
    expect(events.findIndex((e) => e.event === 'token')).toBeLessThan(events.findIndex((e) => e.event === 'node.completed' && e.data.nodeId === 'chat'));
    expect(JSON.stringify(events)).not.toContain('sk-e2e-never-shown');

    const runId = res.headers.get('x-run-id')!;
    // Both usage routes show the call with the profile id, the flow and the cost.
    const list = await call(`${api}/admin/llm/usage?profileId=support-bot&runId=${runId}`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        profileId: 'support-bot',
        providerId: 'local',
        model: 'local-echo',
        flowId: 'guarded-chat',
        versionId: 'guarded-chat@v1',
        nodeId: 'chat',
        runId,
        userId: 'alice',
        assistant: false,
        kind: 'chat',
        status: 'ok',
        usageSource: 'provider',
        completionTokens: tokens.length,
        pricing: 'priced',
        currency: 'USD',
      }),
    ]);
    const row = list.body.items[0];
    expect(row.cost).toBeCloseTo((row.promptTokens * 1 + row.completionTokens * 2) / 1e6, 12);
    const by = await call(`${api}/admin/llm/usage/by?field=profileId&from=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`, { bearer: admin });
    expect(by.status).toBe(200);
    expect(by.body.groups).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'support-bot', calls: expect.any(Number), unpriced: 0, currency: 'USD', cost: expect.any(Number) })]));
    expect(by.body.groups.find((g: any) => g.key === 'support-bot').totalTokens).toBeGreaterThanOrEqual(row.totalTokens);
  });

  it('refuses blocked input with the guard refusal and no model call', async () => {
    const before = await call(`${api}/admin/llm/usage?flowId=guarded-chat&limit=200`, { bearer: admin });
    const res = await call(`${api}/flows/guarded-chat/runs`, { bearer: admin, ...json('POST', { input: { prompt: 'tell me the FORBIDDEN thing' } }) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', output: { content: 'Not here, sorry.', refusal: true, guard: { guardID: 'blocklist', role: 'input' } } });
    const after = await call(`${api}/admin/llm/usage?flowId=guarded-chat&limit=200`, { bearer: admin });
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it('shows a call to a model without a price as unpriced, never as zero', async () => {
    const res = await call(`${api}/flows/unpriced-chat/runs`, { bearer: admin, ...json('POST', { input: { prompt: 'hello' } }) });
    expect(res.body).toMatchObject({ status: 'completed', output: { content: 'You said: "hello".' } });
    const list = await call(`${api}/admin/llm/usage?flowId=unpriced-chat`, { bearer: admin });
    expect(list.body.items).toEqual([expect.objectContaining({ model: 'local-mystery', pricing: 'unpriced' })]);
    expect(list.body.items[0]).not.toHaveProperty('cost');
    const by = await call(`${api}/admin/llm/usage/by?field=model`, { bearer: admin });
    expect(by.body.groups).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'local-mystery', calls: 1, unpriced: 1, cost: null, currency: null })]));
  });

  it('stores rows other services publish on llm.usage_recorded once, priced on receipt', async () => {
    const usageId = randomUUID();
    const payload: LlmUsageRecordedPayload & Record<string, unknown> = {
      usageId,
      recordedAt: new Date().toISOString(),
      providerId: 'local',
      model: 'local-echo',
      promptTokens: 1000,
      completionTokens: 500,
      totalTokens: 1500,
      status: 'ok',
      profileId: 'translator',
      assistant: true,
      usageSource: 'estimated',
    };
    await platform.bus.publish(Topics.LlmUsageRecorded, payload, { key: usageId });
    await platform.bus.publish(Topics.LlmUsageRecorded, payload, { key: usageId }); // redelivered
    const items = await until('the published row', async () => {
      const r = await call(`${api}/admin/llm/usage?profileId=translator`, { bearer: admin });
      return r.body.items.length > 0 ? r.body.items : undefined;
    });
    await new Promise((r) => setTimeout(r, 100));
    const again = await call(`${api}/admin/llm/usage?profileId=translator`, { bearer: admin });
    expect(again.body.items).toHaveLength(1);
    expect(items[0]).toMatchObject({ usageId, assistant: true, usageSource: 'estimated', pricing: 'priced', cost: 0.002, currency: 'USD' });
    const by = await call(`${api}/admin/llm/usage/by?field=assistant`, { bearer: admin });
    expect(by.body.groups).toEqual(expect.arrayContaining([expect.objectContaining({ key: true, calls: 1, estimated: 1 })]));
  });

  it('pages the usage list with a cursor', async () => {
    for (let i = 0; i < 3; i++) await call(`${api}/flows/unpriced-chat/runs`, { bearer: admin, ...json('POST', { input: { prompt: `page ${i}` } }) });
    const first = await call(`${api}/admin/llm/usage?flowId=unpriced-chat&limit=2`, { bearer: admin });
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(`${api}/admin/llm/usage?flowId=unpriced-chat&limit=2&cursor=${first.body.nextCursor}`, { bearer: admin });
    expect(second.body.items).toHaveLength(2);
    expect(second.body.nextCursor).toBeUndefined();
    const ids = [...first.body.items, ...second.body.items].map((r: any) => r.usageId);
    expect(new Set(ids).size).toBe(4);
    const times = [...first.body.items, ...second.body.items].map((r: any) => r.recordedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('answers clear 4xx for bad queries and prices, and requires an active admin', async () => {
    expect((await call(`${api}/admin/llm/usage/by?field=color`, { bearer: admin })).status).toBe(400);
    expect((await call(`${api}/admin/llm/usage/by?field=model&from=yesterday`, { bearer: admin })).status).toBe(400);
    expect((await call(`${api}/admin/llm/usage/by?field=model&from=2030-01-01T00:00:00Z&to=2029-01-01T00:00:00Z`, { bearer: admin })).status).toBe(400);
    expect((await call(`${api}/admin/llm/usage?cursor=garbage`, { bearer: admin })).status).toBe(400);
    expect((await call(`${api}/admin/llm/usage?limit=0`, { bearer: admin })).status).toBe(400);
    const badPrice = await call(`${api}/admin/llm/prices`, { bearer: admin, ...json('PUT', { currency: 'dollars', prices: [{ model: 'x', inputPerMillion: -1, outputPerMillion: 1, extra: true }] }) });
    expect(badPrice.status).toBe(400);
    expect(badPrice.body.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['currency', 'prices.0.inputPerMillion', 'prices.0.extra']));
    expect((await call(`${api}/admin/llm/usage?limit=1`)).status).toBe(401);
    expect((await call(`${api}/admin/llm/usage?limit=1`, { bearer: await token('bob', []) })).status).toBe(403);
    expect((await call(`${api}/admin/llm/prices`, { bearer: await token('carol', ['admin:access'], { active: false }) })).status).toBe(403);
    const prices = await call(`${api}/admin/llm/prices`, { bearer: admin });
    expect(prices.body).toMatchObject({ currency: 'USD', isDefault: false, updatedBy: 'alice', prices: [{ providerId: 'local', model: 'local-echo', inputPerMillion: 1, outputPerMillion: 2 }] });
  });

  it('serves the live option sources to the profiles service, which offers them for llm-chat profiles', async () => {
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!;
    const svc = await serviceToken('profiles', 'flow-runtime', ['internal:options:read']);
    const providers = await call(`${flowRuntime.url}/internal/options/llm.providers`, { bearer: svc });
    expect(providers.body).toEqual(['local', 'ollama', 'openai', 'openai-compatible']);
    expect((await call(`${flowRuntime.url}/internal/options/guard.guards`, { bearer: svc })).body).toEqual(['blocklist', 'llm-classifier', 'pii']);
    expect((await call(`${flowRuntime.url}/internal/options/nope`, { bearer: svc })).status).toBe(404);
    expect((await call(`${flowRuntime.url}/internal/options/llm.providers`, { bearer: admin })).status).toBe(403);
    const kinds = await call(`${api}/admin/profiles/kinds`, { bearer: admin });
    const provider = kinds.body.find((k: any) => k.id === 'llm-chat').fields.find((f: any) => f.key === 'providerID');
    expect(provider.options).toEqual(['local', 'ollama', 'openai', 'openai-compatible']);
  });

  it('lists svc/llm-chat and svc/guard with their ports and the profile selector', async () => {
    const res = await call(`${api}/flows/nodes`, { bearer: admin });
    const byId = new Map<string, any>(res.body.map((m: any) => [m.id, m]));
    const chat = byId.get('svc/llm-chat');
    expect(chat.outputs.map((p: any) => p.port)).toEqual(['Reply', 'Error']);
    expect(chat.settingsSchema.properties.profile).toMatchObject({ 'x-profile-kind': 'llm-chat', enum: expect.arrayContaining(['support-bot']) });
    expect(chat.settingsSchema.properties.replyStyle.enum).toEqual(['short', 'normal', 'detailed']);
    expect(byId.get('svc/guard').outputs.map((p: any) => p.port)).toEqual(['Allow', 'Flag', 'Block']);
  });

  it('routes a provider failure to the Error port, records it, and fails an llm-classifier guard closed or open as configured', async () => {
    const runtime = platform.services.find((s) => s.name === 'flow-runtime')!.app.get<LlmRuntime>(LLM_RUNTIME);
    expect(runtime.callTimeoutMs).toBe(180_000);
    const doc = {
      name: 'Classifier',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'g1', name: 'Open guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'llm-classifier', onError: 'open', providerID: 'local' } },
        { id: 'g2', name: 'Closed guard', kind: 'gateway', action_ref: 'svc/guard', config: { guardID: 'llm-classifier', onError: 'closed', providerID: 'local' } },
        { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { providerID: 'openai-compatible', baseURL: 'http://169.254.169.254/v1', model: 'm' } },
        { id: 'end', name: 'End', kind: 'end' },
        { id: 'failed', name: 'Failed', kind: 'end', config: { status: 'rejected' } },
        { id: 'refused', name: 'Refused', kind: 'end', config: { status: 'rejected' } },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'g1' },
        { id: 'e2', from: 'g1', to: 'g2', port: 'Allow' },
        { id: 'e3', from: 'g2', to: 'chat', port: 'Allow' },
        { id: 'e4', from: 'g2', to: 'refused', port: 'Block' },
        { id: 'e5', from: 'chat', to: 'end', port: 'Reply' },
        { id: 'e6', from: 'chat', to: 'failed', port: 'Error' },
      ],
    };
    await publish('classified', doc);
    // A garbled verdict: the first guard fails open, the second fails closed.
    const garbled = await call(`${api}/flows/classified/runs`, { bearer: admin, ...json('POST', { input: { prompt: 'hi [[garbled]]' } }) });
    expect(garbled.body).toMatchObject({ status: 'rejected', output: { refusal: true, guard: { guardID: 'llm-classifier', reasons: [expect.stringMatching(/failing closed/)] } } });
    // A clean verdict passes both; the chat then targets a link-local address and is refused before any connection.
    const refused = await call(`${api}/flows/classified/runs`, { bearer: admin, ...json('POST', { input: { prompt: 'hi' } }) });
    expect(refused.body).toMatchObject({ status: 'rejected', output: { error: expect.stringMatching(/169\.254\.169\.254 is a linkLocal address.*LLM_ALLOWED_PRIVATE_HOSTS/) } });
    const rows = await call(`${api}/admin/llm/usage?runId=${refused.body.runId}`, { bearer: admin });
    expect(rows.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ nodeId: 'chat', status: 'error', errorCode: 'LLM_TARGET_REFUSED', providerId: 'openai-compatible' }),
        expect.objectContaining({ nodeId: 'g1', kind: 'guard', status: 'ok' }),
        expect.objectContaining({ nodeId: 'g2', kind: 'guard', status: 'ok' }),
      ]),
    );
  });
});
