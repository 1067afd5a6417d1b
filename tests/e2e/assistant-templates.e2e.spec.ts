import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, parseSse, type SseEvent, testEnv, token, until } from '../support/http';

/** The first injection of the fixture (a guard on the input side refuses it). */
const INJECTION = readFileSync(join(__dirname, '../fixtures/prompt-injection.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { text: string; label: string })
  .find((r) => r.label === 'injection')!.text;

const REFUSAL = "Sorry, I can't help with that request.";
const REFUND_SENTENCE = 'Refunds are paid back to the original card within 14 days of the return arriving at our warehouse.';
const manual = {
  id: 'returns-manual',
  title: 'Returns manual',
  url: 'https://help.example.com/returns',
  format: 'markdown',
  text: ['# Returns', '', REFUND_SENTENCE, '', '## Shipping', '', 'Parcels to Norway take five working days by road.'].join('\n'),
};

interface Turn {
  status: number;
  sessionId: string;
  frames: SseEvent[];
  tokens: string[];
  message: { content: string; sources: Array<{ n: number; title: string; url?: string }>; status: string };
  runId: string;
}

/**
 * Every template of the catalog on the local provider, through the public chat route: reset to it,
 * chat, and read the run record for the guard and model steps it took.
 */
describe('assistant templates through /assistant/messages', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  const reset = async (name: string) => {
    const r = await call(`${api}/admin/assistant/reset?template=${name}`, { method: 'POST', bearer: admin });
    expect(r.status).toBe(200);
    return r.body as { template: string; versionId: string; published: boolean; warnings?: string[] };
  };

  const chat = async (message: string, extra: { sessionId?: string; meta?: Record<string, string> } = {}): Promise<Turn> => {
    const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message, ...extra }) });
    const frames = parseSse(await res.text());
    const message_ = frames.find((f) => f.event === 'message')?.data;
    expect(frames[frames.length - 1].event).toBe('message');
    return {
      status: res.status,
      sessionId: res.headers.get('x-assistant-session-id')!,
      frames,
      tokens: frames.filter((f) => f.event === 'token').map((f) => f.data.chunk as string),
      message: message_,
      runId: frames[0].data.runId,
    };
  };

  /** Completed steps of a run by node id, once the run record has its final status. */
  const steps = async (runId: string): Promise<{ status: string; nodes: string[]; guards: number; models: number }> => {
    const run = await until(
      () => call(`${api}/runs/${runId}`, { bearer: admin }),
      (r) => r.status === 200 && ['completed', 'rejected', 'failed'].includes(r.body.status),
      5_000,
    );
    const started = (run.body.timeline as Array<{ type: string; data: { nodeId: string; actionRef?: string } }>).filter((e) => e.type === 'node.started');
    return {
      status: run.body.status,
      nodes: started.map((e) => e.data.nodeId),
      guards: started.filter((e) => e.data.actionRef === 'svc/guard').length,
      models: started.filter((e) => e.data.actionRef === 'svc/llm-chat').length,
    };
  };

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT_PER_ADDRESS: '0', SEARCH_EMBEDDING_DIM: '64' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    await until(() => call(`${api}/flows/nodes`, { bearer: admin }), (r) => r.status === 200 && r.body.some((n: { id: string }) => n.id === 'svc/assistant-rag-context'), 15_000, 100);
  }, 60_000);
  afterAll(() => platform?.close());

  it('lists all eleven as available, each registered with flow-runtime with schemaVersion and a position per node', async () => {
    const list = await call(`${api}/admin/assistant/templates`, { bearer: admin });
    expect(list.status).toBe(200);
    const items = list.body.items as Array<{ name: string; tier: string; recommended: boolean; requires: string[]; available: boolean }>;
    expect(items.map((t) => [t.name, t.tier])).toEqual([
      ['echo', 'T0'], ['minimal', 'T1'], ['default', 'T2'], ['default-stream', 'T2s'], ['production', 'T3'], ['multi-guard', 'T3+'],
      ['rag', 'T4'], ['rag-clean', 'T4b'], ['rag-stream', 'T4s'], ['qa-only', 'T4'], ['rag-rewrite', 'T5'],
    ]);
    expect(items.every((t) => t.available)).toBe(true);
    expect(items.filter((t) => t.recommended).map((t) => t.name)).toEqual(['default']);
    expect(items.find((t) => t.name === 'rag')!.requires.join(' ')).toContain('svc_docs');
    const registry = await call(`${api}/flows/templates?q=assistant`, { bearer: admin });
    expect(registry.status).toBe(200);
    const ids = registry.body.map((t: { id: string }) => t.id);
    for (const t of items) expect(ids).toContain(`assistant/${t.name}`);
  });

  it('a retrieval template publishes while svc_docs is missing, its reset answer naming the index', async () => {
    const r = await reset('rag');
    expect(r).toMatchObject({ template: 'rag', published: true, warnings: [expect.stringMatching(/index svc_docs does not exist/)] });
    // The chat still answers, without excerpts.
    const turn = await chat('How long do refunds take?');
    expect(turn.message).toMatchObject({ status: 'completed', sources: [], warnings: [expect.stringMatching(/svc_docs does not exist/)] });
    expect((await reset('default')).warnings).toBeUndefined();
  });

  it('echo: echoes, no guard and no model', async () => {
    await reset('echo');
    const t = await chat('hello there');
    expect(t.message).toMatchObject({ content: 'hello there', status: 'completed' });
    expect(await steps(t.runId)).toMatchObject({ guards: 0, models: 0 });
  });

  it('minimal: one model call, no guard, an injection is answered', async () => {
    await reset('minimal');
    const t = await chat('hello there');
    expect(t.message).toMatchObject({ content: 'You said: "hello there".', status: 'completed' });
    expect(await steps(t.runId)).toMatchObject({ guards: 0, models: 1 });
    expect((await chat(INJECTION)).message.status).toBe('completed');
  });

  it('default: two guards and one model; an injection is refused, the run rejected; meta.intent handoff files a handoff', async () => {
    await reset('default');
    const t = await chat('Where is my parcel?');
    expect(t.message).toMatchObject({ content: 'You said: "Where is my parcel?".', status: 'completed' });
    expect(t.tokens).toEqual([]);
    expect(await steps(t.runId)).toMatchObject({ status: 'completed', guards: 2, models: 1 });
    const refused = await chat(INJECTION);
    expect(refused.message).toMatchObject({ content: REFUSAL, status: 'rejected' });
    expect(await steps(refused.runId)).toMatchObject({ status: 'rejected', guards: 1, models: 0 });
    const handoff = await chat('I want a person', { meta: { intent: 'handoff', email: 'ann@example.com' } });
    expect(handoff.message.content).toBe('Thank you. A person from our team will contact you at ann@example.com.');
    expect(await steps(handoff.runId)).toMatchObject({ guards: 0, models: 0, nodes: expect.arrayContaining(['handoff', 'handoff_filed']) });
  });

  it('default-stream: tokens before the message frame, which carries the same text', async () => {
    await reset('default-stream');
    const t = await chat('Where is my parcel?');
    expect(t.tokens.length).toBeGreaterThan(3);
    expect(t.tokens.join('')).toBe(t.message.content);
    expect(t.frames.findIndex((f) => f.event === 'token')).toBeLessThan(t.frames.findIndex((f) => f.event === 'message'));
    expect(await steps(t.runId)).toMatchObject({ guards: 2, models: 1 });
    expect((await chat(INJECTION)).message.status).toBe('rejected');
  });

  it('production: [[ESCALATE]] in the draft hands the chat to a person and never reaches the user', async () => {
    await reset('production');
    const config = await call(`${api}/assistant/config`);
    expect(config.body.capabilities).toEqual({ handoff: true, escalation: true, streaming: false });
    const plain = await chat('Where is my parcel?');
    expect(plain.message).toMatchObject({ content: 'You said: "Where is my parcel?".', status: 'completed' });
    expect(await steps(plain.runId)).toMatchObject({ guards: 2, models: 1 });
    expect((await chat(INJECTION)).message).toMatchObject({ content: REFUSAL, status: 'rejected' });

    // The local provider ends its reply with [[ESCALATE]] when the user's message carries it.
    const escalated = await chat('My order arrived broken and I want compensation [[ESCALATE]]', { meta: { email: 'bob@example.com' } });
    expect(escalated.message).toMatchObject({ content: 'Thank you. A person from our team will contact you at bob@example.com.', status: 'completed' });
    for (const f of escalated.frames) expect(JSON.stringify(f.data)).not.toContain('ESCALATE');
    const run = await steps(escalated.runId);
    expect(run).toMatchObject({ guards: 1, models: 1, nodes: expect.arrayContaining(['escalation', 'handoff', 'handoff_filed']) });
    expect(run.nodes).not.toContain('output_guard');
    const handoffs = await call(`${api}/assistant/handoffs?status=pending`, { bearer: admin });
    expect(handoffs.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: escalated.sessionId, email: 'bob@example.com', reason: 'The assistant escalated the conversation to a person.' })]));
    const stored = await call(`${api}/assistant/chats/me/${escalated.sessionId}`);
    const replies = stored.body.messages.filter((m: { role: string }) => m.role === 'assistant');
    expect(replies).toHaveLength(1);
    expect(replies[0].content).not.toContain('ESCALATE');

    // Without an e-mail the escalation asks for one.
    const noEmail = await chat('Please escalate [[ESCALATE]]');
    expect(noEmail.message.content).toBe('To reach a person, please give an e-mail address where we can contact you.');
  });

  it('production: an output-guard block refuses the user and mails trust and safety on the side', async () => {
    const { versionId } = await reset('production');
    // An operator tightens the output guard (a blocklist term); the rest of the template is unchanged.
    const version = await call(`${api}/flows/assistant/versions/${versionId}`, { bearer: admin });
    expect(version.status).toBe(200);
    const document = version.body.document;
    const outputGuard = document.nodes.find((n: { id: string }) => n.id === 'output_guard');
    outputGuard.config = { guardID: 'blocklist', role: 'output', terms: ['voucher code'], rubric: 'none', onError: 'open' };
    const saved = await call(`${api}/flows/assistant/versions`, { method: 'POST', bearer: admin, ...json(document) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/assistant/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const t = await chat('Give me a voucher code please');
    expect(t.message).toMatchObject({ content: REFUSAL, status: 'rejected' });
    const mail = await until(
      () => call(`${api}/admin/mail/outbox?limit=200`, { bearer: admin }),
      (r) => r.status === 200 && r.body.items.some((m: { subject: string }) => m.subject.includes(t.sessionId)),
      15_000,
    ).then((r) => r.body.items.find((m: { subject: string }) => m.subject.includes(t.sessionId)));
    expect(mail).toMatchObject({ to: ['support@localhost'], subject: `Assistant reply blocked by the output guard (session ${t.sessionId})` });
    expect(mail.text).toContain('voucher code');
  });

  it('multi-guard: four guard steps around one model call; an injection stops at the first guard', async () => {
    await reset('multi-guard');
    const t = await chat('Where is my parcel?');
    expect(t.message).toMatchObject({ content: 'You said: "Where is my parcel?".', status: 'completed' });
    const run = await steps(t.runId);
    expect(run).toMatchObject({ guards: 4, models: 1 });
    expect(run.nodes).toEqual(['start', 'input_guard_1', 'input_guard_2', 'chat', 'output_guard_1', 'output_guard_2', 'end']);
    const refused = await chat(INJECTION);
    expect(refused.message).toMatchObject({ content: REFUSAL, status: 'rejected' });
    expect(await steps(refused.runId)).toMatchObject({ guards: 1, models: 0 });
    // No handoff in this tier: the intent is just a message.
    const intent = await chat('a person please', { meta: { intent: 'handoff', email: 'c@example.com' } });
    expect(intent.message.content).toBe('You said: "a person please".');
  });

  it('multi-guard on a classifier outage: each pair fails open then closed, the chat is refused without a model call', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const profile = await call(`${api}/admin/profiles`, {
      method: 'POST',
      bearer: await token('alice', ['admin:access', 'profiles:*']),
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'classifier-down', name: 'Classifier that is down', config: { providerID: 'openai-compatible', baseURL: `http://127.0.0.1:${port}/v1`, model: 'guard' } }),
    });
    expect(profile.status).toBe(201);
    const { versionId } = await reset('multi-guard');
    const document = (await call(`${api}/flows/assistant/versions/${versionId}`, { bearer: admin })).body.document;
    for (const n of document.nodes) if (n.action_ref === 'svc/guard') n.config.profile = 'classifier-down';
    const saved = await call(`${api}/flows/assistant/versions`, { method: 'POST', bearer: admin, ...json(document) });
    expect((await call(`${api}/flows/assistant/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const t = await chat('Where is my parcel?');
    expect(t.message).toMatchObject({ content: REFUSAL, status: 'rejected' });
    const run = await call(`${api}/runs/${t.runId}`, { bearer: admin });
    const warnings = (run.body.timeline as Array<{ type: string; data: { nodeId: string; level?: string; message?: string } }>).filter((e) => e.type === 'node.log' && e.data.level === 'warn');
    expect(warnings.find((e) => e.data.nodeId === 'input_guard_1')?.data.message).toMatch(/failing open/);
    expect(warnings.find((e) => e.data.nodeId === 'input_guard_2')?.data.message).toMatch(/failing closed/);
    expect(await steps(t.runId)).toMatchObject({ status: 'rejected', guards: 2, models: 0 });
  }, 30_000);

  describe('retrieval, after ingesting a document', () => {
    beforeAll(async () => {
      const ingested = await call(`${api}/admin/assistant/ingest`, { method: 'POST', bearer: admin, ...json({ documents: [manual] }) });
      expect(ingested.status).toBe(200);
    });

    it('rag: cites [N], sources on the message frame, two guards, one model; handoff and refusal', async () => {
      expect((await reset('rag')).warnings).toBeUndefined();
      const t = await chat('How long until refunds are paid back to my card?');
      expect(t.message.status).toBe('completed');
      expect(t.message.content).toContain(REFUND_SENTENCE.slice(0, -1));
      expect(t.message.content).toMatch(/\[1\]/);
      expect(t.message.sources[0]).toMatchObject({ n: 1, title: 'Returns manual', url: manual.url });
      expect(t.tokens).toEqual([]);
      const run = await steps(t.runId);
      expect(run).toMatchObject({ guards: 2, models: 1 });
      expect(run.nodes).toContain('retrieve');
      expect((await chat(INJECTION)).message).toMatchObject({ content: REFUSAL, status: 'rejected', sources: [] });
      const handoff = await chat('a person please', { meta: { intent: 'handoff', email: 'dan@example.com' } });
      expect(handoff.message.content).toContain('dan@example.com');
    });

    it('rag-clean: the same answer without [N] markers, sources still on the message frame', async () => {
      await reset('rag-clean');
      const t = await chat('How long until refunds are paid back to my card?');
      expect(t.message.content).toContain(REFUND_SENTENCE.slice(0, -1));
      expect(t.message.content).not.toMatch(/\[\d+\]/);
      expect(t.message.sources[0]).toMatchObject({ n: 1, title: 'Returns manual' });
      expect(await steps(t.runId)).toMatchObject({ guards: 2, models: 1 });
    });

    it('rag-stream: tokens first, sources only on the terminal message frame', async () => {
      await reset('rag-stream');
      const t = await chat('How long until refunds are paid back to my card?');
      expect(t.tokens.length).toBeGreaterThan(3);
      expect(t.tokens.join('')).toBe(t.message.content);
      for (const f of t.frames.filter((x) => x.event === 'token')) expect(f.data.sources).toBeUndefined();
      expect(t.frames[t.frames.length - 1]).toMatchObject({ event: 'message', data: { sources: [expect.objectContaining({ title: 'Returns manual' })] } });
      expect(await steps(t.runId)).toMatchObject({ guards: 2, models: 1 });
    });

    it('qa-only: each turn stands alone (only the latest question reaches retrieval and the model); no handoff', async () => {
      await reset('qa-only');
      const first = await chat('How long do parcels to Norway take?');
      expect(first.message.content).toContain('Parcels to Norway take five working days by road');
      const second = await chat('How long until refunds are paid back to my card?', { sessionId: first.sessionId });
      expect(second.message.content).toContain(REFUND_SENTENCE.slice(0, -1));
      // The model's prompt holds the excerpts and the latest question only: as many prompt tokens as the same question in a new session.
      const promptTokens = async (runId: string) => (await call(`${api}/runs/${runId}`, { bearer: admin })).body.output.usage.promptTokens as number;
      const alone = await chat('How long until refunds are paid back to my card?');
      expect(await promptTokens(second.runId)).toBe(await promptTokens(alone.runId));
      // The same two turns on rag carry the history: a longer prompt.
      await reset('rag');
      const ragSecond = await chat('How long until refunds are paid back to my card?', { sessionId: first.sessionId });
      expect(await promptTokens(ragSecond.runId)).toBeGreaterThan(await promptTokens(second.runId));
      await reset('qa-only');
      expect(await steps(second.runId)).toMatchObject({ guards: 2, models: 1, nodes: expect.arrayContaining(['single_turn', 'retrieve']) });
      const intent = await chat('a person please', { meta: { intent: 'handoff', email: 'e@example.com' } });
      expect(intent.message.content).not.toContain('e@example.com');
    });

    it('rag-rewrite: a model call writes the search query, the chat answers the original question; two model steps', async () => {
      await reset('rag-rewrite');
      const t = await chat('How long until refunds are paid back to my card?');
      expect(t.message.status).toBe('completed');
      expect(t.message.content).toContain(REFUND_SENTENCE.slice(0, -1));
      expect(t.message.sources[0]).toMatchObject({ title: 'Returns manual' });
      const run = await steps(t.runId);
      expect(run).toMatchObject({ guards: 2, models: 2 });
      expect(run.nodes.indexOf('rewrite')).toBeLessThan(run.nodes.indexOf('retrieve'));
      expect(run.nodes.indexOf('retrieve')).toBeLessThan(run.nodes.indexOf('chat'));
    });
  });
});
