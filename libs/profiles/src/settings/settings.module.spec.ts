import { Logger, Module } from '@nestjs/common';
import { type CloudEvent, INTERNAL_PERMS, type ModuleSettings, PublicSettingsReader, ServiceClient, type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import { mintToken, ServiceTokenProvider } from '@flowplane/platform/auth';
import { createEventBus, type EventBus } from '@flowplane/platform/bus';
import { type RunningService, type ServiceDefinition, startService } from '@flowplane/platform/service';
import { SettingsReader } from './settings-reader';
import { SettingsModule } from './settings.module';

const SECRET = 'settings-module-spec-secret-0123456789';
const env = { PORT: '0', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'silent', STORE: 'memory', BUS: 'memory' };

const declarations: ModuleSettings[] = [
  {
    module: 'shop',
    label: 'Shop',
    fields: [
      { key: 'title', type: 'string', label: 'Title', localized: true, public: true, default: 'Shop' },
      { key: 'phone', type: 'string', label: 'Phone', public: true, env_var: 'SHOP_PHONE' },
      { key: 'margin', type: 'number', label: 'Margin', default: 0.2 },
      { key: 'api_key', type: 'secret', label: 'API key', sensitive: true, public: true },
    ],
  },
];

function definition(decls: readonly ModuleSettings[]): ServiceDefinition {
  @Module({ imports: [SettingsModule.withDeclarations(decls)] })
  class SettingsOnlyModule {}
  return { name: 'profiles', title: 't', description: 'd', defaultPort: 0, uses: { bus: true, store: true }, module: () => SettingsOnlyModule };
}

async function json(url: string, init: RequestInit & { bearer?: string } = {}): Promise<{ status: number; body: any }> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set('authorization', `Bearer ${init.bearer}`);
  if (init.body) headers.set('content-type', 'application/json');
  const res = await fetch(url, { ...init, headers });
  return { status: res.status, body: await res.json() };
}

describe('SettingsModule boot', () => {
  it('refuses to start when a field is both sensitive and localized, naming the field', async () => {
    const bad: ModuleSettings[] = [{ module: 'mail', fields: [{ key: 'signature', type: 'string', label: 'Signature', sensitive: true, localized: true }] }];
    // Nest reports the failure (and its unfinished module loading) through its default console
    // logger, before a service logger exists; the services booted below install their own.
    Logger.overrideLogger(false);
    await expect(startService(definition(bad), { env })).rejects.toThrow(/mail\/signature: a field cannot be both sensitive and localized/);
  });
});

