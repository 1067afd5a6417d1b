import { Body, Controller, HttpCode, Module, Post, Res } from '@nestjs/common';
import { IsString } from 'class-validator';
import type { ServerResponse } from 'node:http';
import { Public } from '@flowplane/platform/auth';
import { currentLocale, currentRequestId } from '@flowplane/platform/http';
import { jsonRouteFastPath } from './json-route-fast-path';
import type { ServiceDefinition } from './service-definition';
import { type RunningService, startService } from './start-service';

class EchoDto {
  @IsString()
  text!: string;
}

/** What a handler reads from the request's async scope after an await, written by either path. */
async function answer(res: ServerResponse, dto: EchoDto, path: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 1));
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ text: dto.text, requestId: currentRequestId(), locale: currentLocale(), path }));
}

@Controller('echo-probe')
class EchoProbeController {
  @Post()
  @HttpCode(200)
  @Public()
  async echo(@Body() dto: EchoDto, @Res() res: ServerResponse): Promise<void> {
    await answer(res, dto, 'nest');
  }
}

@Module({ controllers: [EchoProbeController] })
class ProbeModule {}

const probeService: ServiceDefinition = {
  name: 'probe',
  title: 'probe',
  description: 'fast path probe',
  defaultPort: 0,
  uses: {},
  module: () => ProbeModule,
  interceptRequest: (app, ctx) =>
    jsonRouteFastPath(app, ctx, {
      path: '/api/v1/echo-probe',
      controller: EchoProbeController,
      handler: EchoProbeController.prototype.echo,
      dto: EchoDto,
      plainlyValid: (b) => typeof (b as EchoDto | null)?.text === 'string' && Object.keys(b as object).length === 1,
      handle: ({ dto, res }) => answer(res, dto, 'fast'),
    }),
};

describe('jsonRouteFastPath', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService(probeService, { env: { PORT: '0', AUTH_JWT_SECRET: 'json-route-fast-path-spec-0123456789', LOG_LEVEL: 'silent' } });
  });
  afterAll(() => svc?.close());

  const post = (query: string, body: string) =>
    fetch(`${svc.url}/api/v1/echo-probe${query}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'probe-1', 'accept-language': 'de' }, body }).then(async (r) => ({ status: r.status, requestId: r.headers.get('x-request-id'), body: (await r.json()) as Record<string, unknown> }));

  it('gives the handler the request id and locale scope the Nest route has, after it read the body', async () => {
    const fast = await post('', JSON.stringify({ text: 'hi' }));
    // A query string takes the Nest route.
    const nest = await post('?via=nest', JSON.stringify({ text: 'hi' }));
    expect(fast).toEqual({ status: 200, requestId: 'probe-1', body: { text: 'hi', requestId: 'probe-1', locale: 'de', path: 'fast' } });
    expect(nest).toEqual({ ...fast, body: { ...fast.body, path: 'nest' } });
  });

  it('validates through the pipe what its own check does not pass, with the Nest route error body', async () => {
    const fast = await post('', JSON.stringify({ text: 1 }));
    const nest = await post('?via=nest', JSON.stringify({ text: 1 }));
    expect(fast.status).toBe(400);
    expect(fast).toEqual(nest);
    expect(fast.body).toMatchObject({ code: 'VALIDATION_FAILED', requestId: 'probe-1', details: [{ field: 'text', problems: [expect.any(String)] }] });
  });
});
