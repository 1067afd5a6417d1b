import { Inject, Injectable } from '@nestjs/common';
import type { EmailSendPayload } from '@flowplane/contracts';
import { STORE } from '@flowplane/platform/service';
import { type Collection, DuplicateKeyError, type Store, type StoreDocument } from '@flowplane/platform/store';

/** A mail the dev outbox holds instead of sending it (SMTP_URL unset). */
export interface OutboxMail {
  /** The `email.send` envelope id. */
  id: string;
  from: string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string;
  subject: string;
  text?: string;
  html?: string;
  tags?: string[];
  correlationId?: string;
  /** Service that published the `email.send`. */
  source?: string;
  createdAt: Date;
}

interface OutboxDocument extends StoreDocument, Omit<OutboxMail, 'id'> {}

/** The dev outbox (`mail_outbox`): every mail the platform would have sent, newest first. */
@Injectable()
export class MailOutboxRepository {
  private readonly mails: Collection<OutboxDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.mails = store.collection<OutboxDocument>('mail_outbox');
  }

  /** Stores a mail once per envelope id (a redelivered event finds it and stores nothing); false when it was there. */
  async add(id: string, mail: EmailSendPayload & { from: string }, source?: string): Promise<boolean> {
    const doc: OutboxDocument = { _id: id, from: mail.from, to: mail.to, subject: mail.subject, createdAt: new Date() };
    for (const key of ['cc', 'bcc', 'replyTo', 'text', 'html', 'tags', 'correlationId'] as const) if (mail[key] !== undefined) (doc as unknown as Record<string, unknown>)[key] = mail[key];
    if (source) doc.source = source;
    try {
      await this.mails.insertOne(doc);
      return true;
    } catch (e) {
      if (e instanceof DuplicateKeyError) return false;
      throw e;
    }
  }

  async list(limit: number, after?: { at: Date; id: string }): Promise<{ items: OutboxMail[]; next?: { at: Date; id: string } }> {
    const filter = after ? { $or: [{ createdAt: { $lt: after.at } }, { createdAt: after.at, _id: { $lt: after.id } }] } : {};
    const docs = await this.mails.find(filter, { sort: { createdAt: -1, _id: -1 }, limit: limit + 1 });
    const items = docs.slice(0, limit).map(({ _id, ...rest }) => ({ id: _id, ...rest }) as OutboxMail);
    const last = items[items.length - 1];
    return { items, next: docs.length > limit && last ? { at: last.createdAt, id: last.id } : undefined };
  }
}
