import { validateFlowDocument } from '@flowplane/flow/ir';
import { HANDOFF_NOTIFICATION_TEMPLATE_ID, handoffNotificationDocument, registeredTemplates } from './handoff-notification.template';

describe('assistant/handoff-notification', () => {
  it('is a valid event-driven flow: event source on assistant.handoff_requested, then svc/email-send', () => {
    expect(validateFlowDocument(handoffNotificationDocument).errors).toEqual([]);
    const [source, mail] = handoffNotificationDocument.nodes;
    expect(source).toMatchObject({ kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'assistant.handoff_requested' } });
    expect(mail).toMatchObject({ action_ref: 'svc/email-send' });
    expect(handoffNotificationDocument.meta?.positions).toBeDefined();
  });

  it('mails handoff_notify_to, else the site support address, else support@localhost, with reason, contact and transcript', () => {
    const config = handoffNotificationDocument.nodes[1].config as Record<string, string>;
    expect(config['to']).toBe('$setting:assistant/handoff_notify_to || $setting:site/support_email || support@localhost');
    for (const field of ['{{input.reason}}', '{{input.email}}', '{{input.transcript}}']) expect(config['body']).toContain(field);
    expect(config['replyTo']).toBe('{{input.email}}');
  });

  it('is registered with flow-runtime beside the catalog templates that have documents, every one valid', () => {
    const templates = registeredTemplates();
    expect(templates.map((t) => t.id)).toContain(HANDOFF_NOTIFICATION_TEMPLATE_ID);
    expect(templates.map((t) => t.id)).toContain('assistant/default');
    for (const t of templates) {
      expect(t.id).toMatch(/^assistant\/[a-z0-9-]+$/);
      expect(validateFlowDocument(t.document).errors).toEqual([]);
    }
  });
});
