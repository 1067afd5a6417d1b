import { request as httpRequest } from 'node:http';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { TokenVerifier } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { parseSse, serviceToken, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';

/**
 * flow-runtime answers `POST /internal/runs` (the assistant's run per chat message) before
 * Express when it can judge the request up front: a token already verified, with the route's
 * permission. What it answers must be what the Nest route answers. A token the verifier has not
 * seen yet goes through the Nest route (which verifies and remembers it), so sending the same
 * request twice, first with a new token and then with the same one, compares both paths.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Headers that differ on every response, whichever path answers. */
const VOLATILE = new Set(['date', 'x-run-id', 'keep-alive', 'connection', 'transfer-encoding']);

function comparable(a: Answer): { status: number; headers: Record<string, unknown>; body: unknown } {
  const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !VOLATILE.has(k)));
  let body: unknown = a.text;
  try {
    body = JSON.parse(a.text);
  } catch {
    /* an event stream */
  }
  return { status: a.status, headers, body };
}

describe('flow-runtime: the fast path of POST /internal/runs answers as the Nest route does', () => {
  let platform: Standalone;
  let base: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  /** A service token no request has used yet (a caller name of its own). */
  const freshToken = (perms: string[] = [INTERNAL_PERMS.runsStart], to = 'flow-runtime') => serviceToken(`fast-path-${++seq}`, to, perms);

  function post(bearer: string | undefined, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const payload = typeof body === 'string' ? Buffer.from(body) : body;
      const req = httpRequest(
        `${base}/internal/runs`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * The same request through the Nest route (a new token) and then through the fast path (that
   * token again, remembered by then: a body refused before the guard runs leaves it unverified, so
   * a run of an unknown flow verifies it first). `verified`: verifications during the second request.
   */
  async function bothPaths(body: string | Buffer, perms?: string[], headers: Record<string, string> = {}): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await freshToken(perms);
    verify.mockClear();
    const slow = await post(t, body, { 'x-request-id': 'req-fast-path-1', ...headers });
    if (verify.mock.calls.length === 0) await post(t, JSON.stringify({ flowId: 'no-such-flow' }));
    verify.mockClear();
    const fast = await post(t, body, { 'x-request-id': 'req-fast-path-1', ...headers });
    return { slow, fast, verified: verify.mock.calls.length };
  }

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    const admin = await token('alice', ['admin:access']);
    await publishFlow(`${platform.url}/api/v1`, admin, 'fast-echo', passThroughFlow, { name: 'Fast echo' });
    const flowRuntime = platform.services.find((s) => s.name === 'flow-runtime')!;
    base = flowRuntime.url;
    verify = jest.spyOn(flowRuntime.app.get(TokenVerifier), 'verify');
  });
  afterAll(async () => {
    verify?.mockRestore();
    await platform?.close();
  });

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
      const first = await post(bearer, body, { 'x-request-id': 'req-refused-1' });
      const second = await post(bearer, body, { 'x-request-id': 'req-refused-1' });
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
