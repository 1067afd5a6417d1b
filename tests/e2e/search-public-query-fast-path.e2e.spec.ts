import { TokenVerifier } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { metricsAuth, testEnv, token } from '../support/http';
import { type Answer, comparable, post, requestCount } from '../support/fast-path';

/**
 * search answers the public `POST /api/v1/search/indexes/{name}/query` before Express when it can
 * judge the request up front: a user token it has already verified, that the route admits (an
 * active user). What it answers must be what the Nest route answers. A token the verifier has not
 * seen yet goes through the Nest route (which verifies and remembers it), so the same request sent
 * twice, first with a new token and then with the same one, compares both paths; the gateway in
 * front is the same for both.
 */
describe('search: the fast path of the public POST /api/v1/search/indexes/{name}/query answers as the Nest route does', () => {
  let platform: Standalone;
  let gateway: string;
  let searchBase: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  const freshToken = (o: { active?: boolean } = {}) => token(`search-user-${++seq}`, [], o);
  const path = (index: string) => `/api/v1/search/indexes/${index}/query`;

  /** The same request through the Nest route (a new token) and then through the fast path (that token, remembered by then). */
  async function bothPaths(index: string, body: string | Buffer): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await freshToken();
    verify.mockClear();
    const slow = await post(`${gateway}${path(index)}`, t, body, { 'x-request-id': 'req-search-fast-1' });
    if (verify.mock.calls.length === 0) await post(`${gateway}${path('docs')}`, t, JSON.stringify({ text: 'warm' }));
    verify.mockClear();
    const fast = await post(`${gateway}${path(index)}`, t, body, { 'x-request-id': 'req-search-fast-1' });
    return { slow, fast, verified: verify.mock.calls.length };
  }

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    gateway = platform.url;
    const admin = await token('alice', ['admin:access']);
    const documents = [
      { id: 'refunds', title: 'Refunds', text: '# Refunds\n\nRefunds reach your card within five working days of the return.' },
      { id: 'parcels', title: 'Parcels', text: '# Parcels\n\nA parcel label is printed from the order page.' },
    ];
    const res = await fetch(`${gateway}/api/v1/admin/assistant/ingest`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ documents }) });
    expect(res.status).toBe(200);
    const search = platform.services.find((s) => s.name === 'search')!;
    searchBase = search.url;
    verify = jest.spyOn(search.app.get(TokenVerifier), 'verify');
  }, 60_000);
  afterAll(async () => {
    verify?.mockRestore();
    await platform?.close();
  });

  it('answers a query with a remembered token without verifying it again, with the headers and body of the Nest route', async () => {
    const text = await bothPaths('docs', JSON.stringify({ text: 'when does my refund arrive?', limit: 2 }));
    expect(text.verified).toBe(0);
    expect(comparable(text.fast)).toEqual(comparable(text.slow));
    expect(text.fast.status).toBe(200);
    expect(text.fast.headers['x-request-id']).toBe('req-search-fast-1');
    expect(JSON.parse(text.fast.text)).toMatchObject({ index: 'docs', limit: 2, hits: [{ id: 'refunds#0' }, expect.anything()] });
  });

  it('refuses a missing token, a bad token and an inactive user with the standard 401 and 403 bodies', async () => {
    const body = JSON.stringify({ text: 'refund' });
    const cases: Array<[string, () => Promise<string | undefined>, number, string]> = [
      ['no token', async () => undefined, 401, 'UNAUTHORIZED'],
      ['a malformed token', async () => 'not-a-jwt', 401, 'UNAUTHORIZED'],
      ['an inactive user', () => freshToken({ active: false }), 403, 'FORBIDDEN'],
    ];
    for (const [what, make, status, code] of cases) {
      const bearer = await make();
      // Twice: a token the guard has verified once is remembered, and must still be refused.
      const first = await post(`${gateway}${path('docs')}`, bearer, body, { 'x-request-id': 'req-refused-1' });
      const second = await post(`${gateway}${path('docs')}`, bearer, body, { 'x-request-id': 'req-refused-1' });
      expect({ what, ...comparable(second) }).toEqual({ what, ...comparable(first) });
      expect({ what, status: second.status }).toEqual({ what, status });
      expect(JSON.parse(second.text)).toEqual({ statusCode: status, error: expect.any(String), code, message: expect.any(String), requestId: 'req-refused-1' });
    }
  });

  it('answers a malformed, invalid or unknown query with the same 400 or 404 as the Nest route', async () => {
    const deep = `{"text":"x","filter":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    const cases: Array<[string, string, string | Buffer, number]> = [
      ['malformed JSON', 'docs', '{"text": "x",', 400],
      ['not an object', 'docs', '"refund"', 400],
      ['neither text nor vector', 'docs', '{}', 400],
      ['both text and vector', 'docs', JSON.stringify({ text: 'x', vector: [1, 2] }), 400],
      ['an unknown field', 'docs', JSON.stringify({ text: 'x', top: 3 }), 400],
      ['a bad limit', 'docs', JSON.stringify({ text: 'x', limit: 'many' }), 400],
      ['a zero limit', 'docs', JSON.stringify({ text: 'x', limit: 0 }), 400],
      ['a vector of the wrong dimension', 'docs', JSON.stringify({ vector: [0.1, 0.2] }), 400],
      ['an unsupported filter clause', 'docs', JSON.stringify({ text: 'x', filter: { near: 1 } }), 400],
      ['nesting too deep', 'docs', deep, 400],
      ['bytes that are not UTF-8', 'docs', Buffer.from([0x7b, 0x22, 0x74, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400],
      ['an unknown index', 'nothing_here', JSON.stringify({ text: 'x' }), 404],
    ];
    for (const [what, index, body, status] of cases) {
      const { slow, fast } = await bothPaths(index, body);
      expect({ what, ...comparable(fast) }).toEqual({ what, ...comparable(slow) });
      expect({ what, status: fast.status, requestId: JSON.parse(fast.text).requestId }).toEqual({ what, status, requestId: 'req-search-fast-1' });
    }
  });

  it('answers a request sent to search directly as the Nest route does, without verifying the token again', async () => {
    const t = await freshToken();
    const body = JSON.stringify({ text: 'parcel label', limit: 1 });
    const slow = await post(`${searchBase}${path('docs')}`, t, body, { 'x-request-id': 'req-search-direct' });
    verify.mockClear();
    const fast = await post(`${searchBase}${path('docs')}`, t, body, { 'x-request-id': 'req-search-direct' });
    expect(verify).not.toHaveBeenCalled();
    expect(comparable(fast)).toEqual(comparable(slow));
  });

  it('counts its answers in the request metrics under the route, as Express does', async () => {
    const auth = await metricsAuth();
    const route = '/api/v1/search/indexes/:name/query';
    const [ok, bad] = [await requestCount(searchBase, auth, route, '200'), await requestCount(searchBase, auth, route, '400')];
    const { verified } = await bothPaths('docs', JSON.stringify({ text: 'parcel label' }));
    expect(verified).toBe(0);
    await bothPaths('docs', '{}');
    expect(await requestCount(searchBase, auth, route, '200')).toBeGreaterThanOrEqual(ok + 2);
    expect(await requestCount(searchBase, auth, route, '400')).toBe(bad + 2);
  });
});
