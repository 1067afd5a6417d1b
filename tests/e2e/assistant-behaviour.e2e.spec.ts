import { NODE_REGISTRY } from '@flowplane/flow-runtime';
import type { NodeDefinition, NodeRegistry } from '@flowplane/flow/engine';
import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { UpstreamClients } from '../../libs/assistant/src/upstream/upstream.clients';
import { VariantResolver } from '../../libs/assistant/src/upstream/variant-resolver';
import { call, json, parseSse, serviceToken, type SseEvent, testEnv, token, until } from '../support/http';

/**
 * Test nodes registered on the platform's engine: `test/drip` streams `count` tokens `delayMs`
 * apart and answers their concatenation (a slow, streaming flow); `test/fail` throws (a flow that
 * fails). Both stop when the run is cancelled or the platform closes.
 */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(new Error('aborted'))), { once: true });
  });

const dripNode: NodeDefinition = {
  manifest: {
    id: 'test/drip',
    name: 'Drip',
    kind: 'action',
    description: 'Streams numbered tokens slowly, then answers them joined.',
    settingsSchema: { $schema: SETTINGS_SCHEMA_DIALECT, type: 'object', properties: { count: { type: 'integer', default: 5 }, delayMs: { type: 'integer', default: 100 } } },
    inputs: [{ port: 'in' }],
    outputs: [{ port: 'out' }],
  },
  handler: async (ctx) => {
    const count = Number(ctx.config['count'] ?? 5);
    const delayMs = Number(ctx.config['delayMs'] ?? 100);
    const chunks: string[] = [];
    for (let i = 0; i < count; i++) {
      await sleep(delayMs, ctx.signal);
      chunks.push(`t${i} `);
      ctx.emitToken(`t${i} `);
    }
    return { port: 'out', packet: { content: chunks.join('') } };
  },
};

const failNode: NodeDefinition = {
  manifest: { id: 'test/fail', name: 'Fail', kind: 'action', description: 'Always fails.', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] },
  handler: () => {
    throw new Error('the knowledge base is on fire');
  },
};

const flowOf = (node: { id: string; action_ref: string; config?: Record<string, unknown> }, name = 'Assistant under test') => ({
  name,
  nodes: [{ id: 'start', name: 'Start', kind: 'start' }, { ...node, name: node.id, kind: 'action' }, { id: 'end', name: 'End', kind: 'end' }],
  edges: [
    { id: 'e1', from: 'start', to: node.id },
    { id: 'e2', from: node.id, to: 'end' },
  ],
});

const echoAs = (prefix: string) => flowOf({ id: 'say', action_ref: 'svc/template-render', config: { template: `${prefix}{{input.message}}`, target: 'content' } }, `Assistant ${prefix}`);

/** Reads an SSE response frame by frame; `stopWhen` aborts the request after that frame (a deliberate disconnect). */
async function readFrames(res: Response, stopWhen?: (f: SseEvent) => boolean, abort?: AbortController): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: SseEvent[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut + 2);
      buffer = buffer.slice(cut + 2);
      const [frame] = parseSse(block);
      if (!frame) continue;
      frames.push(frame);
      if (stopWhen?.(frame)) {
        abort?.abort();
        await reader.cancel().catch(() => undefined);
        return frames;
      }
    }
  }
}

