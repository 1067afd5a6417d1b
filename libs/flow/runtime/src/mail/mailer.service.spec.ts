import type { CloudEvent, EmailSendPayload } from '@flowplane/contracts';
import { createMemoryStore } from '@flowplane/platform/store';
import type { ServiceConfig } from '@flowplane/platform/service';
import { sensitiveKeys } from '@flowplane/platform/config';
import { FlowRuntimeEnv } from '../flow-runtime.env';
import { MailOutboxRepository } from './mail-outbox.repository';
import { MailerService } from './mailer.service';
import { MailDeliveryError, type MailTransport, redactSmtpUrl, scrubSecrets } from './smtp-transport';

const config = { SMTP_FROM: 'Flowplane <no-reply@example.com>' } as unknown as ServiceConfig & FlowRuntimeEnv;

function event(id: string, data: Partial<EmailSendPayload> = {}): CloudEvent<EmailSendPayload> {
  return { id, source: '/services/flow-runtime', type: 'email.send', data: { to: ['desk@example.com'], subject: `mail ${id}`, text: 'body', ...data } } as CloudEvent<EmailSendPayload>;
}

describe('MailerService without SMTP_URL (dev outbox)', () => {
  it('keeps each mail once per envelope id with the default sender, newest first, paged', async () => {
    const outbox = new MailOutboxRepository(createMemoryStore());
    const mailer = new MailerService(config, outbox, null);
    await mailer.deliver(event('a', { tags: ['handoff'] }));
    await new Promise((r) => setTimeout(r, 5));
    await mailer.deliver(event('b', { from: 'Desk <desk@example.com>' }));
    await mailer.deliver(event('a')); // a redelivery
    const first = await outbox.list(1);
    expect(first.items.map((m) => m.id)).toEqual(['b']);
    expect(first.items[0].from).toBe('Desk <desk@example.com>');
    const second = await outbox.list(1, first.next);
    expect(second.items).toMatchObject([{ id: 'a', from: 'Flowplane <no-reply@example.com>', to: ['desk@example.com'], subject: 'mail a', text: 'body', tags: ['handoff'], source: '/services/flow-runtime' }]);
    expect(second.next).toBeUndefined();
  });
});

describe('MailerService with a transport', () => {
  it('hands the mail to the transport and rethrows its failure so the bus retries it', async () => {
    const sent: string[] = [];
    let fail = true;
    const transport: MailTransport = {
      send: async (id) => {
        if (fail) throw new MailDeliveryError('SMTP delivery failed: 451');
        sent.push(id);
        return { messageId: id, accepted: [] };
      },
      close: () => undefined,
    };
    const outbox = new MailOutboxRepository(createMemoryStore());
    const mailer = new MailerService({ ...config, SMTP_URL: 'smtp://u:p@mail.example.com' } as ServiceConfig & FlowRuntimeEnv, outbox, transport);
    jest.spyOn((mailer as unknown as { log: { warn: () => void } }).log, 'warn').mockImplementation(() => undefined);
    await expect(mailer.deliver(event('x'))).rejects.toThrow(/451/);
    fail = false;
    await mailer.deliver(event('x'), 2);
    expect(sent).toEqual(['x']);
    expect((await outbox.list(10)).items).toEqual([]);
  });
});

describe('SMTP secrets', () => {
  const url = 'smtps://ops%40example.com:p%40ss%2Fword@smtp.example.com:465/?tls.rejectUnauthorized=false&apiKey=k3y';

  it('masks the password and secret query values of SMTP_URL', () => {
    const shown = redactSmtpUrl(url);
    expect(shown).toContain('smtp.example.com');
    expect(shown).toContain('ops%40example.com');
    expect(shown).not.toContain('p%40ss');
    expect(shown).not.toContain('k3y');
  });

  it('declares SMTP_URL sensitive, so config dumps mask it', () => {
    expect(sensitiveKeys(FlowRuntimeEnv)).toContain('SMTP_URL');
  });

  it('scrubs the URL and the password, raw or decoded, from error text', () => {
    const text = scrubSecrets(`connect ${url} failed; auth p@ss/word refused; raw p%40ss%2Fword; key k3y`, url);
    expect(text).not.toMatch(/p@ss\/word|p%40ss%2Fword|k3y/);
    expect(text).toContain('smtp.example.com');
  });
});
