import { INTERNAL_PERMS } from '@flowplane/contracts';
import { TokenVerifier } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, parseSse, serviceToken, testEnv, token, until } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';
import { type Answer, comparable as comparableAnswer, post } from '../support/fast-path';

/**
 * Two routes are answered before Express when the request can be judged up front (a token
 * already verified, with the route's permission, or no token on a public route):
 * flow-runtime's `POST /internal/runs` (the assistant's run per chat message) and the assistant's
 * `POST /api/v1/assistant/messages`. What they answer must be what the Nest routes answer. A token
 * the verifier has not seen yet goes through the Nest route (which verifies and remembers it), so
 * sending the same request twice, first with a new token and then with the same one, compares
 * both paths; a spy on the verifier tells which path took the second request.
 */

/** Headers that differ on every response of these routes, whichever path answers. */
const VOLATILE = ['x-run-id', 'x-assistant-session-id', 'transfer-encoding'];
const comparable = (a: Answer) => comparableAnswer(a, VOLATILE);

/**
 * Verifications of `token` the spy saw: other work in the same process (other services' calls to
 * the one spied on) verifies other tokens meanwhile, which says nothing about this request's path.
 */
const verificationsOf = (verify: jest.SpyInstance, token: string) => verify.mock.calls.filter(([t]) => t === token).length;

let platform: Standalone;

beforeAll(async () => {
  platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0', ASSISTANT_RATE_LIMIT: '1000' }) });
}, 60_000);
afterAll(() => platform?.close());

