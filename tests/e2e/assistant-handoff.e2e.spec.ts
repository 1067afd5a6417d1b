import { NODE_REGISTRY } from '@flowplane/flow-runtime';
import type { NodeRegistry } from '@flowplane/flow/engine';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { publishFlow } from '../support/flows';
import { call, json, parseSse, testEnv, token, until } from '../support/http';

/**
 * Human handoff through the gateway on the standalone defaults: the public route (201, then 409 for
 * the same session), the event observed by a subscriber flow, the `svc/assistant-handoff-request`
 * node filing through the assistant's internal route, the router condition on `meta.intent`, and
 * the admin routes.
 */
describe('assistant handoff', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const seen: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('olga', ['admin:access']);
    api = `${platform.url}/api/v1`;
    const registry = platform.services.find((s) => s.name === 'flow-runtime')?.app.get<NodeRegistry>(NODE_REGISTRY);
    registry?.define({ id: 'test/record-handoff', name: 'Record', kind: 'action', inputs: [{ port: 'in' }], outputs: [{ port: 'out' }] }, (ctx) => {
      seen.push(ctx.input as Record<string, unknown>);
      return { port: 'out', packet: ctx.input };
    });
    // A subscriber flow, as the handoff-notification template is: the event's payload is its input.
    await publishFlow(api, admin, 'on-handoff', {
      name: 'On handoff',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'assistant.handoff_requested', groupID: 'handoff-test' } },
        { id: 'rec', name: 'Record', kind: 'action', action_ref: 'test/record-handoff' },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'rec' },
        { id: 'e2', from: 'rec', to: 'end' },
      ],
    });
    await until(async () => (await call(`${api}/flows/on-handoff/subscriptions`, { bearer: admin })).body, (b: Array<{ state: string }>) => b[0]?.state === 'active', 10_000);
  }, 60_000);
  afterAll(() => platform?.close());

  it('files a request (201), answers the second for the same session with 409 naming it, and a subscriber flow receives the event', async () => {
    const body = { sessionId: 'handoff-e2e-1', email: 'ada@example.com', reason: 'billing question', priority: 'high' };
    const first = await call(`${api}/assistant/handoff`, { method: 'POST', ...json(body) });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ ok: true, message: expect.any(String), handoffId: expect.any(String) });
    const second = await call(`${api}/assistant/handoff`, { method: 'POST', ...json({ ...body, email: 'other@example.com' }) });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'HANDOFF_PENDING', message: expect.any(String), requestId: expect.any(String), ok: false, handoffId: first.body.handoffId });

    const events = await until(async () => seen.filter((e) => e['sessionId'] === 'handoff-e2e-1'), (e) => e.length >= 1, 10_000);
    expect(events[0]).toEqual({
      handoffId: first.body.handoffId,
      chatId: '',
      sessionId: 'handoff-e2e-1',
      email: 'ada@example.com',
      reason: 'billing question',
      priority: 'high',
      transcript: '',
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.filter((e) => e['sessionId'] === 'handoff-e2e-1')).toHaveLength(1);
  });

  it('answers 400 for a malformed e-mail, a priority outside low, normal, high, or a malformed session id', async () => {
    for (const bad of [
      { sessionId: 'handoff-e2e-2', email: 'not-an-email' },
      { sessionId: 'handoff-e2e-2', email: 'a@b.co', priority: 'urgent' },
      { sessionId: 'x'.repeat(500), email: 'a@b.co' },
    ]) {
      const res = await call(`${api}/assistant/handoff`, { method: 'POST', ...json(bad) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
    }
  });

  it('lets an admin list, read and work a handoff: contacted stamps who and when, resolved is final', async () => {
    const filed = await call(`${api}/assistant/handoff`, { method: 'POST', ...json({ sessionId: 'handoff-e2e-3', email: 'b@example.com' }) });
    const id = filed.body.handoffId as string;
    expect((await call(`${api}/assistant/handoffs`)).status).toBe(401);
    expect((await call(`${api}/assistant/handoffs`, { bearer: await token('mallory', []) })).status).toBe(403);

    const pending = await call(`${api}/assistant/handoffs`, { bearer: admin });
    expect(pending.status).toBe(200);
    expect(pending.body.items.map((h: { id: string }) => h.id)).toContain(id);
    expect(pending.body.items.every((h: { status: string }) => h.status === 'pending')).toBe(true);

    const one = await call(`${api}/assistant/handoffs/${id}`, { bearer: admin });
    expect(one.body).toMatchObject({ id, chatId: '', sessionId: 'handoff-e2e-3', email: 'b@example.com', priority: 'normal', status: 'pending', transcript: '', createdAt: expect.stringMatching(/Z$/) });

    const contacted = await call(`${api}/assistant/handoffs/${id}`, { method: 'PATCH', bearer: admin, ...json({ status: 'contacted', notes: 'left a voicemail' }) });
    expect(contacted.status).toBe(200);
    expect(contacted.body).toMatchObject({ id, status: 'contacted', contactedBy: 'olga', notes: 'left a voicemail', contactedAt: expect.stringMatching(/Z$/) });
    expect((await call(`${api}/assistant/handoffs`, { bearer: admin })).body.items.map((h: { id: string }) => h.id)).not.toContain(id);
    expect((await call(`${api}/assistant/handoffs?status=contacted`, { bearer: admin })).body.items.map((h: { id: string }) => h.id)).toContain(id);

    expect((await call(`${api}/assistant/handoffs/${id}`, { method: 'PATCH', bearer: admin, ...json({ status: 'snoozed' }) })).status).toBe(400);
    expect((await call(`${api}/assistant/handoffs/${id}`, { method: 'PATCH', bearer: admin, ...json({ status: 'resolved' }) })).status).toBe(200);
    const again = await call(`${api}/assistant/handoffs/${id}`, { method: 'PATCH', bearer: admin, ...json({ status: 'pending' }) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ statusCode: 409, code: 'HANDOFF_FINAL' });
    const all = await call(`${api}/assistant/handoffs?status=all&limit=1`, { bearer: admin });
    expect(all.body.items).toHaveLength(1);
    expect(typeof all.body.nextCursor).toBe('string');
    const next = await call(`${api}/assistant/handoffs?status=all&limit=1&cursor=${all.body.nextCursor}`, { bearer: admin });
    expect(next.body.items[0].id).not.toBe(all.body.items[0].id);
    expect((await call(`${api}/assistant/handoffs/unknown-id`, { bearer: admin })).status).toBe(404);
  });

  it('files through the svc/assistant-handoff-request node on the meta.intent branch; no e-mail answers Error; a second run is a duplicate', async () => {
    await publishFlow(api, admin, 'handoff-node', {
      name: 'Handoff node',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'handoff', name: 'Handoff', kind: 'action', action_ref: 'svc/assistant-handoff-request', config: { defaultPriority: 'urgent' } },
        { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/template-render', config: { template: 'chat branch', target: 'content' } },
        { id: 'end', name: 'End', kind: 'end' },
        { id: 'failed', name: 'No handoff', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'handoff', condition: "meta.intent == 'handoff'" },
        { id: 'e2', from: 'start', to: 'chat' },
        { id: 'e3', from: 'handoff', to: 'end', port: 'Handoff' },
        { id: 'e4', from: 'handoff', to: 'failed', port: 'Error' },
        { id: 'e5', from: 'chat', to: 'end' },
      ],
    });
    const run = (input: unknown) => call(`${api}/flows/handoff-node/runs`, { method: 'POST', bearer: admin, ...json({ input }) });

    const chat = await run({ sessionId: 'handoff-e2e-4', meta: { intent: 'chat' } });
    expect(chat.body).toMatchObject({ status: 'completed', output: { content: 'chat branch' } });

    const noEmail = await run({ sessionId: 'handoff-e2e-4', meta: { intent: 'handoff' } });
    expect(noEmail.body).toMatchObject({ status: 'completed', output: { code: 'EMAIL_REQUIRED' } });

    const filed = await run({ sessionId: 'handoff-e2e-4', meta: { intent: 'handoff', email: 'c@example.com' } });
    expect(filed.body).toMatchObject({ status: 'completed', output: { status: 'pending', duplicate: false, handoffId: expect.any(String) } });
    const stored = await call(`${api}/assistant/handoffs/${filed.body.output.handoffId}`, { bearer: admin });
    expect(stored.body).toMatchObject({ sessionId: 'handoff-e2e-4', priority: 'high', email: 'c@example.com' });

    const dup = await run({ sessionId: 'handoff-e2e-4', meta: { intent: 'handoff', email: 'c@example.com' } });
    expect(dup.body.output).toEqual({ handoffId: filed.body.output.handoffId, status: 'pending', duplicate: true });
  });
});

