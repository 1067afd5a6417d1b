import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, serviceToken, testEnv, token } from '../support/http';

/** `GET /api/v1/auth/me`: the console asks who its token names before drawing anything. */
describe('GET /api/v1/auth/me through the gateway', () => {
  let platform: Standalone;
  let url: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    url = `${platform.url}/api/v1/auth/me`;
  }, 60_000);
  afterAll(() => platform?.close());

  it('answers the subject, permissions and flags of a user token', async () => {
    const res = await call(url, { bearer: await token('alice', ['admin:access', 'profiles:read']) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: 'alice', perms: ['admin:access', 'profiles:read'], active: true, superuser: false });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers an inactive user and a superuser as they are, so the console can say why it refuses', async () => {
    expect((await call(url, { bearer: await token('bob', [], { active: false }) })).body).toEqual({ sub: 'bob', perms: [], active: false, superuser: false });
    expect((await call(url, { bearer: await token('root', [], { superuser: true }) })).body).toEqual({ sub: 'root', perms: [], active: true, superuser: true });
  });

  it('refuses a missing, malformed or foreign token with 401 and the standard error body', async () => {
    for (const bearer of [undefined, 'abc.def.ghi']) {
      const res = await call(url, { bearer });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
    }
    const { mintToken } = await import('@flowplane/platform/auth');
    expect((await call(url, { bearer: await mintToken('another-secret-0123456789abcdef0123', { sub: 'mallory', perms: ['admin:access'] }) })).status).toBe(401);
  });

  it('never lends a service token user powers', async () => {
    const res = await call(url, { bearer: await serviceToken('flow-runtime', 'gateway', []) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sub: 'svc:flow-runtime', perms: [], active: true, superuser: false });
  });

  it('is documented in the gateway OpenAPI with bearer security and a 401 answer', async () => {
    const doc = (await call(`${platform.url}/api/v1/openapi.json`)).body;
    const op = doc.paths['/api/v1/auth/me']?.get;
    expect(op).toBeDefined();
    expect(op.summary).toMatch(/caller/);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401']));
  });
});
