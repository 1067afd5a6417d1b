import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AssistantHandoffClient, ServiceClient } from '@flowplane/contracts';
import { createSettingsAjv } from '@flowplane/flow/ir';
import { ASSISTANT_HANDOFF_ID, assistantHandoffManifest, assistantHandoffNode, DEFAULT_HANDOFF_REASON } from './assistant-handoff.node';
import { nodeContext, single } from './test-context';

// A real HTTP server plays the assistant's internal handoff route.
let server: Server;
let answer: { status: number; body: unknown };
let received: unknown[];
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  received = [];
  answer = { status: 201, body: { ok: true, message: 'filed', handoffId: 'h1', status: 'pending' } };
});

const node = (url = baseUrl) => assistantHandoffNode(() => new AssistantHandoffClient(new ServiceClient({ service: 'assistant', baseUrl: url, retries: 0, timeoutMs: 1000, tokenProvider: async () => 't' })));
const run = (input: unknown, config: Record<string, unknown> = {}, url?: string) => single(node(url).handler(nodeContext(input, config)));

describe('svc/assistant-handoff-request', () => {
  it('has a valid settings schema with defaults and the Request → Handoff | Error ports', () => {
    expect(assistantHandoffManifest.id).toBe(ASSISTANT_HANDOFF_ID);
    const schema = assistantHandoffManifest.settingsSchema as { properties: Record<string, { default?: unknown; enum?: unknown[] }> };
    expect(schema.properties.defaultPriority).toMatchObject({ default: 'normal', enum: ['low', 'normal', 'high', 'urgent'] });
    expect(schema.properties.defaultReason.default).toBe(DEFAULT_HANDOFF_REASON);
    expect(assistantHandoffManifest.inputs?.map((p) => p.port)).toEqual(['Request']);
    expect(assistantHandoffManifest.outputs?.map((p) => p.port)).toEqual(['Handoff', 'Error']);
    const validate = createSettingsAjv().compile(assistantHandoffManifest.settingsSchema as object);
    expect(validate({ defaultPriority: 'urgent', defaultReason: 'x' })).toBe(true);
    expect(validate({ defaultPriority: 'asap' })).toBe(false);
  });

  it("reads the chat run input: sessionId and userId from the packet, email, reason and priority from its meta", async () => {
    const out = await run({ messages: [{ role: 'user', content: 'a human please' }], sessionId: 'sess-0001', userId: 'u1', meta: { intent: 'handoff', email: 'a@b.co', reason: 'billing', priority: 'low', phone: '+1 555' } });
    expect(out).toEqual({ port: 'Handoff', packet: { handoffId: 'h1', status: 'pending', duplicate: false } });
    expect(received).toEqual([{ sessionId: 'sess-0001', userId: 'u1', email: 'a@b.co', reason: 'billing', priority: 'low', phone: '+1 555' }]);
  });

  it('applies the settings only where the packet is blank; explicit packet values win', async () => {
    await run({ sessionId: 'sess-0001', email: 'a@b.co', reason: ' ', meta: {} }, { defaultPriority: 'urgent', defaultReason: 'Call me' });
    await run({ sessionId: 'sess-0001', email: 'a@b.co', priority: 'high', reason: 'mine' }, { defaultPriority: 'low', defaultReason: 'Call me' });
    await run({ sessionId: 'sess-0001', email: 'a@b.co' });
    expect(received).toEqual([
      { sessionId: 'sess-0001', email: 'a@b.co', priority: 'urgent', reason: 'Call me' },
      { sessionId: 'sess-0001', email: 'a@b.co', priority: 'high', reason: 'mine' },
      { sessionId: 'sess-0001', email: 'a@b.co', priority: 'normal', reason: DEFAULT_HANDOFF_REASON },
    ]);
  });

  it('answers Error with EMAIL_REQUIRED and calls nobody when there is no e-mail', async () => {
    const out = await run({ sessionId: 'sess-0001', meta: { intent: 'handoff' } });
    expect(out.port).toBe('Error');
    expect(out.packet).toMatchObject({ code: 'EMAIL_REQUIRED', error: expect.stringMatching(/e-mail/) });
    expect(received).toEqual([]);
  });

  it('answers Error for a priority outside low, normal, high, urgent and without a session', async () => {
    expect((await run({ sessionId: 'sess-0001', email: 'a@b.co', priority: 'asap' })).packet).toMatchObject({ code: 'INVALID_REQUEST' });
    expect((await run({ email: 'a@b.co' })).packet).toMatchObject({ code: 'SESSION_REQUIRED' });
    expect(received).toEqual([]);
  });

  it('answers Handoff with duplicate=true and the pending id on 409', async () => {
    answer = { status: 409, body: { statusCode: 409, error: 'Conflict', code: 'HANDOFF_PENDING', message: 'pending', ok: false, handoffId: 'h0', status: 'pending' } };
    expect(await run({ sessionId: 'sess-0001', email: 'a@b.co' })).toEqual({ port: 'Handoff', packet: { handoffId: 'h0', status: 'pending', duplicate: true } });
  });

  it('answers Error when handoff is switched off (403), the request is refused (400) or the assistant is down', async () => {
    answer = { status: 403, body: { statusCode: 403, code: 'HANDOFF_DISABLED', message: 'handoff is switched off' } };
    expect((await run({ sessionId: 'sess-0001', email: 'a@b.co' })).packet).toEqual({ code: 'HANDOFF_DISABLED', error: 'handoff is switched off' });
    answer = { status: 400, body: { statusCode: 400, code: 'VALIDATION_FAILED', message: 'email must be an email' } };
    expect((await run({ sessionId: 'sess-0001', email: 'nope' })).packet).toEqual({ code: 'INVALID_REQUEST', error: 'email must be an email' });
    expect((await run({ sessionId: 'sess-0001', email: 'a@b.co' }, {}, 'http://127.0.0.1:1')).packet).toMatchObject({ code: 'ASSISTANT_UNAVAILABLE' });
  });
});
