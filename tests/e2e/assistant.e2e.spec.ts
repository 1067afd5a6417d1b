import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, parseSse, testEnv, token, until } from '../support/http';

describe('assistant chat through the gateway', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let root: string;

  const chat = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '1000' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    root = await token('root', [], { superuser: true });
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    const reset = await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin });
    expect(reset.status).toBe(200);
  }, 60_000);
  afterAll(() => platform?.close());

  it('answers a two-turn echo chat as session, message frames and keeps the transcript', async () => {
    const first = await chat({ message: 'hello there' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const sessionId = first.headers.get('x-assistant-session-id')!;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    const frames = parseSse(await first.text());
    expect(frames.map((f) => f.event)).toEqual(['session', 'message']);
    expect(frames[0].data).toMatchObject({ sessionId, runId: expect.any(String), flowId: 'assistant', versionId: expect.any(String), variant: 'stable' });
    expect(frames[1].data).toEqual({ content: 'hello there', sources: [], actions: [], status: 'completed' });
    expect(frames.every((f) => Number.isInteger(f.id) && f.id > 0)).toBe(true);

    const second = parseSse(await (await chat({ sessionId, message: 'again' })).text());
    expect(second[1].data.content).toBe('again');

    const t = await call(`${api}/assistant/chats/me/${sessionId}`);
    expect(t.status).toBe(200);
    expect(t.body.messages.map((m: { role: string; content: string }) => `${m.role}: ${m.content}`)).toEqual(['user: hello there', 'assistant: hello there', 'user: again', 'assistant: again']);
    expect(t.body.expiresAt).toMatch(/Z$/);
    expect(t.body.messages[1].runId).toBe(frames[0].data.runId);
  });

  it('refuses bad input with 400 before any stream opens', async () => {
    for (const body of [{}, { message: '' }, { message: 42 }, { message: 'x'.repeat(4001) }, { message: 'hi', sessionId: 'x'.repeat(500) }, { message: 'hi', sessionId: 'short' }]) {
      const res = await call(`${api}/assistant/messages`, { method: 'POST', ...json(body) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
    }
    const malformed = await call(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":' });
    expect(malformed.status).toBe(400);
    expect((await call(`${api}/assistant/chats/me/unknown-session-id`)).status).toBe(404);
  });

  it('resumes a stream after Last-Event-ID and closes at once past the end', async () => {
    const res = await chat({ message: 'resume me' });
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const frames = parseSse(await res.text());
    const runId = frames[0].data.runId;
    const resumed = await fetch(`${api}/assistant/messages/${runId}/events`, { headers: { 'x-assistant-session-id': sessionId, 'last-event-id': String(frames[0].id) } });
    expect(resumed.status).toBe(200);
    const rest = parseSse(await resumed.text());
    expect(rest.map((f) => f.event)).toEqual(['message']);
    expect(rest[0]).toEqual(frames[1]);
    const none = await fetch(`${api}/assistant/messages/${runId}/events`, { headers: { 'x-assistant-session-id': sessionId, 'last-event-id': String(frames[1].id) } });
    expect(parseSse(await none.text())).toEqual([]);
    const stranger = await call(`${api}/assistant/messages/${runId}/events`, { headers: { 'x-assistant-session-id': 'another-session-1' } });
    expect(stranger.status).toBe(404);
  });

  it('reports capabilities of each shipped template and refuses unknown or unavailable ones', async () => {
    const expected: Record<string, { handoff: boolean; streaming: boolean }> = {
      echo: { handoff: false, streaming: false },
      minimal: { handoff: false, streaming: false },
      default: { handoff: true, streaming: false },
      'default-stream': { handoff: true, streaming: true },
    };
    for (const [name, caps] of Object.entries(expected)) {
      const r = await call(`${api}/admin/assistant/reset?template=${name}`, { method: 'POST', bearer: admin });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ flowId: 'assistant', template: name, published: true });
      const c = await call(`${api}/assistant/config?sessionId=config-session-1`);
      expect(c.body).toMatchObject({ flowId: 'assistant', capabilities: { ...caps, escalation: false }, handoffEnabled: caps.handoff, anonymousAllowed: true, chatTtlDays: 30, maxMessageChars: 4000, activeVariant: 'stable' });
    }
    const unknown = await call(`${api}/admin/assistant/reset?template=nope`, { method: 'POST', bearer: admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('default-stream');
    expect((await call(`${api}/assistant/reset?template=echo`, { method: 'POST', bearer: root })).status).toBe(400);
    expect((await call(`${api}/assistant/reset?template=default`, { method: 'POST', bearer: admin })).status).toBe(403);
    const templates = await call(`${api}/admin/assistant/templates`, { bearer: admin });
    expect(templates.body.items).toHaveLength(11);
    expect(templates.body.items.every((t: { available: boolean }) => t.available)).toBe(true);
    await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin });
  });

  it('refuses a quoted stream flag with 400 naming the field, and reports streaming for a flow that streams', async () => {
    const streamingDoc = (stream: unknown) => ({
      name: 'Streaming assistant',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { providerID: 'local', stream } },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'chat' },
        { id: 'e2', from: 'chat', to: 'end', port: 'Reply' },
      ],
    });
    const quoted = await call(`${api}/flows/assistant/versions`, { method: 'POST', bearer: admin, ...json(streamingDoc('true')) });
    expect(quoted.status).toBe(400);
    expect(quoted.body.code).toBe('INVALID_NODE_CONFIG');
    expect(quoted.body.details).toEqual([expect.objectContaining({ field: '/nodes/1/config/stream', problems: [expect.stringContaining('must be a boolean')] })]);

    const saved = await call(`${api}/flows/assistant/versions`, { method: 'POST', bearer: admin, ...json(streamingDoc(true)) });
    expect(saved.status).toBeLessThan(300);
    expect((await call(`${api}/flows/assistant/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const config = await until(() => call(`${api}/assistant/config`), (r) => r.body?.capabilities?.streaming === true, 2000);
    expect(config.body.capabilities).toMatchObject({ streaming: true });
    await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin });
  });

  it('counts feedback in the per-variant stats and lists chats for admins only', async () => {
    const res = await chat({ message: 'rate me' });
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const [session] = parseSse(await res.text());
    const fb = await call(`${api}/assistant/feedback`, { method: 'POST', ...json({ sessionId, runId: session.data.runId, rating: 'up' }) });
    expect(fb.status).toBe(200);
    const stats = await call(`${api}/admin/assistant/stats`, { bearer: admin });
    expect(stats.status).toBe(200);
    const stable = stats.body.variants.find((v: { variantLabel: string }) => v.variantLabel === 'stable');
    expect(stable).toMatchObject({ up: expect.any(Number), chats: expect.any(Number), tokens: 0 });
    expect(stable.up).toBeGreaterThanOrEqual(1);
    const list = await call(`${api}/assistant/chats?limit=2`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    expect(list.body.nextCursor).toEqual(expect.any(String));
    const one = await call(`${api}/assistant/chats/${list.body.items[0].id}`, { bearer: admin });
    expect(one.body).toMatchObject({ sessionId: list.body.items[0].sessionId, runIds: expect.any(Array), messages: expect.any(Array) });
    expect((await call(`${api}/assistant/chats`)).status).toBe(401);
    expect((await call(`${api}/assistant/chats`, { bearer: await token('bob', []) })).status).toBe(403);
  });

  it('takes an empty stickyBy as not sticky, and answers a deployment whose weights are all 0 with 409 NO_ELIGIBLE_VARIANT an operator can act on', async () => {
    const patch = (body: unknown) => call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json(body) });
    const { stickyBy } = (await call(`${api}/deployments/assistant`, { bearer: admin })).body as { stickyBy?: string };
    const cleared = await patch({ stickyBy: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.stickyBy).toBeUndefined();
    const { variants } = (await call(`${api}/deployments/assistant`, { bearer: admin })).body as { variants: Array<{ label: string; flowId: string; weight: number }> };
    try {
      expect((await patch({ variants: variants.map((v) => ({ ...v, weight: 0 })) })).status).toBe(200);
      const message = await until(() => call(`${api}/assistant/messages`, { method: 'POST', ...json({ message: 'anyone there?' }) }), (r) => r.status !== 200, 2000);
      expect(message.status).toBe(409);
      expect(message.body).toMatchObject({ statusCode: 409, code: 'NO_ELIGIBLE_VARIANT', message: expect.stringContaining('give at least one a weight above 0') });
      expect(message.body.message).toContain('assistant');
      for (const query of ['?sessionId=config-session-2', '']) {
        const config = await call(`${api}/assistant/config${query}`);
        expect(config.status).toBe(409);
        expect(config.body).toMatchObject({ code: 'NO_ELIGIBLE_VARIANT', deploymentId: 'assistant', message: expect.stringContaining('every variant has weight 0') });
      }
      const select = await call(`${api}/deployments/assistant/select`, { method: 'POST', bearer: admin, ...json({ meta: {} }) });
      expect(select.status).toBe(409);
      expect(select.body).toMatchObject({ code: 'NO_ELIGIBLE_VARIANT', deploymentId: 'assistant' });
    } finally {
      await patch({ variants, stickyBy: stickyBy ?? null });
    }
    const back = await until(() => call(`${api}/assistant/config?sessionId=config-session-2`), (r) => r.status === 200, 2000);
    expect(back.body.activeVariant).toBe('stable');
  });

  it('records the variant that served a chat on its run and on the usage rows of its model calls, so cost splits by variant', async () => {
    expect((await call(`${api}/admin/assistant/reset?template=minimal`, { method: 'POST', bearer: admin })).status).toBe(200);
    try {
      const res = await chat({ message: 'which variant answers?' });
      expect(res.status).toBe(200);
      const [session] = parseSse(await res.text());
      const runId = session.data.runId as string;
      const run = await call(`${api}/runs/${runId}`, { bearer: admin });
      expect(run.body).toMatchObject({ runId, variant: 'stable' });
      const rows = await until(() => call(`${api}/admin/llm/usage?runId=${runId}`, { bearer: admin }), (r) => r.body?.items?.length > 0, 3000);
      expect(rows.body.items).toEqual([expect.objectContaining({ runId, variantLabel: 'stable', assistant: true })]);
      const byVariant = await call(`${api}/admin/llm/usage/by?field=variantLabel`, { bearer: admin });
      expect(byVariant.status).toBe(200);
      expect(byVariant.body.groups).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'stable', calls: expect.any(Number) })]));
    } finally {
      await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin });
    }
  });
});
