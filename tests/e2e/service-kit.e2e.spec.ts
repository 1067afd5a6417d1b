import { Body, Controller, Get, Headers, Module, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, Min, ValidateNested } from 'class-validator';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CurrentPrincipal, Internal, type Principal, Public, TokenVerifier } from '@flowplane/platform/auth';
import { type RunningService, ServiceClients, type ServiceDefinition, startService } from '@flowplane/platform/service';
import { call, TEST_SECRET } from '../support/http';

const root = path.resolve(__dirname, '..', '..');

class Limits {
  @IsInt() @Min(1) @Max(10)
  max!: number;
}

class CreateThingDto {
  @IsString()
  name!: string;

  @ValidateNested() @Type(() => Limits)
  limits!: Limits;
}

@Controller('things')
class ThingsController {
  @Post()
  @Public()
  create(@Body() dto: CreateThingDto) {
    return { created: dto.name, max: dto.limits.max, isDto: dto instanceof CreateThingDto };
  }

  @Get('slow')
  @Public()
  async slow(@Query('ms') ms = '300') {
    await new Promise((r) => setTimeout(r, Number(ms)));
    return { finished: true };
  }

  @Get('boom')
  @Public()
  boom(): never {
    throw new Error('secret internals: password=hunter2 at /srv/app.js:12');
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

const def: ServiceDefinition = { name: 'things', title: 'Things', description: 'test service', defaultPort: 0, uses: {}, module: () => ThingsModule };
const env = { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' };

describe('service kit', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(def, { env });
  });
  afterAll(() => svc.close());

  it('validates DTOs, listing every failing field, and rejects unknown fields', async () => {
    const res = await call(`${svc.url}/api/v1/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 7, limits: { max: 50 }, extra: true }) });
    expect(res.status).toBe(400);
    expect(res.body.statusCode).toBe(400);
    const fields = res.body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['extra', 'limits.max', 'name']);
    expect(res.body.details.find((d: { field: string }) => d.field === 'extra').problems).toEqual(['property extra should not exist']);
  });

  it('transforms a valid body into the DTO class', async () => {
    const res = await call(`${svc.url}/api/v1/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'a', limits: { max: 3 } }) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ created: 'a', max: 3, isDto: true });
  });

  it('answers an unexpected error with 500, an errorId and no internals', async () => {
    const res = await call(`${svc.url}/api/v1/things/boom`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'INTERNAL_ERROR', message: 'internal error', errorId: expect.stringMatching(/^[0-9a-f-]{36}$/), requestId: res.headers.get('x-request-id') });
    expect(res.text).not.toContain('hunter2');
  });

  it('serves its OpenAPI document with the DTO schema', async () => {
    const res = await call(`${svc.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.paths['/api/v1/things'].post.operationId).toBe('things_Things_create');
  });
});

@Controller('internal/echo')
class EchoController {
  @Get()
  @Internal()
  echo(@Headers('x-request-id') rid: string, @CurrentPrincipal() who: Principal) {
    return { rid, sub: who.sub };
  }
}
@Module({ controllers: [EchoController] })
class EchoModule {}

@Controller('relay')
class RelayController {
  constructor(private readonly clients: ServiceClients) {}

  @Get()
  @Public()
  relay() {
    return this.clients.for('profiles', { retries: 0, timeoutMs: 1000 }).get('/internal/echo');
  }
}
@Module({ controllers: [RelayController] })
class RelayModule {}

describe('calls between services', () => {
  const serviceUrls: Record<string, string> = {};
  let callee: RunningService;
  let caller: RunningService;

  beforeAll(async () => {
    callee = await startService({ ...def, name: 'profiles', module: () => EchoModule }, { env });
    serviceUrls.profiles = callee.url;
    caller = await startService({ ...def, name: 'things', module: () => RelayModule }, { env, serviceUrls });
  });
  afterAll(async () => {
    await caller.close();
    await callee.close();
  });

  it('carry a service token and the caller request id to /internal routes', async () => {
    const res = await call(`${caller.url}/api/v1/relay`, { headers: { 'x-request-id': 'trace-77' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ rid: 'trace-77', sub: 'svc:things' });
  });

  it('answer 503 when the called service is down', async () => {
    await callee.close();
    const res = await call(`${caller.url}/api/v1/relay`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE', errorId: expect.any(String) });
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then refuses new connections', async () => {
    const svc = await startService(def, { env });
    const inFlight = call(`${svc.url}/api/v1/things/slow?ms=400`);
    await new Promise((r) => setTimeout(r, 100));
    const closed = svc.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ finished: true });
    await closed;
    await expect(fetch(`${svc.url}/healthz`)).rejects.toThrow();
  });
});

describe('service processes', () => {
  const node = process.execPath;

  it('exit non-zero at boot listing every invalid variable', () => {
    const res = spawnSync(node, [path.join(root, 'dist/apps/profiles/src/main.js')], {
      env: { PATH: process.env.PATH, PORT: 'http', STORE: 'postgres', BUS: 'kafka', HTTP_BODY_LIMIT: 'lots', AUTH_JWT_SECRET: 'short' },
      encoding: 'utf8',
      timeout: 20000,
    });
    expect(res.status).toBe(1);
    for (const v of ['PORT', 'STORE', 'HTTP_BODY_LIMIT', 'KAFKA_BROKERS', 'AUTH_JWT_SECRET']) expect(res.stderr).toContain(`- ${v}:`);
    expect(res.stderr).not.toContain('short');
    expect(res.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('npm run token mints a token the services accept', async () => {
    const res = spawnSync(node, [path.join(root, 'dist/apps/cli/src/token.js'), '--sub', 'alice', '--perm', 'admin:access', '--perm', 'profiles:read', '--inactive', '--ttl', '5m'], {
      env: { PATH: process.env.PATH, AUTH_JWT_SECRET: TEST_SECRET },
      encoding: 'utf8',
    });
    expect(res.status).toBe(0);
    const principal = await new TokenVerifier({ jwtSecret: TEST_SECRET }).verify(res.stdout.trim());
    expect(principal).toMatchObject({ sub: 'alice', perms: ['admin:access', 'profiles:read'], active: false, superuser: false });
  });

  it('npm run token without --sub explains its usage', () => {
    const res = spawnSync(node, [path.join(root, 'dist/apps/cli/src/token.js')], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--sub is required');
    expect(res.stderr).toContain('Usage: npm run token');
  });
});