describe('assistant behaviour: disconnects, streaming, variants, limits and faults', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  const chat = (body: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}) =>
    fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: JSON.stringify(body), signal: init.signal });
  const transcript = async (sessionId: string) => (await call(`${api}/assistant/chats/me/${sessionId}`)).body?.messages?.map((m: { role: string; content: string }) => `${m.role}: ${m.content}`);
  /** Saves `doc` as a new version of the module flow and publishes it. */
  const publishModuleFlow = async (doc: unknown) => {
    const v = await call(`${api}/flows/assistant/versions`, { method: 'POST', bearer: admin, ...json(doc) });
    expect(v.status).toBe(201);
    expect((await call(`${api}/flows/assistant/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
  };

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '3', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '0', ASSISTANT_RUN_TIMEOUT_MS: '1500' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    const registry = platform.services.find((s) => s.name === 'flow-runtime')!.app.get<NodeRegistry>(NODE_REGISTRY);
    registry.define(dripNode.manifest, dripNode.handler);
    registry.define(failNode.manifest, failNode.handler);
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
  }, 60_000);
  afterAll(() => platform?.close());

  it('streams token frames from default-stream, then exactly one message frame that joins them', async () => {
    expect((await call(`${api}/admin/assistant/reset?template=default-stream`, { method: 'POST', bearer: admin })).status).toBe(200);
    const frames = parseSse(await (await chat({ message: 'stream this please' })).text());
    const events = frames.map((f) => f.event);
    expect(events[0]).toBe('session');
    expect(events.filter((e) => e === 'token').length).toBeGreaterThan(1);
    expect(events.filter((e) => e === 'message')).toHaveLength(1);
    expect(events.at(-1)).toBe('message');
    const tokens = frames.filter((f) => f.event === 'token');
    expect(tokens[0].data).toMatchObject({ chunk: expect.any(String), index: 0, nodeId: 'chat' });
    const message = frames.at(-1)!.data;
    expect(message).toMatchObject({ status: 'completed', content: 'You said: "stream this please".' });
    expect(tokens.map((t) => t.data.chunk).join('')).toBe(message.content);
    const ids = frames.map((f) => f.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('keeps running when the client disconnects mid-answer, stores the reply, and resumes exactly after Last-Event-ID', async () => {
    await publishModuleFlow(flowOf({ id: 'drip', action_ref: 'test/drip', config: { count: 6, delayMs: 80 } }));
    const abort = new AbortController();
    const res = await chat({ message: 'tell me slowly' }, { signal: abort.signal });
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const before = await readFrames(res, (f) => f.event === 'token', abort);
    expect(before.map((f) => f.event)).toEqual(['session', 'token']);
    const runId = before[0].data.runId;

    // Gone mid-answer: the run carries on and its reply lands in the transcript.
    const stored = await until(() => transcript(sessionId), (t) => t?.length === 2, 5000, 50);
    expect(stored).toEqual(['user: tell me slowly', 'assistant: t0 t1 t2 t3 t4 t5 ']);

    const resume = (lastEventId?: number) =>
      fetch(`${api}/assistant/messages/${runId}/events`, { headers: { 'x-assistant-session-id': sessionId, ...(lastEventId ? { 'last-event-id': String(lastEventId) } : {}) } });
    const all = parseSse(await (await resume()).text());
    expect(all.map((f) => f.event)).toEqual(['session', 'token', 'token', 'token', 'token', 'token', 'token', 'message']);
    expect(all.slice(0, 2)).toEqual(before);
    expect(all.at(-1)!.data).toEqual({ content: 't0 t1 t2 t3 t4 t5 ', sources: [], actions: [], status: 'completed' });

    const after = parseSse(await (await resume(before[1].id)).text());
    expect(after).toEqual(all.filter((f) => f.id > before[1].id));
    expect(after.map((f) => f.event)).toEqual(['token', 'token', 'token', 'token', 'token', 'message']);
    // The resumed stream saw the end too: the reply is still stored once.
    expect(await transcript(sessionId)).toHaveLength(2);
  });

  it('resumes a run that is still answering and follows it to its end', async () => {
    await publishModuleFlow(flowOf({ id: 'drip', action_ref: 'test/drip', config: { count: 5, delayMs: 120 } }));
    const abort = new AbortController();
    const res = await chat({ message: 'again slowly' }, { signal: abort.signal });
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const before = await readFrames(res, (f) => f.event === 'session', abort);
    const resumed = await fetch(`${api}/assistant/messages/${before[0].data.runId}/events`, { headers: { 'x-assistant-session-id': sessionId, 'last-event-id': String(before[0].id) } });
    const rest = parseSse(await resumed.text());
    expect(rest.map((f) => f.event)).toEqual(['token', 'token', 'token', 'token', 'token', 'message']);
    expect(rest.every((f) => f.id > before[0].id)).toBe(true);
    expect(rest.at(-1)!.data.content).toBe('t0 t1 t2 t3 t4 ');
  });

  it('ends a failing flow with one error frame {code, message, errorId} and keeps the user turn', async () => {
    await publishModuleFlow(flowOf({ id: 'boom', action_ref: 'test/fail' }));
    const res = await chat({ message: 'will this work?' });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const frames = parseSse(await res.text());
    expect(frames.map((f) => f.event)).toEqual(['session', 'error']);
    expect(frames[1].data).toEqual({ code: expect.any(String), message: expect.any(String), errorId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // What the node threw stays in the log under the errorId: the public chat does not show internals.
    expect(frames[1].data.message).not.toContain('knowledge base');
    expect(JSON.stringify(frames[1].data)).not.toMatch(/at .*\.ts:\d+/);
    expect(await transcript(sessionId)).toEqual(['user: will this work?']);
    // The session goes on: the next message is answered once the flow is fixed.
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin })).status).toBe(200);
    const next = parseSse(await (await chat({ sessionId, message: 'and now?' })).text());
    expect(next.at(-1)).toMatchObject({ event: 'message', data: { content: 'and now?' } });
    expect(await transcript(sessionId)).toEqual(['user: will this work?', 'user: and now?', 'assistant: and now?']);
  });

  it('ends a flow slower than ASSISTANT_RUN_TIMEOUT_MS with a RUN_TIMEOUT error frame and keeps the user turn', async () => {
    await publishModuleFlow(flowOf({ id: 'drip', action_ref: 'test/drip', config: { count: 1, delayMs: 4000 } }));
    const started = Date.now();
    const res = await chat({ message: 'are you there?' });
    const sessionId = res.headers.get('x-assistant-session-id')!;
    const frames = parseSse(await res.text());
    expect(Date.now() - started).toBeLessThan(3500);
    expect(frames.map((f) => f.event)).toEqual(['session', 'error']);
    expect(frames[1].data).toEqual({ code: 'RUN_TIMEOUT', message: expect.stringContaining('1500 ms'), errorId: expect.any(String) });
    expect(await transcript(sessionId)).toEqual(['user: are you there?']);
    // Nobody waits for the run any more: it is cancelled, not left to finish (and spend tokens).
    const runId = (frames[0].data as { runId: string }).runId;
    let run: { status?: string; reason?: string } = {};
    for (let i = 0; i < 40 && run.status !== 'cancelled'; i++) {
      run = (await call(`${api}/runs/${runId}`, { bearer: admin })).body as typeof run;
      if (run.status !== 'cancelled') await new Promise((r) => setTimeout(r, 50));
    }
    expect(run.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(3800);
  });

  it('splits sessions 50/50 over two variants, keeps each session on its variant, and config agrees', async () => {
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin })).status).toBe(200);
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'assistant-b', name: 'Assistant B' }) })).status).toBe(201);
    const v = await call(`${api}/flows/assistant-b/versions`, { method: 'POST', bearer: admin, ...json(echoAs('B says: ')) });
    expect((await call(`${api}/flows/assistant-b/publish`, { method: 'POST', bearer: admin, ...json({ versionID: v.body.versionId }) })).status).toBe(200);
    const patched = await call(`${api}/deployments/assistant`, {
      method: 'PATCH',
      bearer: admin,
      ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: 50 }, { label: 'b', flowId: 'assistant-b', weight: 50 }] }),
    });
    expect(patched.status).toBe(200);

    const seen: Record<string, string> = {};
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const sessionId = `variant-session-${i}`;
        const frames = parseSse(await (await chat({ sessionId, message: `hi ${i}` })).text());
        seen[sessionId] = frames[0].data.variant;
        // Each variant answers with its own flow.
        expect(frames.at(-1)!.data.content).toBe(frames[0].data.variant === 'b' ? `B says: hi ${i}` : `hi ${i}`);
        expect(frames[0].data.flowId).toBe(frames[0].data.variant === 'b' ? 'assistant-b' : 'assistant');
      }),
    );
    const counts = Object.values(seen).reduce<Record<string, number>>((acc, l) => ({ ...acc, [l]: (acc[l] ?? 0) + 1 }), {});
    expect(Object.keys(counts).sort()).toEqual(['b', 'stable']);
    expect(counts.b).toBeGreaterThanOrEqual(8);
    expect(counts.stable).toBeGreaterThanOrEqual(8);

    for (const label of ['b', 'stable']) {
      const sessionId = Object.keys(seen).find((s) => seen[s] === label)!;
      for (const message of ['second', 'third']) {
        const frames = parseSse(await (await chat({ sessionId, message })).text());
        expect(frames[0].data.variant).toBe(label);
      }
      const config = await call(`${api}/assistant/config?sessionId=${sessionId}`);
      expect(config.body).toMatchObject({ activeVariant: label, flowId: label === 'b' ? 'assistant-b' : 'assistant' });
      const again = await call(`${api}/assistant/config?sessionId=${sessionId}`);
      expect(again.body.activeVariant).toBe(label);
    }
    const onB = await call(`${api}/assistant/chats?variantLabel=b&limit=100`, { bearer: admin });
    expect(onB.body.items.length).toBe(counts.b);
    expect(onB.body.items.every((c: { flowId: string }) => c.flowId === 'assistant-b')).toBe(true);

    // Back to one variant for the tests that follow.
    expect((await call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: 100 }] }) })).status).toBe(200);
  });

  it('selects variants in the assistant exactly as the deployments select route does, for many sessions and weights', async () => {
    const assistant = platform.services.find((s) => s.name === 'assistant')!.app;
    const resolver = assistant.get(VariantResolver);
    const remote = jest.spyOn(assistant.get(UpstreamClients), 'select');
    const selectToken = await serviceToken('assistant', 'deployments', ['internal:deployments:select']);
    const deploymentsUrl = platform.services.find((s) => s.name === 'deployments')!.url;
    const revisions: number[] = [];
    const sub = await platform.bus.subscribe<{ deploymentId: string; revision: number }>(['deployments.changed'], { groupId: 'test-agreement', fromBeginning: false }, async (e) => {
      if (e.data.deploymentId === 'assistant') revisions.push(e.data.revision);
    });
    try {
      for (const [a, b] of [[50, 50], [90, 10], [1, 3], [0, 1]]) {
        const patched = await call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: a }, { label: 'b', flowId: 'assistant-b', weight: b }] }) });
        expect(patched.status).toBe(200);
        // The change has been announced (and, a moment later, heard by the assistant too).
        await until(async () => revisions.at(-1), (r) => r === patched.body.revision, 2000, 10);
        await new Promise((r) => setTimeout(r, 50));
        // Warm: the first selection after a change asks remotely and reads the record in the background.
        await until(async () => (remote.mockClear(), await resolver.select({ session_id: 'warm-up-1', sessionId: 'warm-up-1' }), remote.mock.calls.length), (n) => n === 0, 2000, 20);
        for (let i = 0; i < 250; i++) {
          const sessionId = `agree-${a}-${b}-${i}-${(i * 2654435761) % 1e9}`;
          const meta = { session_id: sessionId, sessionId };
          const local = await resolver.select(meta);
          const r = await call(`${deploymentsUrl}/internal/deployments/assistant/select`, { method: 'POST', bearer: selectToken, ...json({ meta }) });
          expect({ sessionId, label: local.label, flowId: local.flowId }).toEqual({ sessionId, label: r.body.variant.label, flowId: r.body.variant.flowId });
        }
        expect(remote).not.toHaveBeenCalled();
      }
    } finally {
      remote.mockRestore();
      await sub.stop();
    }
    expect((await call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: 100 }] }) })).status).toBe(200);
  });

  it('honours a PATCH of the variants in the next message within a second', async () => {
    const variantOf = async (sessionId: string) => parseSse(await (await chat({ sessionId, message: 'which?' })).text())[0].data.variant;
    // The cache is warm on `stable` alone.
    await until(() => variantOf(`patch-warm-${Date.now()}`), (v) => v === 'stable', 2000, 20);
    expect(await variantOf(`patch-warm-${Date.now()}-2`)).toBe('stable');
    const patched = await call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: 0 }, { label: 'b', flowId: 'assistant-b', weight: 1 }] }) });
    expect(patched.status).toBe(200);
    const started = Date.now();
    let n = 0;
    expect(await until(() => variantOf(`patch-after-${n++}`), (v) => v === 'b', 1000, 10)).toBe('b');
    expect(Date.now() - started).toBeLessThan(1000);
    // Every later message stays on the new split.
    for (let i = 0; i < 5; i++) expect(await variantOf(`patch-later-${i}`)).toBe('b');
    expect((await call(`${api}/deployments/assistant`, { method: 'PATCH', bearer: admin, ...json({ variants: [{ label: 'stable', flowId: 'assistant', weight: 100 }] }) })).status).toBe(200);
  });

  it('refuses the 4th anonymous message of a session within a minute with 429, Retry-After and the standard body; other sessions go on', async () => {
    const sessionId = 'limited-session-1';
    for (let i = 0; i < 3; i++) expect((await chat({ sessionId, message: `m${i}` })).status).toBe(200);
    const refused = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId, message: 'one too many' }) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({ statusCode: 429, error: 'Too Many Requests', code: 'RATE_LIMITED', message: expect.any(String), requestId: expect.any(String) });
    // Nothing of the refused message was stored.
    expect(await transcript(sessionId)).not.toContain('user: one too many');
    expect((await chat({ sessionId: 'limited-session-2', message: 'hello' })).status).toBe(200);
    // An authenticated caller is not counted against the anonymous limit.
    expect((await chat({ sessionId, message: 'signed in' }, { headers: { authorization: `Bearer ${await token('carol')}` } })).status).toBe(200);
  });

  it('answers 503 before any stream opens when flow-runtime or deployments is down, with nothing written', async () => {
    const known = 'down-session-1';
    expect((await chat({ sessionId: known, message: 'before the outage' })).status).toBe(200);
    const kept = await transcript(known);

    await platform.services.find((s) => s.name === 'flow-runtime')!.close();
    for (const [sessionId, expected] of [['down-session-2', undefined], [known, kept]] as const) {
      const res = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId, message: 'during the outage' }) });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toMatchObject({ statusCode: 503, code: expect.any(String), message: expect.stringContaining('flow-runtime'), requestId: expect.any(String) });
      expect(await transcript(sessionId)).toEqual(expected);
    }
    expect((await call(`${api}/assistant/chats/me/down-session-2`)).status).toBe(404);

    await platform.services.find((s) => s.name === 'deployments')!.close();
    // The assistant selects from its copy of the deployment while that is fresh; once the copy is
    // gone (its TTL or a change event), a deployments outage is a 503 that names deployments.
    platform.services.find((s) => s.name === 'assistant')!.app.get(VariantResolver).invalidate();
    const res = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId: 'down-session-3', message: 'still down' }) });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, code: expect.any(String), message: expect.stringContaining('deployments') });
    expect((await call(`${api}/assistant/chats/me/down-session-3`)).status).toBe(404);
    expect(await transcript(known)).toEqual(kept);
  }, 30_000);
});

describe('assistant with ASSISTANT_ANONYMOUS_ALLOWED=false', () => {
  let platform: Standalone;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_ANONYMOUS_ALLOWED: 'false', ASSISTANT_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '2' }) });
    api = `${platform.url}/api/v1`;
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: await token('alice', ['admin:access']) })).status).toBe(200);
  }, 60_000);
  afterAll(() => platform?.close());

  it('refuses anonymous chat with 401, answers a signed-in caller and stamps their userId on the chat', async () => {
    const anonymous = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId: 'auth-session-1', message: 'hello' }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ statusCode: 401, code: expect.any(String), requestId: expect.any(String) });
    expect((await call(`${api}/assistant/chats/me/auth-session-1`)).status).toBe(404);
    expect((await call(`${api}/assistant/config`)).body.anonymousAllowed).toBe(false);

    const bob = await token('bob');
    const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: 'auth-session-1', message: 'hello' }) });
    expect(res.status).toBe(200);
    expect(parseSse(await res.text()).at(-1)).toMatchObject({ event: 'message', data: { content: 'hello' } });
    const list = await call(`${api}/assistant/chats?userId=bob`, { bearer: await token('alice', ['admin:access']) });
    expect(list.body.items).toEqual([expect.objectContaining({ sessionId: 'auth-session-1', userId: 'bob' })]);
  });

  it('does not count signed-in callers against the per-address limit', async () => {
    const bob = await token('bob');
    for (let i = 0; i < 4; i++) {
      const res = await call(`${api}/assistant/messages`, { method: 'POST', bearer: bob, ...json({ message: `n${i}` }) });
      expect(res.status).toBe(200);
    }
  });
});

describe('assistant per-address rate limit', () => {
  let platform: Standalone;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '3' }) });
    api = `${platform.url}/api/v1`;
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: await token('alice', ['admin:access']) })).status).toBe(200);
  }, 60_000);
  afterAll(() => platform?.close());

  it('refuses the 4th anonymous message from one address within a minute, whatever the session, with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId: `address-session-${i}`, message: 'hi' }) })).status).toBe(200);
    const refused = await call(`${api}/assistant/messages`, { method: 'POST', ...json({ sessionId: 'address-session-9', message: 'hi' }) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', requestId: expect.any(String) });
    expect((await call(`${api}/assistant/chats/me/address-session-9`)).status).toBe(404);
    // A new session from the same address does not escape the limit either.
    expect((await call(`${api}/assistant/messages`, { method: 'POST', ...json({ message: 'fresh session' }) })).status).toBe(429);
  });
});