describe('flow-runtime: the fast path of POST /internal/runs answers as the Nest route does', () => {
  let base: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  /** A service token no request has used yet (a caller name of its own). */
  const freshToken = (perms: string[] = [INTERNAL_PERMS.runsStart], to = 'flow-runtime') => serviceToken(`fast-path-${++seq}`, to, perms);

  /**
   * The same request through the Nest route (a new token) and then through the fast path (that
   * token again, remembered by then: a body refused before the guard runs leaves it unverified, so
   * a run of an unknown flow verifies it first). `verified`: verifications during the second request.
   */
  async function bothPaths(body: string | Buffer, perms?: string[], headers: Record<string, string> = {}): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await freshToken(perms);
    verify.mockClear();
    const slow = await post(`${base}/internal/runs`, t, body, { 'x-request-id': 'req-fast-path-1', ...headers });
    if (verificationsOf(verify, t) === 0) await post(`${base}/internal/runs`, t, JSON.stringify({ flowId: 'no-such-flow' }));
    verify.mockClear();
    const fast = await post(`${base}/internal/runs`, t, body, { 'x-request-id': 'req-fast-path-1', ...headers });
    return { slow, fast, verified: verificationsOf(verify, t) };
  }

  beforeAll(async () => {
    const admin = await token('alice', ['admin:access']);
    await publishFlow(`${platform.url}/api/v1`, admin, 'fast-echo', passThroughFlow, { name: 'Fast echo' });
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!;
    base = flowRuntime.url;
    verify = jest.spyOn(flowRuntime.app.get(TokenVerifier), 'verify');
  });
  afterAll(() => verify?.mockRestore());

  it('streams a run with a remembered token without verifying it again, with the headers and events of the Nest route', async () => {
    const body = JSON.stringify({ flowId: 'fast-echo', input: { n: 1 }, meta: { source: 'test' }, startedBy: 'user:ada' });
    const { slow, fast, verified } = await bothPaths(body);
    // The second request was not verified again: it took the fast path.
    expect(verified).toBe(0);
    expect(fast.status).toBe(200);
    expect(fast.headers['x-request-id']).toBe('req-fast-path-1');
    expect(fast.headers['x-run-id']).toEqual(expect.any(String));
    expect(fast.headers['x-run-id']).not.toBe(slow.headers['x-run-id']);
    const [s, f] = [slow, fast].map(comparable);
    expect(f.headers).toEqual(s.headers);
    const events = (a: Answer) => parseSse(a.text).map((e) => [e.id, e.event]);
    expect(events(fast)).toEqual(events(slow));
    expect(parseSse(fast.text).at(-1)).toMatchObject({ event: 'run.completed', data: { output: { n: 1 } } });
    const admin = await token('alice', ['admin:access']);
    const run = await fetch(`${platform.url}/api/v1/runs/${String(fast.headers['x-run-id'])}`, { headers: { authorization: `Bearer ${admin}` } }).then((r) => r.json());
    expect(run).toMatchObject({ status: 'completed', startedBy: 'user:ada', flowId: 'fast-echo' });
  });

  it('streams only the event types asked for, with the run sequence numbers as ids, on both paths', async () => {
    const body = JSON.stringify({ flowId: 'fast-echo', input: { n: 2 }, events: ['run.started', 'run.completed'] });
    const { slow, fast, verified } = await bothPaths(body);
    expect(verified).toBe(0);
    for (const a of [slow, fast]) {
      const events = parseSse(a.text);
      expect(events.map((e) => e.event)).toEqual(['run.started', 'run.completed']);
      expect(events[0].id).toBe(1);
      expect(events[1].id).toBeGreaterThan(2);
    }
  });

  it('refuses a missing, foreign or user token and a token without the permission with the standard 401 and 403 bodies', async () => {
    const body = JSON.stringify({ flowId: 'fast-echo' });
    const cases: Array<[string, () => Promise<string | undefined>, number, string]> = [
      ['no token', async () => undefined, 401, 'UNAUTHORIZED'],
      ['a token for another service', () => freshToken([INTERNAL_PERMS.runsStart], 'deployments'), 401, 'UNAUTHORIZED'],
      ['a user token', () => token('root', ['admin:access'], { superuser: true }), 403, 'FORBIDDEN'],
      ['a service token without internal:runs:start', () => freshToken([INTERNAL_PERMS.runsRead]), 403, 'FORBIDDEN'],
    ];
    for (const [what, make, status, code] of cases) {
      const bearer = await make();
      // Twice: a token the guard has verified once is remembered, and must still be refused.
      const first = await post(`${base}/internal/runs`, bearer, body, { 'x-request-id': 'req-refused-1' });
      const second = await post(`${base}/internal/runs`, bearer, body, { 'x-request-id': 'req-refused-1' });
      expect({ what, ...comparable(second) }).toEqual({ what, ...comparable(first) });
      expect({ what, status: second.status }).toEqual({ what, status });
      expect(JSON.parse(second.text)).toEqual({ statusCode: status, error: expect.any(String), code, message: expect.any(String), requestId: 'req-refused-1' });
    }
  });

  it('answers a malformed, invalid or unknown body with the same 400 or 404 as the Nest route', async () => {
    const deep = `{"flowId":"fast-echo","input":${'['.repeat(200)}${']'.repeat(200)}}`;
    const bodies: Array<[string, string | Buffer, number, string]> = [
      ['malformed JSON', '{"flowId": "fast-echo",', 400, 'INVALID_JSON'],
      ['not an object', '"fast-echo"', 400, 'INVALID_JSON'],
      ['no flowId', '{}', 400, 'VALIDATION_FAILED'],
      ['an unknown field', JSON.stringify({ flowId: 'fast-echo', extra: 1 }), 400, 'VALIDATION_FAILED'],
      ['a flowId too long', JSON.stringify({ flowId: 'f'.repeat(201) }), 400, 'VALIDATION_FAILED'],
      ['meta not an object', JSON.stringify({ flowId: 'fast-echo', meta: [1] }), 400, 'VALIDATION_FAILED'],
      ['events not strings', JSON.stringify({ flowId: 'fast-echo', events: [1] }), 400, 'VALIDATION_FAILED'],
      ['nesting too deep', deep, 400, 'JSON_TOO_DEEP'],
      ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x66, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400, 'INVALID_UTF8'],
      ['an unknown flow', JSON.stringify({ flowId: 'no-such-flow' }), 404, 'FLOW_NOT_FOUND'],
    ];
    for (const [what, body, status, code] of bodies) {
      const { slow, fast, verified } = await bothPaths(body);
      expect({ what, verified }).toEqual({ what, verified: 0 });
      expect({ what, ...comparable(fast) }).toEqual({ what, ...comparable(slow) });
      expect({ what, status: fast.status, code: JSON.parse(fast.text).code, requestId: JSON.parse(fast.text).requestId }).toEqual({ what, status, code, requestId: 'req-fast-path-1' });
    }
  });
});

