import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { call, json, serviceToken, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';

/**
 * The failing cases the fuzzing tier found, replayed exactly: each answered 5xx before its fix. The
 * tier draws random values; these stay fixed so a regression fails every run, not one run in many.
 */
describe('fuzzing tier findings, replayed', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('fuzz-admin', ['admin:access']);
    await publishFlow(api, admin, 'fuzz-publish', passThroughFlow, { publish: false });
  });
  afterAll(() => platform?.close());

  it.each([
    ['variants as a string', { variants: 'constructor' }],
    ['variants as an object', { variants: { label: 'a' } }],
    ['versionID as a number', { versionID: 7 }],
    ['an operator key beside valid fields', { variants: 'x', $set: { polluted: true } }],
  ])('publish refuses %s with 400 and the standard error body', async (_, body) => {
    const res = await call(`${api}/flows/fuzz-publish/publish`, { method: 'POST', bearer: admin, ...json(body) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: expect.any(String), requestId: expect.any(String) });
  });

  it('publish with no body still publishes the latest saved version', async () => {
    const res = await call(`${api}/flows/fuzz-publish/publish`, { method: 'POST', bearer: admin });
    expect(res.status).toBe(200);
  });

  it.each([
    ['query', INTERNAL_PERMS.searchQuery],
    ['upsert', INTERNAL_PERMS.searchWrite],
    ['delete', INTERNAL_PERMS.searchWrite],
  ])('search refuses an internal %s without a JSON object body with 400', async (action, perm) => {
    const search = platform.services.find((s) => s.name === 'search')!;
    const bearer = await serviceToken('assistant', 'search', [perm]);
    const url = `${search.url}/internal/search/indexes/fuzz-1/${action}`;
    for (const init of [{}, { headers: { 'content-type': 'text/plain' }, body: 'x' }, json(null), json([1])] as RequestInit[]) {
      const res = await call(url, { method: 'POST', bearer, ...init });
      expect([res.status, res.body?.code]).toEqual([400, expect.any(String)]);
    }
  });

  it('deployment labels of null answer 400 naming labels, on create and on PATCH', async () => {
    const patch = await call(`${api}/deployments/%20%F0%AF%A4%90`, { method: 'PATCH', bearer: admin, ...json({ name: 's42rs-75', kind: 'subscriber', disabled: false, labels: null }) });
    expect(patch.status).toBe(400);
    expect(patch.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'labels' })] });
    const create = await call(`${api}/deployments`, { method: 'POST', bearer: admin, ...json({ name: 'null-labels', kind: 'subscriber', flowId: 'fuzz-publish', labels: null }) });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ details: expect.arrayContaining([expect.objectContaining({ field: 'labels' })]) });
  });

  it('a handoff request with a lone surrogate in its e-mail answers 400 naming the field', async () => {
    const res = await call(`${api}/assistant/handoff`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sessionId":"fuzz-session-1","email":"\\ud800x@example.com"}' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'email' }] });
  });
});