describe('SettingsModule in a running service', () => {
  let svc: RunningService;
  let bus: EventBus;
  let admin: string;

  beforeAll(async () => {
    bus = createEventBus({ bus: 'memory' });
    svc = await startService(definition(declarations), { env: { ...env, SHOP_PHONE: '+48 100 200 300' }, bus });
    admin = await mintToken(SECRET, { sub: 'alice', perms: ['admin:access'] });
  });
  afterAll(async () => {
    await svc?.close();
    await bus?.close();
  });

  it('provides SettingsReader: effective value and source, localized text by locale', async () => {
    const reader = svc.app.get(SettingsReader);
    await expect(reader.effective('shop', 'phone')).resolves.toEqual({ value: '+48 100 200 300', source: 'env' });
    await expect(reader.effective('shop', 'margin')).resolves.toEqual({ value: 0.2, source: 'default' });
    await expect(reader.effective('shop', 'api_key')).resolves.toEqual({ value: undefined, source: 'unset' });
    await expect(reader.effective('nope', 'x')).resolves.toEqual({ value: undefined, source: 'unset' });

    const put = await json(`${svc.url}/api/v1/admin/settings/shop`, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { title: { pl: 'Sklep' }, margin: '0.35', api_key: 'k-123' } }) });
    expect(put.status).toBe(200);
    await expect(reader.effective('shop', 'title', 'pl')).resolves.toEqual({ value: 'Sklep', source: 'stored' });
    // The chain falls back to the source locale, whose text is still the default.
    await expect(reader.effective('shop', 'title', 'de')).resolves.toEqual({ value: 'Shop', source: 'default' });
    await expect(reader.effective('shop', 'margin')).resolves.toEqual({ value: 0.35, source: 'stored' });
    await expect(reader.effective('shop', 'api_key')).resolves.toEqual({ value: 'k-123', source: 'stored' });
  });

  it('serves the public snapshot and unmasked module values to service tokens only', async () => {
    const svcToken = await new ServiceTokenProvider('i18n', SECRET).token('profiles', [INTERNAL_PERMS.settingsPublic, INTERNAL_PERMS.settingsRead]);
    const snapshot = await json(`${svc.url}/internal/public-settings`, { bearer: svcToken });
    expect(snapshot.status).toBe(200);
    // Sensitive fields never appear, even when declared public; private ones neither.
    expect(snapshot.body).toEqual({
      sourceLocale: 'en',
      settings: { shop: { title: { localized: true, value: { en: 'Shop', pl: 'Sklep' } }, phone: { localized: false, value: '+48 100 200 300' } } },
    });
    const values = await json(`${svc.url}/internal/settings/shop`, { bearer: svcToken });
    expect(values.body).toMatchObject({ module: 'shop', values: { api_key: 'k-123', margin: 0.35 }, sources: { api_key: 'stored', phone: 'env' } });
    expect((await json(`${svc.url}/internal/settings/nope`, { bearer: svcToken })).status).toBe(404);
    expect((await json(`${svc.url}/internal/public-settings`, { bearer: admin })).status).toBe(403);
  });

  it('feeds a PublicSettingsReader that drops its cache when settings.updated arrives', async () => {
    const client = new ServiceClient({ service: 'profiles', baseUrl: svc.url, tokenProvider: (target, perms) => new ServiceTokenProvider('i18n', SECRET).token(target, perms) });
    const reader = new PublicSettingsReader(client, { ttlMs: 60_000, consumer: 'settings-module-spec' });
    const sub = await reader.listen(bus);
    try {
      await expect(reader.get('shop', 'title', 'pl')).resolves.toBe('Sklep');
      await expect(reader.get('shop', 'api_key')).resolves.toBeUndefined();
      await json(`${svc.url}/api/v1/admin/settings/shop`, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { title: { pl: 'Sklep internetowy' } } }) });
      await waitFor(async () => (await reader.get('shop', 'title', 'pl')) === 'Sklep internetowy');
    } finally {
      await sub.stop();
    }
  });

  it('keeps both of two concurrent per-locale writes to one field', async () => {
    const url = `${svc.url}/api/v1/admin/settings/shop`;
    const writes = ['de', 'fr', 'it', 'es'].map((locale) => json(url, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { title: { [locale]: `title-${locale}` } } }) }));
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const read = await json(url, { bearer: admin });
    expect(read.body.fields.find((f: any) => f.key === 'title').value).toMatchObject({ de: 'title-de', fr: 'title-fr', it: 'title-it', es: 'title-es' });
  });

  it('announces only changed keys, once per effective write, without values', async () => {
    const events: Array<CloudEvent<SettingsUpdatedPayload>> = [];
    const sub = await bus.subscribe<SettingsUpdatedPayload>([Topics.SettingsUpdated], { groupId: 'settings-module-spec-events' }, async (e) => void events.push(e));
    try {
      const url = `${svc.url}/api/v1/admin/settings/shop`;
      await json(url, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { api_key: 'k-456', margin: 0.35 } }) });
      // Same values again: nothing stored, nothing announced.
      await json(url, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { api_key: '••••••••', margin: 0.35 } }) });
      await json(url, { method: 'PUT', bearer: admin, body: JSON.stringify({ values: { phone: '+1 555' } }) });
      await waitFor(async () => events.length >= 2);
      await new Promise((r) => setTimeout(r, 100));
      expect(events.map((e) => e.data)).toEqual([
        { module: 'shop', keys: ['api_key'] },
        { module: 'shop', keys: ['phone'] },
      ]);
      expect(events[0]).toMatchObject({ source: '/profiles', entitytype: 'settings', action: 'updated' });
      expect(JSON.stringify(events)).not.toContain('k-456');
    } finally {
      await sub.stop();
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
