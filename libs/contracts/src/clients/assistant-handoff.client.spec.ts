import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '../http/service-client';
import { ServiceCallError } from '../http/service-client.errors';
import { INTERNAL_PERMS, internalPermsFor } from '../http/internal-routes';
import { ASSISTANT_HANDOFF_INTERNAL_PATH, AssistantHandoffClient } from './assistant-handoff.client';

// A real HTTP server plays the assistant's internal route.
let server: Server;
let answer: { status: number; body: unknown };
let seen: Array<{ url?: string; auth?: string; body: string; perms?: readonly string[] }>;
let client: AssistantHandoffClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const perms: string[][] = [];
  client = new AssistantHandoffClient(
    new ServiceClient({
      service: 'assistant',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      retries: 0,
      tokenProvider: async (_target, p) => (perms.push([...p]), `svc-${p.join(',')}`),
    }),
  );
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  seen = [];
});

describe('AssistantHandoffClient', () => {
  it('posts the request with a token for the handoff permission only and answers the filed handoff', async () => {
    answer = { status: 201, body: { ok: true, message: 'filed', handoffId: 'h1', status: 'pending' } };
    const out = await client.request({ sessionId: 'sess-0001', email: 'a@b.co', priority: 'urgent' });
    expect(out).toEqual({ handoffId: 'h1', status: 'pending', duplicate: false });
    expect(seen[0]).toMatchObject({ url: ASSISTANT_HANDOFF_INTERNAL_PATH, auth: `Bearer svc-${INTERNAL_PERMS.assistantHandoff}` });
    expect(JSON.parse(seen[0].body)).toEqual({ sessionId: 'sess-0001', email: 'a@b.co', priority: 'urgent' });
    expect(internalPermsFor('assistant', 'POST', ASSISTANT_HANDOFF_INTERNAL_PATH)).toEqual([INTERNAL_PERMS.assistantHandoff]);
  });

  it('turns a 409 with the pending handoff into a duplicate answer', async () => {
    answer = { status: 409, body: { statusCode: 409, error: 'Conflict', code: 'HANDOFF_PENDING', message: 'pending', ok: false, handoffId: 'h0', status: 'pending' } };
    expect(await client.request({ sessionId: 'sess-0001', email: 'a@b.co' })).toEqual({ handoffId: 'h0', status: 'pending', duplicate: true });
  });

  it('rejects a 403 (handoff disabled), a 400 and a 409 without a handoff id', async () => {
    for (const [status, body] of [
      [403, { statusCode: 403, code: 'HANDOFF_DISABLED', message: 'off' }],
      [400, { statusCode: 400, code: 'VALIDATION_FAILED', message: 'bad email' }],
      [409, { statusCode: 409, code: 'OTHER', message: 'x' }],
    ] as const) {
      answer = { status, body };
      const e = await client.request({ sessionId: 'sess-0001', email: 'a@b.co' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ServiceCallError);
      expect((e as ServiceCallError).status).toBe(status);
    }
  });
});
