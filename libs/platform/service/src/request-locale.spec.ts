import { Controller, Get, Module } from '@nestjs/common';
import { Public } from '@flowplane/platform/auth';
import { currentLocale } from '@flowplane/platform/http';
import type { ServiceDefinition } from './service-definition';
import { type RunningService, startService } from './start-service';

// A probe that only this spec mounts: what a handler of any service reads as the caller's locale.
@Controller('locale-probe')
class LocaleProbeController {
  @Get()
  @Public()
  async probe() {
    await new Promise((r) => setTimeout(r, 1));
    return { locale: currentLocale() };
  }
}

@Module({ controllers: [LocaleProbeController] })
class ProbeModule {}

const probeService: ServiceDefinition = { name: 'probe', title: 'probe', description: 'locale probe', defaultPort: 0, uses: {}, module: () => ProbeModule };
const env = { PORT: '0', AUTH_JWT_SECRET: 'request-locale-spec-secret-0123456789', LOG_LEVEL: 'silent' };

describe('request locale in a service started by the service kit', () => {
  let svc: RunningService;
  let withDefault: RunningService;

  beforeAll(async () => {
    svc = await startService(probeService, { env });
    withDefault = await startService(probeService, { env: { ...env, I18N_DEFAULT_LOCALE: 'en' } });
  });

  afterAll(async () => {
    await svc?.close();
    await withDefault?.close();
  });

  const localeOf = async (s: RunningService, query = '', headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.url}/api/v1/locale-probe${query}`, { headers });
    expect(res.status).toBe(200);
    return ((await res.json()) as { locale: string }).locale;
  };

  it('gives handlers the lang query, else the lang cookie, else the first Accept-Language tag, else the default', async () => {
    const all = { cookie: 'sid=1; lang=de', 'accept-language': 'fr-CA;q=0.9, en' };
    expect(await localeOf(svc, '?lang=uk', all)).toBe('uk');
    expect(await localeOf(svc, '', all)).toBe('de');
    expect(await localeOf(svc, '', { 'accept-language': 'fr-CA;q=0.9, en' })).toBe('fr-CA');
    expect(await localeOf(svc)).toBe('pl');
  });

  it('takes the default from I18N_DEFAULT_LOCALE', async () => {
    expect(await localeOf(withDefault)).toBe('en');
    expect(await localeOf(withDefault, '', { 'accept-language': '*' })).toBe('en');
  });

  it('refuses to boot with a default that is not a locale', async () => {
    await expect(startService(probeService, { env: { ...env, I18N_DEFAULT_LOCALE: 'pl PL' } })).rejects.toThrow(/I18N_DEFAULT_LOCALE/);
  });
});