describe('assistant: the fast path of POST /api/v1/assistant/messages answers as the Nest route does', () => {
  let url: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  /** The same request through the Nest route (a user token not seen yet) and then through the fast path (that token again). */
  async function bothPaths(body: string | Buffer): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await token(`chat-user-${++seq}`);
    verify.mockClear();
    const slow = await post(url, t, body, { 'x-request-id': 'req-chat-1' });
    // A body refused before the guard leaves the token unverified: an invalid body verifies it.
    if (verificationsOf(verify, t) === 0) await post(url, t, '{}');
    verify.mockClear();
    const fast = await post(url, t, body, { 'x-request-id': 'req-chat-1' });
    return { slow, fast, verified: verificationsOf(verify, t) };
  }

  beforeAll(async () => {
    const api = `${platform.url}/api/v1`;
    const admin = await token('alice', ['admin:access']);
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    expect((await call(`${api}/admin/assistant/reset?template=echo`, { method: 'POST', bearer: admin })).status).toBe(200);
    const assistant = platform.services.find((s) => s.name === 'assistant')!;
    url = `${assistant.url}/api/v1/assistant/messages`;
    verify = jest.spyOn(assistant.app.get(TokenVerifier), 'verify');
  }, 60_000);
  afterAll(() => verify?.mockRestore());

  it('streams a signed-in chat with a remembered token without verifying it again, with the headers and frames of the Nest route, and stores it', async () => {
    const { slow, fast, verified } = await bothPaths(JSON.stringify({ message: 'Hello fast path', meta: { intent: 'none' } }));
    expect(verified).toBe(0);
    expect(fast.status).toBe(200);
    expect(fast.headers['x-request-id']).toBe('req-chat-1');
    expect(comparable(fast).headers).toEqual(comparable(slow).headers);
    const frames = (a: Answer) => parseSse(a.text).map((f) => f.event);
    expect(frames(fast)).toEqual(frames(slow));
    expect(parseSse(fast.text).at(-1)).toMatchObject({ event: 'message', data: { content: 'Hello fast path', status: 'completed' } });
    const sessionId = String(fast.headers['x-assistant-session-id']);
    const transcript = await call(`${platform.url}/api/v1/assistant/chats/me/${sessionId}`);
    expect(transcript.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'Hello fast path'],
      ['assistant', 'Hello fast path'],
    ]);
  });

  it('answers an anonymous chat without any token, and a second message of its session in the same chat', async () => {
    const first = await post(url, undefined, JSON.stringify({ message: 'one' }), { 'x-request-id': 'req-anon-1' });
    expect(first.status).toBe(200);
    expect(first.headers['x-request-id']).toBe('req-anon-1');
    const sessionId = String(first.headers['x-assistant-session-id']);
    const second = await post(url, undefined, JSON.stringify({ sessionId, message: 'two' }));
    expect(second.headers['x-assistant-session-id']).toBe(sessionId);
    expect(parseSse(second.text).at(-1)).toMatchObject({ event: 'message', data: { content: 'two' } });
    const transcript = await call(`${platform.url}/api/v1/assistant/chats/me/${sessionId}`);
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual(['one', 'one', 'two', 'two']);
  });

  it('answers a malformed or invalid body with the same 400 as the Nest route', async () => {
    const bodies: Array<[string, string, string]> = [
      ['malformed JSON', '{"message": ', 'INVALID_JSON'],
      ['no message', '{}', 'VALIDATION_FAILED'],
      ['a message that is not a string', JSON.stringify({ message: 42 }), 'VALIDATION_FAILED'],
      ['an unknown field', JSON.stringify({ message: 'hi', extra: true }), 'VALIDATION_FAILED'],
      ['a malformed session id', JSON.stringify({ message: 'hi', sessionId: 'short' }), 'VALIDATION_FAILED'],
      ['a null session id', JSON.stringify({ message: 'hi', sessionId: null }), 'INVALID_SESSION_ID'],
      ['an empty message', JSON.stringify({ message: '   ' }), 'EMPTY_MESSAGE'],
      ['a meta field that is not a string', JSON.stringify({ message: 'hi', meta: { n: 1 } }), 'INVALID_META'],
    ];
    for (const [what, body, code] of bodies) {
      const { slow, fast, verified } = await bothPaths(body);
      expect({ what, verified }).toEqual({ what, verified: 0 });
      expect({ what, ...comparable(fast) }).toEqual({ what, ...comparable(slow) });
      expect({ what, status: fast.status, code: JSON.parse(fast.text).code, requestId: JSON.parse(fast.text).requestId }).toEqual({ what, status: 400, code, requestId: 'req-chat-1' });
    }
    // Anonymous callers get the same answer from the fast path.
    const anonymous = await post(url, undefined, '{}', { 'x-request-id': 'req-chat-1' });
    const signedIn = await bothPaths('{}');
    expect(comparable(anonymous)).toEqual(comparable(signedIn.slow));
  });
});
