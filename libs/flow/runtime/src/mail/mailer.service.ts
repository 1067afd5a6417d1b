import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type CloudEvent, EmailSendPayload, Topics } from '@flowplane/contracts';
import { BusConsumer } from '@flowplane/platform/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { MailOutboxRepository } from './mail-outbox.repository';
import { type MailTransport, redactSmtpUrl, SmtpTransport } from './smtp-transport';

/** Consumer group of the mailer: one group, so each mail is delivered once whatever the replica count. */
export const MAILER_GROUP = 'mailer';

/** Nest token of the transport (tests put their own). */
export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');

/** The transport SMTP_URL asks for, or null for the dev outbox. */
export function mailTransportFromConfig(config: ServiceConfig & FlowRuntimeEnv): MailTransport | null {
  return config.SMTP_URL ? new SmtpTransport(config.SMTP_URL, config.SMTP_TIMEOUT_MS ?? 10_000) : null;
}

/**
 * Delivers `email.send` (consumer group `mailer`). With SMTP_URL, over SMTP through nodemailer: a
 * refused or timed-out attempt throws, so the bus redelivers it with exponential backoff and parks
 * it on `email.send.dlq` after BUS_MAX_ATTEMPTS; nothing of it reaches the run that asked for the
 * mail (the node only published). Without SMTP_URL, into the dev outbox (GET /admin/mail/outbox).
 * Idempotent on the envelope id: the outbox stores it once, SMTP carries it as the Message-ID.
 */
@Injectable()
export class MailerService implements OnApplicationShutdown {
  private readonly log = new Logger('Mailer');
  private readonly from: string;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig & FlowRuntimeEnv,
    private readonly outbox: MailOutboxRepository,
    @Inject(MAIL_TRANSPORT) private readonly transport: MailTransport | null,
  ) {
    this.from = config.SMTP_FROM || 'Flowplane <no-reply@localhost>';
    this.log.log(config.SMTP_URL && transport ? `mail goes out over ${redactSmtpUrl(config.SMTP_URL)}` : 'SMTP_URL unset: mail goes to the dev outbox (GET /api/v1/admin/mail/outbox)');
  }

  @BusConsumer(Topics.EmailSend, { groupId: MAILER_GROUP, payload: EmailSendPayload })
  async onEmail(event: CloudEvent<EmailSendPayload>, ctx?: { attempt: number }): Promise<void> {
    await this.deliver(event, ctx?.attempt ?? 1);
  }

  /** One delivery attempt of an `email.send` event; rejects (safely worded) when SMTP refuses it. */
  async deliver(event: CloudEvent<EmailSendPayload>, attempt = 1): Promise<void> {
    const mail = { ...event.data, from: event.data.from ?? this.from };
    if (!this.transport) {
      const stored = await this.outbox.add(event.id, mail, event.source);
      if (stored) this.log.log(`mail ${event.id} to ${mail.to.length} recipient(s) kept in the dev outbox`);
      return;
    }
    try {
      await this.transport.send(event.id, mail);
      this.log.log(`mail ${event.id} delivered to ${mail.to.length} recipient(s)`);
    } catch (e) {
      this.log.warn(`mail ${event.id} attempt ${attempt} failed (the bus retries, then parks it on ${Topics.EmailSend}.dlq): ${(e as Error).message}`);
      throw e;
    }
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
