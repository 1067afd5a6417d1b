import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

interface OutboxMail {
  id: string;
  from: string;
  to: string[];
  replyTo?: string;
  subject: string;
  text?: string;
  createdAt: string;
}

/**
 * E-mail on the standalone defaults (no SMTP_URL): the `assistant/handoff-notification` template
 * activated through the gateway, a handoff after a chat turn, and the mail it sends shown in the dev
 * outbox (GET /admin/mail/outbox) with the reason, the contact and the transcript; the recipient
 * follows `assistant/handoff_notify_to`, else `site/support_email`, else support@localhost.
 */
describe('mail outbox and assistant/handoff-notification', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;

  const outbox = async (query = ''): Promise<{ items: OutboxMail[]; nextCursor?: string }> => {
    const res = await call(`${api}/admin/mail/outbox${query}`, { bearer: admin });
    expect(res.status).toBe(200);
    return res.body;
  };

  /** One chat turn (so the session has a transcript), then a handoff for that session. */
  const chatThenHandoff = async (message: string, handoff: Record<string, unknown>): Promise<string> => {
    const res = await fetch(`${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get('x-assistant-session-id')!;
    await res.text();
    const filed = await call(`${api}/assistant/handoff`, { method: 'POST', ...json({ sessionId, ...handoff }) });
    expect(filed.status).toBe(201);
    return filed.body.handoffId as string;
  };

  const mailOf = (handoffId: string) => until(() => outbox('?limit=200'), (b) => b.items.some((m) => m.text?.includes(handoffId)), 15_000).then((b) => b.items.find((m) => m.text?.includes(handoffId))!);

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('olga', ['admin:access']);
    api = `${platform.url}/api/v1`;
  }, 60_000);
  afterAll(() => platform?.close());

  it('lists the template and activates it as a subscriber deployment on assistant.handoff_requested', async () => {
    const listed = await call(`${api}/flows/templates?q=handoff-notification`, { bearer: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.map((t: { id: string }) => t.id)).toContain('assistant/handoff-notification');
    const activated = await call(`${api}/flows/templates/activate`, { method: 'POST', bearer: admin, ...json({ templateId: 'assistant/handoff-notification' }) });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ flow_id: 'tpl-assistant-handoff-notification', template_id: 'assistant/handoff-notification' });
    const deployment = await call(`${api}/deployments/subscriber-assistant-handoff-notification`, { bearer: admin });
    expect(deployment.status).toBe(200);
    expect(deployment.body).toMatchObject({ kind: 'subscriber' });
    await until(async () => (await call(`${api}/flows/tpl-assistant-handoff-notification/subscriptions`, { bearer: admin })).body, (b: Array<{ state: string }>) => b?.[0]?.state === 'active', 10_000);
  });

  it('mails a handoff to support@localhost with the reason, contact and transcript, newest first in the outbox', async () => {
    const handoffId = await chatThenHandoff('I need help with invoice 4711', { email: 'ada@example.com', reason: 'billing question', priority: 'high' });
    const mail = await mailOf(handoffId);
    expect(mail).toMatchObject({ to: ['support@localhost'], replyTo: 'ada@example.com', from: expect.stringContaining('@'), subject: expect.stringContaining('ada@example.com') });
    expect(mail.text).toContain('Reason: billing question');
    expect(mail.text).toContain('Contact: ada@example.com');
    expect(mail.text).toContain('user: I need help with invoice 4711');
    expect(mail.text).toMatch(/assistant: \S/);
    expect((await outbox()).items[0].id).toBe(mail.id);
  });

  it('follows site/support_email, then assistant/handoff_notify_to, read at run time', async () => {
    const site = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { support_email: 'help@example.com' } }) });
    expect(site.status).toBe(200);
    const viaSite = await mailOf(await chatThenHandoff('hello', { email: 'bob@example.com' }));
    expect(viaSite.to).toEqual(['help@example.com']);

    const own = await call(`${api}/admin/settings/assistant`, { method: 'PUT', bearer: admin, ...json({ values: { handoff_notify_to: 'desk@example.com' } }) });
    expect(own.status).toBe(200);
    const viaAssistant = await mailOf(await chatThenHandoff('hello again', { email: 'cy@example.com' }));
    expect(viaAssistant.to).toEqual(['desk@example.com']);
  });

  it('pages the outbox with an opaque cursor and refuses bad paging and non-admins', async () => {
    const first = await outbox('?limit=1');
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await outbox(`?limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.items[0].id).not.toBe(first.items[0].id);
    expect(Date.parse(second.items[0].createdAt)).toBeLessThanOrEqual(Date.parse(first.items[0].createdAt));

    for (const q of ['?limit=0', '?limit=abc', '?cursor=not-a-cursor']) {
      const res = await call(`${api}/admin/mail/outbox${q}`, { bearer: admin });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
    }
    expect((await call(`${api}/admin/mail/outbox`)).status).toBe(401);
    expect((await call(`${api}/admin/mail/outbox`, { bearer: await token('eve', []) })).status).toBe(403);
  });
});
