import { TokenVerifier } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, metricsAuth, parseSse, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';
import { type Answer, comparable as comparableAnswer, post, requestCount } from '../support/fast-path';

/**
 * flow-runtime answers the public `POST /api/v1/flows/{id}/runs` before Express when it can judge
 * the request up front: a token it has already verified, that the route admits (an active user
 * with admin:access), and no query string. What it answers, and what it stores, must be what the
 * Nest route answers and stores. A token the verifier has not seen yet goes through the Nest route
 * (which verifies and remembers it), so the same request sent twice, first with a new token and
 * then with the same one, compares both paths through the gateway.
 */

/** Differ on every run whichever path answers: the run id (and so the body's ETag and length). */
const comparable = (a: Answer) => {
  const c = comparableAnswer(a, ['x-run-id', 'etag', 'content-length']);
  if (c.body && typeof c.body === 'object' && 'runId' in c.body) c.body = { ...c.body, runId: '<run>' };
  return c;
};

describe('flow-runtime: the fast path of POST /api/v1/flows/{id}/runs answers and persists as the Nest route does', () => {
  let platform: Standalone;
  let api: string;
  let runtimeBase: string;
  let admin: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  const freshToken = (perms = ['admin:access'], extra: { active?: boolean } = {}) => token(`runs-fast-${++seq}`, perms, extra);

  /** The same request through the Nest route (a new token) and then through the fast path (that token again). */
  async function bothPaths(flowId: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await freshToken();
    verify.mockClear();
    const slow = await post(`${api}/flows/${flowId}/runs`, t, body, { 'x-request-id': 'req-runs-fast-1', ...headers });
    if (verify.mock.calls.length === 0) await post(`${api}/flows/no-such-flow/runs`, t, '{}');
    verify.mockClear();
    const fast = await post(`${api}/flows/${flowId}/runs`, t, body, { 'x-request-id': 'req-runs-fast-1', ...headers });
    return { slow, fast, verified: verify.mock.calls.length };
  }

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    await publishFlow(api, admin, 'runs-fast-echo', passThroughFlow, { name: 'Runs fast echo' });
    const runtime = platform.services.find((s) => s.name === 'flow-runtime')!;
    runtimeBase = runtime.url;
    verify = jest.spyOn(runtime.app.get(TokenVerifier), 'verify');
  }, 60_000);
  afterAll(async () => {
    verify?.mockRestore();
    await platform?.close();
  });

  it('runs a flow with a remembered token without verifying it again, answering and storing the run as the Nest route does', async () => {
    const { slow, fast, verified } = await bothPaths('runs-fast-echo', JSON.stringify({ input: { hello: 'world' }, meta: { session_id: 's-1' } }));
    expect(verified).toBe(0);
    expect(comparable(fast)).toEqual(comparable(slow));
    expect(fast.status).toBe(200);
    expect(fast.headers['x-request-id']).toBe('req-runs-fast-1');
    const body = JSON.parse(fast.text);
    expect(body).toMatchObject({ status: 'completed', output: { hello: 'world' } });
    expect(fast.headers['x-run-id']).toBe(body.runId);
    // Stored alike: the run, its events and its result.
    const [a, b] = await Promise.all([JSON.parse(slow.text).runId, body.runId].map((id: string) => call(`${api}/runs/${id}`, { bearer: admin })));
    expect(b.status).toBe(200);
    const stored = (r: { body: Record<string, any> }) => ({
      ...r.body,
      runId: '<run>',
      startedBy: r.body.startedBy.replace(/runs-fast-\d+/, '<user>'),
      startedAt: '<t>',
      finishedAt: '<t>',
      durationMs: 0,
      timeline: r.body.timeline.map((e: Record<string, any>) => ({ type: e.type, seq: e.seq, data: Object.keys(e.data ?? {}).sort() })),
    });
    expect(stored(b)).toEqual(stored(a));
    expect(b.body).toMatchObject({ status: 'completed', output: { hello: 'world' }, startedBy: expect.stringMatching(/^runs-fast-\d+$/) });
  });

  it('streams the run as SSE when asked to, as the Nest route does', async () => {
    const { slow, fast, verified } = await bothPaths('runs-fast-echo', JSON.stringify({ input: { n: 1 } }), { accept: 'text/event-stream' });
    expect(verified).toBe(0);
    expect({ status: fast.status, headers: comparable(fast).headers }).toEqual({ status: slow.status, headers: comparable(slow).headers });
    expect(fast.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = (a: Answer) => parseSse(a.text).map((e) => [e.id, e.event]);
    expect(events(fast)).toEqual(events(slow));
    expect(events(fast).at(-1)?.[1]).toBe('run.completed');
  });

  it('refuses a missing token, a token without admin:access and an inactive user with the standard 401 and 403 bodies', async () => {
    const body = JSON.stringify({ input: {} });
    const cases: Array<[string, () => Promise<string | undefined>, number, string]> = [
      ['no token', async () => undefined, 401, 'UNAUTHORIZED'],
      ['a malformed token', async () => 'not-a-jwt', 401, 'UNAUTHORIZED'],
      ['no admin:access', () => freshToken([]), 403, 'FORBIDDEN'],
      ['an inactive user', () => freshToken(['admin:access'], { active: false }), 403, 'FORBIDDEN'],
    ];
    for (const [what, make, status, code] of cases) {
      const bearer = await make();
      const first = await post(`${api}/flows/runs-fast-echo/runs`, bearer, body, { 'x-request-id': 'req-refused-1' });
      const second = await post(`${api}/flows/runs-fast-echo/runs`, bearer, body, { 'x-request-id': 'req-refused-1' });
      expect({ what, ...comparable(second) }).toEqual({ what, ...comparable(first) });
      expect({ what, status: second.status }).toEqual({ what, status });
      expect(JSON.parse(second.text)).toEqual({ statusCode: status, error: expect.any(String), code, message: expect.any(String), requestId: 'req-refused-1' });
    }
  });

  it('answers a malformed or invalid body and an unknown flow with the same 400 or 404 as the Nest route', async () => {
    const cases: Array<[string, string, string | Buffer, number]> = [
      ['malformed JSON', 'runs-fast-echo', '{"input": ', 400],
      ['not an object', 'runs-fast-echo', '"go"', 400],
      ['an unknown field', 'runs-fast-echo', JSON.stringify({ input: {}, priority: 1 }), 400],
      ['meta not an object', 'runs-fast-echo', JSON.stringify({ meta: 'x' }), 400],
      ['a versionId not a string', 'runs-fast-echo', JSON.stringify({ versionId: 7 }), 400],
      ['bytes that are not UTF-8', 'runs-fast-echo', Buffer.from([0x7b, 0x22, 0x69, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400],
      ['an unknown flow', 'no-such-flow', JSON.stringify({ input: {} }), 404],
      ['an unknown version', 'runs-fast-echo', JSON.stringify({ versionId: 'nope' }), 404],
    ];
    for (const [what, flowId, body, status] of cases) {
      const { slow, fast } = await bothPaths(flowId, body);
      expect({ what, ...comparable(fast) }).toEqual({ what, ...comparable(slow) });
      expect({ what, status: fast.status, requestId: JSON.parse(fast.text).requestId }).toEqual({ what, status, requestId: 'req-runs-fast-1' });
    }
  });

  it('counts its answers in the request metrics under the route, as Express does', async () => {
    const auth = await metricsAuth();
    const route = '/api/v1/flows/:id/runs';
    const [ok, missing] = [await requestCount(runtimeBase, auth, route, '200'), await requestCount(runtimeBase, auth, route, '404')];
    const { verified } = await bothPaths('runs-fast-echo', JSON.stringify({ input: {} }));
    expect(verified).toBe(0);
    await bothPaths('no-such-flow', JSON.stringify({ input: {} }));
    expect(await requestCount(runtimeBase, auth, route, '200')).toBe(ok + 2);
    expect(await requestCount(runtimeBase, auth, route, '404')).toBeGreaterThanOrEqual(missing + 2);
  });
});
