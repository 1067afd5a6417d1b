import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { type CloudEvent, EmailSendPayload, Topics } from '@flowplane/contracts';
import { compileFlow, FlowEngine, NodeRegistry } from '@flowplane/flow/engine';
import { busConsumerMetadata, DLQ_HEADERS, type EventBus, MemoryEventBus, validatedHandler } from '@flowplane/platform/bus';
import { createMemoryStore } from '@flowplane/platform/store';
import type { ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { emailSendNode } from '../nodes/builtin/email-send.node';
import { MailOutboxRepository } from './mail-outbox.repository';
import { MAILER_GROUP, MailerService, mailTransportFromConfig } from './mailer.service';

/**
 * Real SMTP delivery (nodemailer) to an in-process `smtp-server` sink: STARTTLS and AUTH, a server
 * that refuses (retried by the bus, then parked on email.send.dlq), a server that never greets (the
 * timeout), and a run that publishes the mail and completes whatever the server does.
 */

const USER = 'mailer';
const PASSWORD = 's3cr3t-p@ss';

interface Received {
  from: string;
  to: string[];
  raw: string;
  secure: boolean;
  user?: string;
}

async function sink(overrides: Partial<SMTPServerOptions> = {}): Promise<{ server: SMTPServer; port: number; received: Received[]; attempts: () => number }> {
  const received: Received[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    logger: false,
    // smtp-server's bundled self-signed certificate: the client is told to accept it below.
    onAuth(auth, _session, cb) {
      if (auth.username === USER && auth.password === PASSWORD) cb(null, { user: USER });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      attempts++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8'), secure: session.secure, user: session.user as string | undefined });
        cb();
      });
    },
    ...overrides,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: Server }).server.address() as AddressInfo).port;
  return { server, port, received, attempts: () => attempts };
}

function config(url: string | undefined, timeoutMs = 2000): ServiceConfig & FlowRuntimeEnv {
  return { SMTP_URL: url, SMTP_FROM: 'Flowplane <no-reply@example.com>', SMTP_TIMEOUT_MS: timeoutMs } as unknown as ServiceConfig & FlowRuntimeEnv;
}

/** The mailer subscribed to `bus` exactly as @BusConsumer subscribes it in the service. */
async function startMailer(bus: EventBus, url: string | undefined, timeoutMs?: number) {
  const store = createMemoryStore();
  const outbox = new MailOutboxRepository(store);
  const mailer = new MailerService(config(url, timeoutMs), outbox, mailTransportFromConfig(config(url, timeoutMs)));
  const [meta] = busConsumerMetadata(MailerService.prototype.onEmail);
  expect(meta.options.groupId).toBe(MAILER_GROUP);
  const sub = await bus.subscribe<EmailSendPayload>(meta.topics, { groupId: MAILER_GROUP }, validatedHandler(EmailSendPayload, (e: CloudEvent<EmailSendPayload>, ctx) => mailer.onEmail(e, ctx)));
  return { mailer, outbox, stop: async () => { await sub.stop(); mailer.onApplicationShutdown(); } };
}

async function dlqOf(bus: EventBus): Promise<Array<{ event: CloudEvent; headers: Record<string, string> }>> {
  const parked: Array<{ event: CloudEvent; headers: Record<string, string> }> = [];
  await bus.subscribe([`${Topics.EmailSend}.dlq`], { groupId: 'test-dlq', fromBeginning: true }, async (event, ctx) => void parked.push({ event, headers: ctx.headers }));
  return parked;
}

