import { INTERNAL_PERMS } from '@flowplane/contracts';
import { TokenVerifier } from '@flowplane/platform/auth';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { metricsAuth, serviceToken, testEnv, token } from '../support/http';
import { type Answer, comparable, post as postTo, requestCount } from '../support/fast-path';

/**
 * search answers `POST /internal/search/indexes/{name}/query` (the retrieval node's query per chat
 * turn) before Express when it can judge the request up front: a token already verified, with the
 * route's permission. What it answers must be what the Nest route answers. A token the verifier
 * has not seen yet goes through the Nest route (which verifies and remembers it), so the same
 * request sent twice, first with a new token and then with the same one, compares both paths.
 */

describe('search: the fast path of POST /internal/search/indexes/{name}/query answers as the Nest route does', () => {
  let platform: Standalone;
  let base: string;
  let verify: jest.SpyInstance;
  let seq = 0;

  const freshToken = (perms: string[] = [INTERNAL_PERMS.searchQuery], to = 'search') => serviceToken(`query-fast-path-${++seq}`, to, perms);

  const post = (path: string, bearer: string | undefined, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> => postTo(`${base}${path}`, bearer, body, headers);

  /**
   * The same request through the Nest route (a new token) and then through the fast path (that
   * token again; a body refused before the guard runs leaves it unverified, so a valid query
   * verifies it first). `verified`: verifications during the second request.
   */
  async function bothPaths(path: string, body: string | Buffer): Promise<{ slow: Answer; fast: Answer; verified: number }> {
    const t = await freshToken();
    verify.mockClear();
    const slow = await post(path, t, body, { 'x-request-id': 'req-query-fast-1' });
    if (verify.mock.calls.length === 0) await post('/internal/search/indexes/docs/query', t, JSON.stringify({ text: 'warm' }));
    verify.mockClear();
    const fast = await post(path, t, body, { 'x-request-id': 'req-query-fast-1' });
    return { slow, fast, verified: verify.mock.calls.length };
  }

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ GATEWAY_RATE_LIMIT: '0' }) });
    const admin = await token('alice', ['admin:access']);
    const documents = [
      { id: 'refunds', title: 'Refunds', text: '# Refunds\n\nRefunds reach your card within five working days of the return.' },
      { id: 'parcels', title: 'Parcels', text: '# Parcels\n\nA parcel label is printed from the order page.' },
    ];
    const res = await fetch(`${platform.url}/api/v1/admin/assistant/ingest`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ documents }) });
    expect(res.status).toBe(200);
    const search = platform.services.find((s) => s.name === 'search')!;
    base = search.url;
    verify = jest.spyOn(search.app.get(TokenVerifier), 'verify');
  });
  afterAll(async () => {
    verify?.mockRestore();
    await platform?.close();
  });

  it('answers a query with a remembered token without verifying it again, with the headers and body of the Nest route', async () => {
    for (const path of ['/internal/search/indexes/docs/query', '/internal/search/indexes/svc_docs/query']) {
      const { slow, fast, verified } = await bothPaths(path, JSON.stringify({ text: 'when does my refund arrive?', limit: 2 }));
      expect({ path, verified }).toEqual({ path, verified: 0 });
      expect(comparable(fast)).toEqual(comparable(slow));
      expect(fast.status).toBe(200);
      expect(fast.headers['x-request-id']).toBe('req-query-fast-1');
      expect(JSON.parse(fast.text)).toMatchObject({ index: 'docs', backendIndex: 'svc_docs', hits: [{ id: 'refunds#0', payload: { docId: 'refunds' } }, expect.anything()] });
    }
  });

  it('refuses a missing, foreign or user token and a token without the permission with the standard 401 and 403 bodies', async () => {
    const body = JSON.stringify({ text: 'refund' });
    const cases: Array<[string, () => Promise<string | undefined>, number, string]> = [
      ['no token', async () => undefined, 401, 'UNAUTHORIZED'],
      ['a token for another service', () => freshToken([INTERNAL_PERMS.searchQuery], 'deployments'), 401, 'UNAUTHORIZED'],
      ['a user token', () => token('root', ['admin:access'], { superuser: true }), 403, 'FORBIDDEN'],
      ['a service token without internal:search:query', () => freshToken([INTERNAL_PERMS.searchWrite]), 403, 'FORBIDDEN'],
    ];
    for (const [what, make, status, code] of cases) {
      const bearer = await make();
      // Twice: a token the guard has verified once is remembered, and must still be refused.
      const first = await post('/internal/search/indexes/docs/query', bearer, body, { 'x-request-id': 'req-refused-1' });
      const second = await post('/internal/search/indexes/docs/query', bearer, body, { 'x-request-id': 'req-refused-1' });
      expect({ what, ...comparable(second) }).toEqual({ what, ...comparable(first) });
      expect({ what, status: second.status }).toEqual({ what, status });
      expect(JSON.parse(second.text)).toEqual({ statusCode: status, error: expect.any(String), code, message: expect.any(String), requestId: 'req-refused-1' });
    }
  });

  it('answers a malformed, invalid or unknown query with the same 400 or 404 as the Nest route', async () => {
    const deep = `{"text":"x","filter":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    const cases: Array<[string, string, string | Buffer, number, string]> = [
      ['malformed JSON', 'docs', '{"text": "x",', 400, 'INVALID_JSON'],
      ['not an object', 'docs', '"refund"', 400, 'INVALID_JSON'],
      ['no text', 'docs', '{}', 400, 'SEARCH_INVALID'],
      ['blank text', 'docs', JSON.stringify({ text: '  ' }), 400, 'SEARCH_INVALID'],
      ['an array', 'docs', '[1]', 400, 'SEARCH_INVALID'],
      ['a bad limit', 'docs', JSON.stringify({ text: 'x', limit: 'many' }), 400, 'SEARCH_INVALID'],
      ['nesting too deep', 'docs', deep, 400, 'JSON_TOO_DEEP'],
      ['bytes that are not UTF-8', 'docs', Buffer.from([0x7b, 0x22, 0x74, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 400, 'INVALID_UTF8'],
      ['an unknown index', 'nothing_here', JSON.stringify({ text: 'x' }), 404, 'SEARCH_INDEX_NOT_FOUND'],
    ];
    for (const [what, index, body, status, code] of cases) {
      const { slow, fast, verified } = await bothPaths(`/internal/search/indexes/${index}/query`, body);
      expect({ what, verified }).toEqual({ what, verified: 0 });
      expect({ what, ...comparable(fast) }).toEqual({ what, ...comparable(slow) });
      expect({ what, status: fast.status, code: JSON.parse(fast.text).code, requestId: JSON.parse(fast.text).requestId }).toEqual({ what, status, code, requestId: 'req-query-fast-1' });
    }
  });

  it('counts its answers in the request metrics under the route, as Express does', async () => {
    const count = async (status: string) => requestCount(base, await metricsAuth(), '/internal/search/indexes/:name/query', status);
    const [ok, bad] = [await count('200'), await count('400')];
    const { verified } = await bothPaths('/internal/search/indexes/docs/query', JSON.stringify({ text: 'parcel label' }));
    expect(verified).toBe(0);
    await bothPaths('/internal/search/indexes/docs/query', '{}');
    // Each bothPaths sends the request twice (Nest route, then fast path) and may warm a token once.
    expect(await count('200')).toBeGreaterThanOrEqual(ok + 2);
    expect(await count('400')).toBe(bad + 2);
  });
});
