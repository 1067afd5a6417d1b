import { createTransport, type Transporter } from 'nodemailer';
import type { EmailSendPayload } from '@flowplane/contracts';

/** Delivers one message; rejects with an error whose message holds no secret. */
export interface MailTransport {
  send(id: string, mail: EmailSendPayload & { from: string }): Promise<{ messageId: string; accepted: string[] }>;
  close(): void;
}

/** `smtp://user:****@host:587`: the URL with its password (and query secrets) masked, for logs. */
export function redactSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    for (const key of [...u.searchParams.keys()]) if (/pass|secret|token|key/i.test(key)) u.searchParams.set(key, '****');
    return u.toString();
  } catch {
    return 'smtp://(unparsable URL)';
  }
}

/** Every secret of an SMTP URL, raw and decoded, to scrub from error messages. */
function secretsOf(url: string): string[] {
  const out = new Set<string>();
  try {
    const u = new URL(url);
    for (const raw of [u.password, ...[...u.searchParams.entries()].filter(([k]) => /pass|secret|token|key/i.test(k)).map(([, v]) => v)]) {
      if (!raw) continue;
      out.add(raw);
      try {
        out.add(decodeURIComponent(raw));
      } catch {
        /* not percent-encoded */
      }
    }
  } catch {
    /* an unparsable URL is refused at start */
  }
  out.add(url);
  return [...out].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** `text` with every secret of `url` replaced by `****`. */
export function scrubSecrets(text: string, url: string): string {
  let out = text;
  for (const s of secretsOf(url)) out = out.split(s).join(s === url ? redactSmtpUrl(url) : '****');
  return out;
}

/** Message-ID of a mail: the envelope id, so a delivery retried after a crash can be recognised downstream. */
export function messageIdOf(id: string): string {
  return `<${id}@flowplane.mailer>`;
}

/**
 * nodemailer over SMTP_URL: TLS as the URL says (smtps:// implicit, smtp:// STARTTLS when offered,
 * `requireTLS=true` to insist), auth from the URL's user and password, bounded connection,
 * greeting and socket timeouts, no pooling (a failed attempt leaves nothing behind), no file or URL
 * access from message fields. One attempt per call: retries are the bus's redeliveries.
 */
export class SmtpTransport implements MailTransport {
  private readonly transporter: Transporter;

  constructor(
    private readonly url: string,
    timeoutMs: number,
  ) {
    this.transporter = createTransport({
      url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    } as Parameters<typeof createTransport>[0]);
  }

  async send(id: string, mail: EmailSendPayload & { from: string }): Promise<{ messageId: string; accepted: string[] }> {
    try {
      const info = (await this.transporter.sendMail({
        messageId: messageIdOf(id),
        from: mail.from,
        to: mail.to,
        cc: mail.cc,
        bcc: mail.bcc,
        replyTo: mail.replyTo,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: mail.tags?.length ? { 'X-Flowplane-Tags': mail.tags.join(', ') } : undefined,
      })) as { messageId: string; accepted?: Array<string | { address: string }> };
      return { messageId: info.messageId, accepted: (info.accepted ?? []).map((a) => (typeof a === 'string' ? a : a.address)) };
    } catch (e) {
      const err = e as Error & { code?: string; responseCode?: number };
      // nodemailer errors may quote the connection options; never let the password out.
      const message = scrubSecrets(`SMTP delivery to ${redactSmtpUrl(this.url)} failed${err.code ? ` (${err.code}${err.responseCode ? ` ${err.responseCode}` : ''})` : ''}: ${err.message}`, this.url);
      throw new MailDeliveryError(message);
    }
  }

  close(): void {
    this.transporter.close();
  }
}

/** A failed delivery attempt; the message is safe to log. */
export class MailDeliveryError extends Error {
  readonly code = 'MAIL_DELIVERY_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}
