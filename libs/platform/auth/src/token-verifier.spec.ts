import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintNodeStepToken, mintServiceToken, mintToken, ServiceTokenProvider, TokenVerifier } from './token-verifier';

const secret = 'unit-test-secret-0123456789';

describe('TokenVerifier', () => {
  it('accepts an HS256 token and reads its claims (active defaults to true)', async () => {
    const v = new TokenVerifier({ jwtSecret: secret });
    const p = await v.verify(await mintToken(secret, { sub: 'alice', perms: ['admin:access'] }));
    expect(p).toEqual({ sub: 'alice', perms: ['admin:access'], active: true, superuser: false, service: false });
  });

  it('remembers a verified token until it expires, never a refused one, and not past its exp', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const v = new TokenVerifier({ jwtSecret: secret });
      const token = await mintToken(secret, { sub: 'carol', ttl: '30s' });
      const first = await v.verify(token);
      expect(await v.verify(token)).toBe(first); // the cached principal, no second signature check
      jest.advanceTimersByTime(31_000);
      await expect(v.verify(token)).rejects.toThrow('token expired');
      const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      await expect(v.verify(forged)).rejects.toThrow();
      await expect(v.verify(forged)).rejects.toThrow();
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers verifyCached only for a token verify accepted, with the same per-use checks, and not past its cache life', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const v = new TokenVerifier({ jwtSecret: secret, service: 'flow-runtime' });
      const own = await mintServiceToken(secret, { from: 'assistant', to: 'flow-runtime', perms: ['internal:runs:start'] });
      expect(v.verifyCached(own)).toBeUndefined();
      const p = await v.verify(own);
      expect(v.verifyCached(own)).toBe(p);
      // A step token is cached like any other, but is still valid only for its node.
      const step = await mintNodeStepToken(secret, { runId: 'r1', nodeId: 'n1', nodeType: 'crm/capture', stepKey: 'k1' }, 600);
      await v.verify(step, { node: 'crm/capture' });
      expect(v.verifyCached(step)).toBeUndefined();
      expect(v.verifyCached(step, { node: 'crm/capture' })).toMatchObject({ node: 'crm/capture' });
      const foreign = await mintServiceToken(secret, { from: 'assistant', to: 'deployments' });
      await expect(v.verify(foreign)).rejects.toThrow('not svc:flow-runtime');
      expect(v.verifyCached(foreign)).toBeUndefined();
      jest.advanceTimersByTime(61_000);
      expect(v.verifyCached(own)).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('reads inactive and superuser claims', async () => {
    const v = new TokenVerifier({ jwtSecret: secret });
    const p = await v.verify(await mintToken(secret, { sub: 'bob', active: false, superuser: true }));
    expect(p.active).toBe(false);
    expect(p.superuser).toBe(true);
  });

  it('rejects a token signed with another secret, an expired token and garbage', async () => {
    const v = new TokenVerifier({ jwtSecret: secret });
    await expect(v.verify(await mintToken('another-secret-0123456789', { sub: 'x' }))).rejects.toThrow('signature is invalid');
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setExpirationTime(Math.floor(Date.now() / 1000) - 10).sign(new TextEncoder().encode(secret));
    await expect(v.verify(expired)).rejects.toThrow('token expired');
    await expect(v.verify('not-a-jwt')).rejects.toThrow('malformed');
  });

  it('recognises service tokens by their audience and keeps only the permissions they were minted with', async () => {
    const v = new TokenVerifier({ jwtSecret: secret, service: 'flow-runtime' });
    const p = await v.verify(await new ServiceTokenProvider('profiles', secret).token('flow-runtime', ['internal:options:read']));
    expect(p).toMatchObject({ sub: 'svc:profiles', service: true, perms: ['internal:options:read'], audience: ['svc:flow-runtime'] });
  });

  it('refuses a service token meant for another service', async () => {
    const v = new TokenVerifier({ jwtSecret: secret, service: 'deployments' });
    const forProfiles = await mintServiceToken(secret, { from: 'flow-runtime', to: 'profiles', perms: ['internal:profiles:resolve'] });
    await expect(v.verify(forProfiles)).rejects.toThrow('service token is for svc:profiles, not svc:deployments');
  });

  it('no longer treats a token with the old all-powerful `internal` perm and no audience as a service', async () => {
    const v = new TokenVerifier({ jwtSecret: secret, service: 'profiles' });
    const legacy = await mintToken(secret, { sub: 'svc:flow-runtime', perms: ['internal'] });
    expect(await v.verify(legacy)).toMatchObject({ service: false });
  });

  it('never gives an internal token superuser powers, and requires it to expire', async () => {
    const v = new TokenVerifier({ jwtSecret: secret, service: 'profiles' });
    expect(await v.verify(await mintToken(secret, { sub: 'svc:x', audience: 'svc:profiles', superuser: true }))).toMatchObject({ service: true, superuser: false });
    const forever = await new SignJWT({ perms: [] }).setProtectedHeader({ alg: 'HS256' }).setSubject('svc:x').setAudience('svc:profiles').sign(new TextEncoder().encode(secret));
    await expect(v.verify(forever)).rejects.toThrow('token claim check failed');
  });

  it('signs internal tokens with the service secret only, when it differs from the user secret', async () => {
    const v = new TokenVerifier({ jwtSecret: secret, serviceSecret: 'service-secret-0123456789', service: 'profiles' });
    await expect(v.verify(await mintServiceToken(secret, { from: 'x', to: 'profiles' }))).rejects.toThrow('signature is invalid');
    expect((await v.verify(await mintServiceToken('service-secret-0123456789', { from: 'x', to: 'profiles' }))).service).toBe(true);
  });

  it('caches one token per (target, perms) pair', async () => {
    const tokens = new ServiceTokenProvider('flow-runtime', secret);
    const a = await tokens.token('profiles', ['internal:profiles:resolve', 'internal:profiles:list']);
    expect(await tokens.token('profiles', ['internal:profiles:list', 'internal:profiles:resolve'])).toBe(a);
    expect(await tokens.token('profiles', ['internal:profiles:list'])).not.toBe(a);
    expect(await tokens.token('deployments', ['internal:profiles:resolve', 'internal:profiles:list'])).not.toBe(a);
  });

  describe('remote node step tokens', () => {
    const step = { runId: 'r1', nodeId: 'lookup', stepKey: 'r1:lookup:1', nodeType: 'crm/lookup' };

    it('identify the run step, carry no permissions and are accepted only for their node type', async () => {
      const v = new TokenVerifier({ jwtSecret: secret, service: 'search' });
      const t = await mintNodeStepToken(secret, step, 60);
      expect(await v.verify(t, { node: 'crm/lookup' })).toMatchObject({ sub: 'run:r1/lookup', node: 'crm/lookup', perms: [], service: false });
      await expect(v.verify(t)).rejects.toThrow('valid only for a step of remote node crm/lookup');
      await expect(v.verify(t, { node: 'svc/search-upsert' })).rejects.toThrow('valid only for a step of remote node crm/lookup');
    });

    it('cannot be stretched into a service token or given permissions', async () => {
      const v = new TokenVerifier({ jwtSecret: secret, service: 'profiles' });
      const both = await mintToken(secret, { sub: 'run:r1/lookup', audience: ['node:crm/lookup', 'svc:profiles'], perms: ['internal:profiles:resolve'] });
      await expect(v.verify(both, { node: 'crm/lookup' })).rejects.toThrow('token is invalid');
      const withPerms = await mintToken(secret, { sub: 'run:r1/lookup', audience: 'node:crm/lookup', perms: ['internal:profiles:resolve'] });
      expect((await v.verify(withPerms, { node: 'crm/lookup' })).perms).toEqual([]);
    });

    it('expire after their short life', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      try {
        const v = new TokenVerifier({ jwtSecret: secret });
        const t = await mintNodeStepToken(secret, step, 90);
        await v.verify(t, { node: 'crm/lookup' });
        jest.advanceTimersByTime(91_000);
        await expect(v.verify(t, { node: 'crm/lookup' })).rejects.toThrow('token expired');
      } finally {
        jest.useRealTimers();
      }
    });
  });

  describe('with a JWKS endpoint', () => {
    let server: Server;
    let url: string;
    let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

    beforeAll(async () => {
      const pair = await generateKeyPair('RS256');
      privateKey = pair.privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      server = createServer((_, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    });
    afterAll(() => new Promise((r) => server.close(r)));

    const sign = (claims: Record<string, unknown>, iss = 'https://idp', aud = 'flowplane') =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject('carol').setIssuer(iss).setAudience(aud).setExpirationTime('5m').sign(privateKey);

    it('verifies RS256 tokens with issuer and audience', async () => {
      const v = new TokenVerifier({ jwksUrl: url, issuer: 'https://idp', audience: 'flowplane', serviceSecret: secret });
      expect((await v.verify(await sign({ perms: ['profiles:read'] }))).perms).toEqual(['profiles:read']);
      await expect(v.verify(await sign({}, 'https://evil'))).rejects.toThrow('claim check failed');
      await expect(v.verify(await sign({}, 'https://idp', 'other'))).rejects.toThrow('claim check failed');
    });

    it('accepts HS256 only for service tokens when a JWKS is configured', async () => {
      const v = new TokenVerifier({ jwksUrl: url, serviceSecret: secret });
      await expect(v.verify(await mintToken(secret, { sub: 'mallory', perms: ['admin'] }))).rejects.toThrow('service tokens only');
      expect((await v.verify(await new ServiceTokenProvider('hub', secret).token('profiles'))).service).toBe(true);
    });
  });
});
