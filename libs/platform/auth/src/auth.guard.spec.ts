import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Authenticated, CurrentPrincipal, Internal, Public, RemoteNodeHandler } from './auth.decorators';
import { AuthModule } from './auth.module';
import type { Principal } from './principal';
import { mintNodeStepToken, mintServiceToken, mintToken } from './token-verifier';

const secret = 'guard-spec-secret-0123456789';

@Controller()
class ProbeController {
  @Get('internal/resolve')
  @Internal('internal:profiles:resolve')
  resolve() {
    return { ok: true };
  }

  @Get('internal/any')
  @Internal()
  any() {
    return { ok: true };
  }

  @Get('internal/nodes/lookup')
  @RemoteNodeHandler('crm/lookup')
  lookup(@CurrentPrincipal() p: Principal) {
    return { sub: p.sub };
  }

  @Get('me')
  @Authenticated()
  me(@CurrentPrincipal() p: Principal) {
    return { sub: p.sub };
  }

  @Get('open')
  @Public()
  open(@CurrentPrincipal() p?: Principal) {
    return { sub: p?.sub ?? null };
  }
}

@Module({ imports: [AuthModule.forRoot({ service: 'profiles', jwtSecret: secret })], controllers: [ProbeController] })
class ProbeModule {}

describe('AuthGuard: audience and permissions of internal tokens', () => {
  let app: INestApplication;
  let base: string;
  const get = async (path: string, bearer?: string) => {
    const res = await fetch(`${base}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const step = { runId: 'r1', nodeId: 'n1', stepKey: 'r1:n1:1', nodeType: 'crm/lookup' };

  beforeAll(async () => {
    app = await NestFactory.create(ProbeModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app?.close());

  it('opens an internal route to a service token for this service that carries its permission', async () => {
    const t = await mintServiceToken(secret, { from: 'flow-runtime', to: 'profiles', perms: ['internal:profiles:resolve'] });
    expect(await get('/internal/resolve', t)).toEqual({ status: 200, body: { ok: true } });
  });

  it('refuses a service token without the route permission with 403', async () => {
    const t = await mintServiceToken(secret, { from: 'flow-runtime', to: 'profiles', perms: ['internal:profiles:list'] });
    const res = await get('/internal/resolve', t);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('lacks internal:profiles:resolve');
    // An audience-only route takes any service token for this service.
    expect((await get('/internal/any', t)).status).toBe(200);
  });

  it('refuses a service token for another service with 401, whatever it carries', async () => {
    const t = await mintServiceToken(secret, { from: 'flow-runtime', to: 'deployments', perms: ['internal:profiles:resolve'] });
    expect((await get('/internal/resolve', t)).status).toBe(401);
    expect((await get('/internal/any', t)).status).toBe(401);
    expect((await get('/me', t)).status).toBe(401);
  });

  it('refuses the old all-powerful `internal` token and user tokens, superusers included', async () => {
    expect((await get('/internal/any', await mintToken(secret, { sub: 'svc:flow-runtime', perms: ['internal'] }))).status).toBe(403);
    expect((await get('/internal/resolve', await mintToken(secret, { sub: 'root', superuser: true }))).status).toBe(403);
  });

  it('opens a remote node route only to a step token of that node', async () => {
    expect(await get('/internal/nodes/lookup', await mintNodeStepToken(secret, step, 60))).toEqual({ status: 200, body: { sub: 'run:r1/n1' } });
    expect((await get('/internal/nodes/lookup', await mintNodeStepToken(secret, { ...step, nodeType: 'crm/other' }, 60))).status).toBe(401);
    expect((await get('/internal/nodes/lookup', await mintServiceToken(secret, { from: 'flow-runtime', to: 'profiles' }))).status).toBe(403);
    expect((await get('/internal/nodes/lookup', await mintToken(secret, { sub: 'root', superuser: true }))).status).toBe(403);
  });

  it('gives a step token nothing anywhere else: 401 on internal and user routes, anonymous on public ones', async () => {
    const t = await mintNodeStepToken(secret, step, 60);
    expect((await get('/internal/resolve', t)).status).toBe(401);
    expect((await get('/internal/any', t)).status).toBe(401);
    expect((await get('/me', t)).status).toBe(401);
    expect(await get('/open', t)).toEqual({ status: 200, body: { sub: null } });
  });
});