async function until<T>(probe: () => T | undefined, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A flow whose run only publishes the mail (as the chat and handoff templates do). */
async function runMailFlow(bus: EventBus) {
  const registry = new NodeRegistry([emailSendNode(bus)]);
  const flow = compileFlow(
    {
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'mail', kind: 'action', action_ref: 'svc/email-send', config: { to: 'desk@example.com', subject: 'Handoff: {{input.reason}}', body: 'Transcript:\n{{input.transcript}}' } },
        { id: 'end', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'mail' },
        { id: 'e2', from: 'mail', to: 'end', port: 'Sent' },
      ],
    },
    registry,
  );
  const engine = new FlowEngine();
  const result = await engine.start(flow, { reason: 'billing', transcript: 'user: I need a person' }).done;
  await engine.close();
  return result;
}

describe('mailer over real SMTP', () => {
  let bus: MemoryEventBus;

  beforeEach(() => {
    bus = new MemoryEventBus({ maxAttempts: 3, retryDelayMs: 20, maxRetryDelayMs: 50 });
  });

  afterEach(async () => {
    await bus.close();
  });

  it('delivers over STARTTLS with AUTH, with the envelope id as Message-ID', async () => {
    const smtp = await sink({ disabledCommands: [] });
    const mailer = await startMailer(bus, `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}/?requireTLS=true&tls.rejectUnauthorized=false`);
    try {
      const result = await runMailFlow(bus);
      expect(result.status).toBe('completed');
      const mail = await until(() => smtp.received[0]);
      expect(mail).toMatchObject({ from: 'no-reply@example.com', to: ['desk@example.com'], secure: true, user: USER });
      expect(mail.raw).toContain('Subject: Handoff: billing');
      expect(mail.raw).toContain('user: I need a person');
      expect(mail.raw).toContain(`Message-ID: <${(result.output as { messageId: string }).messageId}@flowplane.mailer>`);
    } finally {
      await mailer.stop();
      await new Promise<void>((r) => smtp.server.close(() => r()));
    }
  });

  it('retries a refusing server, then parks the mail on email.send.dlq without the password; the run is unaffected', async () => {
    const smtp = await sink({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onRcptTo(_address, _session, cb) {
        const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
        err.responseCode = 451;
        cb(err);
      },
    });
    const parked = await dlqOf(bus);
    let refused = 0;
    smtp.server.on('error', () => undefined);
    const url = `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smtp.port}`;
    const mailer = await startMailer(bus, url);
    const warn = jest.spyOn((mailer.mailer as unknown as { log: { warn: (m: string) => void } }).log, 'warn').mockImplementation((m: string) => {
      refused++;
      expect(m).not.toContain(PASSWORD);
      expect(m).not.toContain(encodeURIComponent(PASSWORD));
    });
    try {
      const result = await runMailFlow(bus);
      expect(result.status).toBe('completed');
      const dead = await until(() => parked[0]);
      expect(refused).toBe(3);
      expect(smtp.received).toEqual([]);
      expect(dead.event.id).toBe((result.output as { messageId: string }).messageId);
      expect(dead.headers[DLQ_HEADERS.attempts]).toBe('3');
      expect(dead.headers[DLQ_HEADERS.error]).toMatch(/451|Mailbox unavailable/);
      expect(JSON.stringify(dead)).not.toContain(PASSWORD);
      expect(JSON.stringify(dead)).not.toContain(encodeURIComponent(PASSWORD));
    } finally {
      warn.mockRestore();
      await mailer.stop();
      await new Promise<void>((r) => smtp.server.close(() => r()));
    }
  });

  it('gives up on a server that never greets after SMTP_TIMEOUT_MS and parks the mail', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const parked = await dlqOf(bus);
    const mailer = await startMailer(bus, `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`, 150);
    jest.spyOn((mailer.mailer as unknown as { log: { warn: (m: string) => void } }).log, 'warn').mockImplementation(() => undefined);
    try {
      expect((await runMailFlow(bus)).status).toBe('completed');
      const dead = await until(() => parked[0]);
      expect(dead.headers[DLQ_HEADERS.error]).toMatch(/greeting|timeout|ETIMEDOUT/i);
      expect(JSON.stringify(dead)).not.toContain(PASSWORD);
    } finally {
      await mailer.stop();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
