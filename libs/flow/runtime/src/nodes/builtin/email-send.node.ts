import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { EmailSendPayload, Topics } from '@flowplane/contracts';
import type { NodeDefinition, NodeHandler, NodeManifest } from '@flowplane/flow/engine';
import { ERROR_PORT } from '@flowplane/flow/engine';
import { validate } from 'class-validator';
import { v5 as uuidV5 } from 'uuid';
import { type BusPublisher, describeValidationErrors, NodeInputError } from './bus-publisher';
import { isPlainObject } from './template-render.node';

export const EMAIL_SEND_ID = 'svc/email-send';
export const EMAIL_INPUT_PORT = 'Email';
export const EMAIL_SENT_PORT = 'Sent';
/** Namespace of the envelope ids: UUIDv5(stepKey, this), so a step run again sends the same id. */
export const EMAIL_ENVELOPE_NAMESPACE = '5b0c1f8e-3f5e-4d0a-9a51-6f2d3c8e7a10';

const addressList = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };

export const emailSendManifest: NodeManifest = {
  id: EMAIL_SEND_ID,
  name: 'Send email',
  kind: 'action',
  description:
    'Publishes `email.send` for the mail sender with the packet on `Email` ({to, subject, text and/or html, cc?, bcc?, from?, replyTo?}). Emits `Sent` {messageId} (the envelope id, on which delivery is idempotent: a UUIDv5 of the step key, so a step run again after a crash or redelivery sends the same id); an invalid packet or a bus failure goes to `Error` {error}.',
  settingsSchema: {
    $schema: SETTINGS_SCHEMA_DIALECT,
    type: 'object',
    properties: {
      from: {
        type: 'string',
        title: 'From',
        description: 'Sender used when the packet has no `from` (`Name <address>` allowed); blank means the mail sender default.',
        default: '',
        'x-order': 1,
      },
    },
  },
  inputs: [
    {
      port: EMAIL_INPUT_PORT,
      description: 'The message. `to`, `cc` and `bcc` take one address, a comma-separated list or an array.',
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
        },
        required: ['to', 'subject'],
      },
    },
  ],
  outputs: [
    { port: EMAIL_SENT_PORT, description: 'Queued for delivery.', schema: { type: 'object', properties: { messageId: { type: 'string' } }, required: ['messageId'] } },
    { port: ERROR_PORT, description: 'Invalid message or bus failure.', schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } },
  ],
};

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
  const from = packet['from'] ?? (defaultFrom?.trim() ? defaultFrom : undefined);
  if (from !== undefined) payload.from = from as string;
  if (packet['replyTo'] !== undefined) payload.replyTo = packet['replyTo'] as string;
  payload.subject = packet['subject'] as string;
  if (packet['text'] !== undefined) payload.text = packet['text'] as string;
  if (packet['html'] !== undefined) payload.html = packet['html'] as string;
  const errors = await validate(payload, { forbidUnknownValues: true });
  if (errors.length) throw new NodeInputError(`invalid email: ${describeValidationErrors(errors)}`);
  return payload;
}

export function emailSendHandler(bus: BusPublisher): NodeHandler {
  return async (ctx) => {
    const from = typeof ctx.config['from'] === 'string' ? (ctx.config['from'] as string) : undefined;
    const payload = await toEmailPayload(ctx.input, from);
    const envelope = await bus.publish(Topics.EmailSend, { ...payload }, { id: uuidV5(ctx.stepKey, EMAIL_ENVELOPE_NAMESPACE) });
    return { port: EMAIL_SENT_PORT, packet: { messageId: envelope.id } };
  };
}

export function emailSendNode(bus: BusPublisher): NodeDefinition {
  return { manifest: emailSendManifest, handler: emailSendHandler(bus) };
}
