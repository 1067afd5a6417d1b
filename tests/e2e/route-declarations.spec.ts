import { Controller, Get, Module } from '@nestjs/common';
import { listRoutes, Public } from '@flowplane/platform/auth';
import { type RunningService, type ServiceDefinition, startService } from '@flowplane/platform/service';
import { gatewayDefinition } from '@flowplane/gateway';
import { BACKEND_SERVICES } from '../../apps/standalone/src/standalone';
import { call, TEST_SECRET } from '../support/http';

const env = { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', STORE: 'memory' };

describe('every route declares who may call it', () => {
  for (const def of [gatewayDefinition, ...BACKEND_SERVICES]) {
    it(`${def.name}: no route lacks an access declaration`, async () => {
      const svc = await startService(def, { env });
      try {
        const routes = listRoutes(svc.app);
        expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics', '/internal/info']));
        expect(routes.filter((r) => !r.declared)).toEqual([]);
      } finally {
        await svc.close();
      }
    });
  }
});

@Controller('forgotten')
class ForgottenController {
  @Get()
  open() {
    return { leaked: true };
  }

  @Get('declared')
  @Public()
  declared() {
    return { ok: true };
  }
}
@Module({ controllers: [ForgottenController] })
class ForgottenModule {}

describe('default deny', () => {
  let svc: RunningService;
  const def: ServiceDefinition = { name: 'forgetful', title: 't', description: 'd', defaultPort: 0, uses: {}, module: () => ForgottenModule };

  beforeAll(async () => {
    svc = await startService(def, { env });
  });
  afterAll(() => svc.close());

  it('the walk finds a route without a declaration', () => {
    expect(listRoutes(svc.app).filter((r) => !r.declared)).toEqual([expect.objectContaining({ controller: 'ForgottenController', handler: 'open', method: 'GET' })]);
  });

  it('denies the undeclared route and serves the declared one', async () => {
    const denied = await call(`${svc.url}/api/v1/forgotten`);
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain('leaked');
    expect((await call(`${svc.url}/api/v1/forgotten/declared`)).status).toBe(200);
  });
});
