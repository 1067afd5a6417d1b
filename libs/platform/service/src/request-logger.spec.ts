import { Controller, Get, Module, Req } from '@nestjs/common';
import { Public } from '@flowplane/platform/auth';
import type { ServiceDefinition } from './service-definition';
import { type RunningService, startService } from './start-service';

// A probe that only this spec mounts: whether the request got pino-http's per-request logger.
@Controller('logger-probe')
class LoggerProbeController {
  @Get()
  @Public()
  probe(@Req() req: { log?: unknown; id?: string }) {
    return { perRequestLogger: req.log !== undefined, id: req.id };
  }
}

@Module({ controllers: [LoggerProbeController] })
class ProbeModule {}

const probeService: ServiceDefinition = { name: 'probe', title: 'probe', description: 'logger probe', defaultPort: 0, uses: {}, module: () => ProbeModule };
const env = { PORT: '0', AUTH_JWT_SECRET: 'request-logger-spec-secret-0123456789' };

describe('per-request logger of the service kit', () => {
  let silent: RunningService;
  let warn: RunningService;

  beforeAll(async () => {
    silent = await startService(probeService, { env: { ...env, LOG_LEVEL: 'silent' } });
    warn = await startService(probeService, { env: { ...env, LOG_LEVEL: 'warn' } });
  });

  afterAll(async () => {
    await silent?.close();
    await warn?.close();
  });

  const probe = async (s: RunningService) => {
    const res = await fetch(`${s.url}/api/v1/logger-probe`, { headers: { 'x-request-id': 'probe-42' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('probe-42');
    return (await res.json()) as { perRequestLogger: boolean; id: string };
  };

  it('is not built when LOG_LEVEL=silent, where nothing it logs could be written; the request id stays', async () => {
    expect(await probe(silent)).toEqual({ perRequestLogger: false, id: 'probe-42' });
  });

  it('is built at any other level, so warnings and 5xx access lines carry the request id', async () => {
    expect(await probe(warn)).toEqual({ perRequestLogger: true, id: 'probe-42' });
  });
});
