import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { EmailSendPayload, Topics } from '@flowplane/contracts';
import type { NodeDefinition, NodeHandler, NodeManifest } from '@flowplane/flow/engine';
import { ERROR_PORT } from '@flowplane/flow/engine';
import { validate } from 'class-validator';
import { v5 as uuidV5 } from 'uuid';
import { type BusPublisher, describeValidationErrors, NodeInputError } from './bus-publisher';
import { renderTemplate } from './template';
import { isPlainObject } from './template-render.node';

export const EMAIL_SEND_ID = 'svc/email-send';
export const EMAIL_INPUT_PORT = 'Email';
export const EMAIL_SENT_PORT = 'Sent';
/** Namespace of the envelope ids: UUIDv5(stepKey, this), so a step run again sends the same id. */
export const EMAIL_ENVELOPE_NAMESPACE = '5b0c1f8e-3f5e-4d0a-9a51-6f2d3c8e7a10';

const addressList = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };

const SETTING_HINT = 'A `{{ path }}` template over input, packet and meta (as in svc/template-render), or a module setting: `$setting:<module>/<key>`, alternatives separated by `||`.';

export const emailSendManifest: NodeManifest = {
  id: EMAIL_SEND_ID,
  name: 'Send email',
  kind: 'action',
  description:
    'Publishes `email.send` for the mailer with the packet on `Email` ({to, subject, text and/or html, cc?, bcc?, from?, replyTo?, tags?}); each of to, subject, text (`body`), from and replyTo the packet leaves blank comes from the node settings, rendered over the packet. Emits `Sent` {messageId} (the envelope id, on which delivery is idempotent: a UUIDv5 of the step key, so a step run again after a crash or redelivery sends the same id); an invalid message or a bus failure goes to `Error` {error}. Delivery itself happens later, in the mailer: an SMTP failure never reaches the run.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      to: {
        type: 'string',
        title: 'To',
        description: `Recipients (comma-separated) when the packet has no \`to\`. ${SETTING_HINT}`,
        default: '',
        'x-order': 1,
      },
      subject: {
        type: 'string',
        title: 'Subject',
        description: `Subject when the packet has none. ${SETTING_HINT}`,
        default: '',
        'x-order': 2,
      },
      body: {
        type: 'string',
        title: 'Body',
        description: `Plain-text body when the packet has neither \`text\` nor \`html\`. ${SETTING_HINT}`,
        default: '',
        'x-ui': { widget: 'textarea' },
        'x-order': 3,
      },
      from: {
        type: 'string',
        title: 'From',
        description: 'Sender used when the packet has no `from` (`Name <address>` allowed); blank means the mailer default (SMTP_FROM).',
        default: '',
        'x-order': 4,
      },
      replyTo: {
        type: 'string',
        title: 'Reply to',
        description: `Reply-To address when the packet has none (blank: none). ${SETTING_HINT}`,
        default: '',
        'x-order': 5,
      },
    },
    'x-ui': { order: ['to', 'subject', 'body', 'from', 'replyTo'] },
  },
  inputs: [
    {
      port: EMAIL_INPUT_PORT,
      description: 'The message; fields it leaves blank come from the settings. `to`, `cc` and `bcc` take one address, a comma-separated list or an array.',
      schema: {
        type: 'object',
        properties: {
          to: addressList,
          cc: addressList,
          bcc: addressList,
          from: { type: 'string' },
          replyTo: { type: 'string' },
          subject: { type: 'string' },
          text: { type: 'string' },
          html: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  ],
  outputs: [
    { port: EMAIL_SENT_PORT, description: 'Queued for delivery.', schema: { type: 'object', properties: { messageId: { type: 'string' } }, required: ['messageId'] } },
    { port: ERROR_PORT, description: 'Invalid message or bus failure.', schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } },
  ],
};

/** Node settings of `svc/email-send` (after `$setting:` references were resolved by the engine). */
export interface EmailSendSettings {
  to?: string;
  subject?: string;
  body?: string;
  from?: string;
  replyTo?: string;
}

function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/**
 * The packet with every blank field filled from the settings, each rendered as a template over
 * {input, packet, meta}. A setting left blank fills nothing; a packet that is not an object is
 * returned as it is (and refused).
 */
export function withSettings(packet: unknown, settings: EmailSendSettings, meta: unknown = {}): unknown {
  // Anything but an object (or nothing) is refused by toEmailPayload, whatever the settings say.
  if (packet !== undefined && packet !== null && !isPlainObject(packet)) return packet;
  const base: Record<string, unknown> = isPlainObject(packet) ? { ...packet } : {};
  const scope = { input: packet, packet, meta };
  const fill = (field: string, setting: string | undefined) => {
    if (!blank(base[field]) || typeof setting !== 'string' || setting.trim() === '') return;
    base[field] = renderTemplate(setting, scope);
  };
  fill('to', settings.to);
  fill('subject', settings.subject);
  if (blank(base['text']) && blank(base['html'])) fill('text', settings.body);
  fill('from', settings.from);
  fill('replyTo', settings.replyTo);
  return base;
}

function addresses(value: unknown): unknown {
  if (typeof value === 'string') return value.split(',').map((a) => a.trim()).filter((a) => a !== '');
  return value;
}

/** The `email.send` payload of a packet, validated against the contract; throws `NodeInputError`. */
export async function toEmailPayload(packet: unknown, defaultFrom?: string): Promise<EmailSendPayload> {
  if (!isPlainObject(packet)) throw new NodeInputError('email packet must be an object with to, subject and text or html');
  const payload = new EmailSendPayload();
  payload.to = addresses(packet['to']) as string[];
  if (packet['cc'] !== undefined) payload.cc = addresses(packet['cc']) as string[];
  if (packet['bcc'] !== undefined) payload.bcc = addresses(packet['bcc']) as string[];
  const from = blank(packet['from']) ? (defaultFrom?.trim() ? defaultFrom : undefined) : packet['from'];
  if (from !== undefined) payload.from = from as string;
  if (!blank(packet['replyTo'])) payload.replyTo = packet['replyTo'] as string;
  payload.subject = packet['subject'] as string;
  if (packet['text'] !== undefined) payload.text = packet['text'] as string;
  if (packet['html'] !== undefined) payload.html = packet['html'] as string;
  if (packet['tags'] !== undefined) payload.tags = packet['tags'] as string[];
  const errors = await validate(payload, { forbidUnknownValues: true });
  if (errors.length) throw new NodeInputError(`invalid email: ${describeValidationErrors(errors)}`);
  return payload;
}

export function emailSendHandler(bus: BusPublisher): NodeHandler {
  return async (ctx) => {
    const settings = ctx.config as Readonly<EmailSendSettings>;
    const payload = await toEmailPayload(withSettings(ctx.input, settings, ctx.meta), typeof settings.from === 'string' ? settings.from : undefined);
    const envelope = await bus.publish(Topics.EmailSend, { ...payload }, { id: uuidV5(ctx.stepKey, EMAIL_ENVELOPE_NAMESPACE) });
    return { port: EMAIL_SENT_PORT, packet: { messageId: envelope.id } };
  };
}

export function emailSendNode(bus: BusPublisher): NodeDefinition {
  return { manifest: emailSendManifest, handler: emailSendHandler(bus) };
}