describe('assistant handoff switched off, anonymous callers refused', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_HANDOFF_ENABLED: 'false', ASSISTANT_ANONYMOUS_ALLOWED: 'false' }) });
    admin = await token('olga', ['admin:access']);
    api = `${platform.url}/api/v1`;
  }, 60_000);
  afterAll(() => platform?.close());

  it('answers 401 without a token, 403 with one, and the node answers Error HANDOFF_DISABLED', async () => {
    const body = { sessionId: 'handoff-off-1', email: 'a@example.com' };
    const anonymous = await call(`${api}/assistant/handoff`, { method: 'POST', ...json(body) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
    const signedIn = await call(`${api}/assistant/handoff`, { method: 'POST', bearer: await token('user-1', []), ...json(body) });
    expect(signedIn.status).toBe(403);
    expect(signedIn.body).toMatchObject({ statusCode: 403, code: 'HANDOFF_DISABLED' });

    await publishFlow(api, admin, 'handoff-off', {
      name: 'Handoff off',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'handoff', name: 'Handoff', kind: 'action', action_ref: 'svc/assistant-handoff-request' },
        { id: 'end', name: 'End', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'handoff' },
        { id: 'e2', from: 'handoff', to: 'end' },
      ],
    });
    const run = await call(`${api}/flows/handoff-off/runs`, { method: 'POST', bearer: admin, ...json({ input: { sessionId: 'handoff-off-1', meta: { email: 'a@example.com' } } }) });
    expect(run.body).toMatchObject({ status: 'completed', output: { code: 'HANDOFF_DISABLED', error: expect.any(String) } });
    expect((await call(`${api}/assistant/handoffs?status=all`, { bearer: admin })).body.items).toEqual([]);
  });

  it('tells the widget not to offer handoff, and answers an in-chat handoff request with 403 HANDOFF_DISABLED instead of asking for an e-mail', async () => {
    // The default template has the handoff node, so the flow could hand off were the switch on.
    const superuser = await token('root', ['admin:access'], { superuser: true });
    expect((await call(`${api}/admin/assistant/reset?template=default`, { method: 'POST', bearer: superuser })).status).toBeLessThan(300);
    const config = await call(`${api}/assistant/config`);
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ handoffEnabled: false, capabilities: { handoff: false } });

    const user = await token('user-2', []);
    const ask = await call(`${api}/assistant/messages`, { method: 'POST', bearer: user, ...json({ sessionId: 'handoff-off-chat', message: 'I want a person', meta: { intent: 'handoff' } }) });
    expect(ask.status).toBe(403);
    expect(ask.body).toMatchObject({ statusCode: 403, code: 'HANDOFF_DISABLED', message: expect.stringContaining('handoff to a person is not available') });
    expect(ask.text ?? '').not.toContain('e-mail');
    expect((await call(`${api}/assistant/chats/me/handoff-off-chat`, { bearer: user })).status).toBe(404);
  });

  it('answers an escalation the model asks for with "not available" instead of asking for an e-mail address', async () => {
    const superuser = await token('root', ['admin:access'], { superuser: true });
    expect((await call(`${api}/admin/assistant/reset?template=production`, { method: 'POST', bearer: superuser })).status).toBeLessThan(300);
    const user = await token('user-3', []);
    for (const meta of [{}, { email: 'dan@example.com' }]) {
      // The local provider ends its reply with [[ESCALATE]] when the user's message carries it.
      const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${user}` }, body: JSON.stringify({ message: 'I want compensation [[ESCALATE]]', meta }) });
      expect(res.status).toBe(200);
      const frames = parseSse(await res.text());
      const message = frames.find((f) => f.event === 'message')!.data as { content: string; status: string };
      expect(message).toMatchObject({ status: 'completed', content: expect.stringContaining('not available') });
      expect(message.content).not.toContain('e-mail');
    }
    expect((await call(`${api}/assistant/handoffs?status=all`, { bearer: admin })).body.items).toEqual([]);
  });
});
