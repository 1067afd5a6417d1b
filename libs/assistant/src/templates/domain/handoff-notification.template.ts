import type { FlowDocument } from '@flowplane/flow/ir';
import { ASSISTANT_TEMPLATES, TEMPLATE_SCHEMA_VERSION } from './assistant-templates';

/** Id of the event-driven template that mails each handoff request. */
export const HANDOFF_NOTIFICATION_TEMPLATE_ID = 'assistant/handoff-notification';

/** Consumer group of its subscriber deployment (one delivery per event whatever the replica count). */
export const HANDOFF_NOTIFICATION_GROUP = 'assistant-handoff-notification';

/**
 * Recipient chain of handoff mails, resolved by the engine at run time: the assistant's setting,
 * then the site's support address, then a local mailbox so `npm start` shows the mail in the outbox.
 */
export const HANDOFF_NOTIFY_TO = '$setting:assistant/handoff_notify_to || $setting:site/support_email || support@localhost';

/** Same chain for the trust-and-safety mails of the production template. */
export const TRUST_SAFETY_TO = '$setting:assistant/trust_safety_to || $setting:site/support_email || support@localhost';

const BODY = [
  'A visitor asked to talk to a person.',
  '',
  'Contact: {{input.email}} {{input.phone}}',
  'Reason: {{input.reason}}',
  'Priority: {{input.priority}}',
  'Requested at: {{input.requestedAt}}',
  'Handoff: {{input.handoffId}} (session {{input.sessionId}})',
  '',
  'Transcript:',
  '{{input.transcript}}',
].join('\n');

/**
 * `assistant/handoff-notification` (spec "Flow template catalog"): starts on each
 * `assistant.handoff_requested` event and publishes `email.send` with the reason, the contact and
 * the transcript; replies go to the visitor. Installed on its own by activating it, which gives it
 * a subscriber deployment; the chat flow never waits for it. `Error` is left unwired on purpose: a
 * mail that cannot be queued (settings unreadable, a bad address, the bus down) fails the run, so
 * the event is retried and then parked on `assistant.handoff_requested.dlq` instead of vanishing.
 */
export const handoffNotificationDocument: FlowDocument = {
  name: 'Assistant handoff notification',
  description: 'Mails each handoff request (reason, contact, transcript) to assistant/handoff_notify_to, else the site support e-mail, else support@localhost.',
  nodes: [
    { id: 'handoff_requested', name: 'Handoff requested', kind: 'start', action_ref: 'svc/event-source', config: { eventName: 'assistant.handoff_requested', groupID: HANDOFF_NOTIFICATION_GROUP } },
    {
      id: 'mail',
      name: 'Mail the team',
      kind: 'action',
      action_ref: 'svc/email-send',
      config: { to: HANDOFF_NOTIFY_TO, subject: 'Handoff requested ({{input.priority}}): {{input.email}}', body: BODY, replyTo: '{{input.email}}' },
    },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'handoff_requested-out-mail', from: 'handoff_requested', to: 'mail' },
    { id: 'mail-Sent-end', from: 'mail', to: 'end', port: 'Sent' },
  ],
  meta: {
    schemaVersion: TEMPLATE_SCHEMA_VERSION,
    assistantTemplate: 'handoff-notification',
    positions: { handoff_requested: { x: 0, y: 0 }, mail: { x: 260, y: 0 }, end: { x: 520, y: 0 } },
  },
};

/** A template as flow-runtime's registry takes it (PUT /internal/templates/providers/assistant). */
export interface RegisteredTemplate {
  id: string;
  name: string;
  description: string;
  source: string;
  tags: string[];
  document: FlowDocument;
}

/** What the assistant registers with flow-runtime: its catalog entries with a document, and the notification template. */
export function registeredTemplates(): RegisteredTemplate[] {
  const catalog = ASSISTANT_TEMPLATES.filter((t) => t.document).map((t) => ({
    id: t.id,
    name: t.document!.name ?? t.title,
    description: t.description,
    source: 'assistant',
    tags: ['assistant', t.tier, ...(t.recommended ? ['recommended'] : [])],
    document: t.document!,
  }));
  return [
    ...catalog,
    {
      id: HANDOFF_NOTIFICATION_TEMPLATE_ID,
      name: handoffNotificationDocument.name!,
      description: 'Event-driven: mails each assistant.handoff_requested (reason, contact, transcript). Requires SMTP_URL or the dev outbox.',
      source: 'assistant',
      tags: ['assistant', 'handoff', 'email', 'event'],
      document: handoffNotificationDocument,
    },
  ];
}
