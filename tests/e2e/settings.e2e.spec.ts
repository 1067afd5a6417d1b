import SwaggerParser from '@apidevtools/swagger-parser';
import { rmSync } from 'node:fs';
import { type CloudEvent, INTERNAL_PERMS, MASK_TOKEN, PublicSettingsReader, ServiceClient, type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import type { Subscription } from '@flowplane/platform/bus';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, tempDir, TEST_SECRET, token } from '../support/http';

const ENV_SECRET = 'sk-env-secret-value';

describe('module settings through the gateway', () => {
  let platform: Standalone;
  let dataDir: string;
  let url: string;
  let admin: string;
  let profilesUrl: string;
  let events: Array<CloudEvent<SettingsUpdatedPayload>>;
  let sub: Subscription;
  const serviceToken = new ServiceTokenProvider('i18n', TEST_SECRET);

  beforeAll(async () => {
    dataDir = tempDir('settings');
    platform = await startStandalone({
      env: {
        ...process.env,
        PORT: '0',
        STORE: 'memory',
        DATA_DIR: dataDir,
        AUTH_JWT_SECRET: TEST_SECRET,
        GATEWAY_RATE_LIMIT: '0',
        LOG_LEVEL: 'silent',
        I18N_SOURCE_LOCALE: 'en',
        SITE_SUPPORT_EMAIL: 'help@e2e.test',
        LLM_API_KEY: ENV_SECRET,
        LLM_DEFAULT_PROVIDER: '',
      },
    });
    url = platform.url;
    profilesUrl = platform.services.find((s) => s.name === 'profiles')!.url;
    admin = await token('alice', ['admin:access']);
    events = [];
    sub = await platform.bus.subscribe<SettingsUpdatedPayload>([Topics.SettingsUpdated], { groupId: 'settings-e2e-observer' }, async (e) => void events.push(e));
  });
  afterAll(async () => {
    await sub?.stop();
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const put = (module: string, values: unknown, bearer: string = admin) =>
    call(`${url}/api/v1/admin/settings/${module}`, { method: 'PUT', bearer, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ values }) });
  const adminRead = (module: string, bearer: string = admin) => call(`${url}/api/v1/admin/settings/${module}`, { bearer });
  const field = (body: any, key: string) => body.fields.find((f: any) => f.key === key);
  const internalValues = async (module: string) => (await call(`${profilesUrl}/internal/settings/${module}`, { bearer: await serviceToken.token('profiles', [INTERNAL_PERMS.settingsRead]) })).body;

  describe('public reads', () => {
    it('reads a public field without a token (env value)', async () => {
      const res = await call(`${url}/api/v1/settings/site/support_email`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ module: 'site', key: 'support_email', value: 'help@e2e.test' });
    });

    it('answers the same 404 for private, sensitive and unknown settings', async () => {
      for (const path of ['llm/default_provider', 'llm/api_key', 'site/nope', 'nope/name']) {
        const res = await call(`${url}/api/v1/settings/${path}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: `no public setting ${path}`, code: 'SETTING_NOT_FOUND', requestId: expect.any(String) });
        expect(res.text).not.toContain(ENV_SECRET);
      }
    });

    it('resolves a localized field by the chain: requested locale, its base, the source locale', async () => {
      expect((await put('site', { name: { en: 'Acme', pl: 'Akme' } })).status).toBe(200);
      const read = async (query: string) => (await call(`${url}/api/v1/settings/site/name${query}`)).body;
      expect(await read('?locale=pl')).toEqual({ module: 'site', key: 'name', value: 'Akme', locale: 'pl' });
      expect(await read('?locale=pl-PL')).toMatchObject({ value: 'Akme', locale: 'pl' });
      expect(await read('?lang=pl')).toMatchObject({ value: 'Akme' });
      expect(await read('?locale=de')).toMatchObject({ value: 'Acme', locale: 'en' });
      // An explicit empty locale is the source language.
      expect(await read('?locale=')).toMatchObject({ value: 'Acme', locale: 'en' });
      const bad = await call(`${url}/api/v1/settings/site/name?locale=not.a.locale`);
      expect(bad.status).toBe(400);
      expect(bad.body.details).toEqual([{ field: 'locale', problems: [expect.stringContaining('locale')] }]);
      // Clearing the source-locale override brings back the declared default for readers without pl.
      await put('site', { name: { en: '' } });
      expect(await read('?locale=de')).toMatchObject({ value: 'Flowplane', locale: 'en' });
      await put('site', { name: '' });
    });

    it('follows the request locale like every public read: lang query, lang cookie, Accept-Language, then the default locale', async () => {
      expect((await put('site', { name: { en: 'Acme', pl: 'Akme', de: 'Akme GmbH' } })).status).toBe(200);
      const read = (headers: Record<string, string> = {}, query = '') => call(`${url}/api/v1/settings/site/name${query}`, { headers });
      const header = await read({ 'accept-language': 'pl-PL,pl;q=0.9,en;q=0.5' });
      expect(header.body).toEqual({ module: 'site', key: 'name', value: 'Akme', locale: 'pl' });
      expect(header.headers.get('vary')).toMatch(/Accept-Language/i);
      expect(header.headers.get('vary')).toMatch(/Cookie/i);
      expect((await read({ cookie: 'lang=pl' })).body).toMatchObject({ value: 'Akme', locale: 'pl' });
      // Most specific first: the cookie beats the header, the query beats the cookie, `locale` beats all.
      expect((await read({ cookie: 'lang=de', 'accept-language': 'pl' })).body).toMatchObject({ value: 'Akme GmbH', locale: 'de' });
      expect((await read({ cookie: 'lang=de' }, '?lang=pl')).body).toMatchObject({ value: 'Akme', locale: 'pl' });
      expect((await read({ 'accept-language': 'de' }, '?locale=en')).body).toMatchObject({ value: 'Acme', locale: 'en' });
      // No locale anywhere: the configured default locale (pl unless I18N_DEFAULT_LOCALE says otherwise).
      expect((await read()).body).toMatchObject({ value: 'Akme', locale: 'pl' });
      await put('site', { name: '' });
    });
  });

  describe('admin reads', () => {
    it('masks sensitive values, says which are set, and shows declarations and sources', async () => {
      const res = await adminRead('llm');
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(ENV_SECRET);
      expect(res.body).toMatchObject({ module: 'llm', label: 'Language models', sourceLocale: 'en', secretsSet: ['api_key'] });
      expect(field(res.body, 'api_key')).toMatchObject({ value: MASK_TOKEN, source: 'env', sensitive: true, env_var: 'LLM_API_KEY', type: 'string', label: 'API key' });
      // An empty env var counts as unset: the default applies.
      expect(field(res.body, 'default_provider')).toMatchObject({ value: 'local', source: 'default', default: 'local' });
      expect(field(res.body, 'default_model')).toMatchObject({ value: null, source: 'unset' });
    });

    it('shows localized values as an object map locale to text, never a list', async () => {
      await put('site', { name: { pl: 'Akme' } });
      const name = field((await adminRead('site')).body, 'name');
      expect(name).toMatchObject({ localized: true, public: true, value: { en: 'Flowplane', pl: 'Akme' }, localeSources: { en: 'default', pl: 'stored' }, source: 'stored' });
      expect(Array.isArray(name.value)).toBe(false);
      await put('site', { name: '' });
    });

    it('lists the modules that declare settings', async () => {
      const res = await call(`${url}/api/v1/admin/settings`, { bearer: admin });
      expect(res.status).toBe(200);
      expect(res.body.modules.map((m: any) => m.module)).toEqual(expect.arrayContaining(['llm', 'site', 'ai']));
      expect(res.body.modules.find((m: any) => m.module === 'site').keys).toEqual(['name', 'support_email', 'base_url']);
    });

    it('answers 404 for an unknown module, on read and write', async () => {
      expect((await adminRead('nope')).status).toBe(404);
      const write = await put('nope', { x: 1 });
      expect(write.status).toBe(404);
      expect(write.body).toMatchObject({ code: 'SETTINGS_MODULE_NOT_FOUND', message: 'no settings module nope' });
    });
  });

  describe('admin writes', () => {
    it('refuses invalid values with 400 listing every failing field, and stores nothing', async () => {
      const res = await put('site', { support_email: 42, unknown_key: 'x', name: ['Acme'] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'SETTINGS_INVALID' });
      expect(res.body.details).toEqual([
        { field: 'values.support_email', problems: ['must be a string'] },
        { field: 'values.unknown_key', problems: ['is not a setting of module site'] },
        { field: 'values.name', problems: ['must be a string or an object mapping locale to string'] },
      ]);
      expect(field((await adminRead('site')).body, 'support_email')).toMatchObject({ value: 'help@e2e.test', source: 'env' });
    });

    it('refuses search settings its environment check would refuse (prefix, limit) with 400, storing nothing', async () => {
      const before = (await adminRead('search')).body;
      const res = await put('search', { index_prefix: 'bad.prefix!', default_limit: 0, default_distance: 'manhattan' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'SETTINGS_INVALID' });
      expect(res.body.details).toEqual([
        { field: 'values.index_prefix', problems: ['must be up to 40 letters, digits, "_" or "-"'] },
        { field: 'values.default_limit', problems: ['must be at least 1'] },
        { field: 'values.default_distance', problems: ['must be one of: cosine, dot, euclid'] },
      ]);
      expect((await put('search', { default_limit: 2.5 })).body.details).toEqual([{ field: 'values.default_limit', problems: ['must be a whole number'] }]);
      expect((await put('search', { default_limit: 10_001 })).body.details).toEqual([{ field: 'values.default_limit', problems: ['must be at most 100'] }]);
      // Above the query limit: refused, not stored and clamped to 100 by the search service.
      const over = await put('search', { default_limit: 101 });
      expect([over.status, over.body.details]).toEqual([400, [{ field: 'values.default_limit', problems: ['must be at most 100'] }]]);
      // Not an embedder the search service registers: every text query would fail with EMBEDDING_FAILED.
      const unknown = await put('search', { embedding_provider: 'no-such-embedder' });
      expect([unknown.status, unknown.body.details]).toEqual([400, [{ field: 'values.embedding_provider', problems: ['must be one of: local-hash, openai-compatible, openai, ollama'] }]]);
      expect((await put('search', { index_prefix: 'p'.repeat(41) })).status).toBe(400);
      expect((await adminRead('search')).body).toEqual(before);
      const ok = await put('search', { index_prefix: 'tenant_a-', default_limit: '25' });
      expect(ok.status).toBe(200);
      expect(field(ok.body, 'index_prefix')).toMatchObject({ value: 'tenant_a-', source: 'stored' });
      expect(field(ok.body, 'default_limit')).toMatchObject({ value: 25, source: 'stored' });
      expect((await put('search', { index_prefix: '', default_limit: null })).status).toBe(200);
    });

    it('takes the values under `values`: a bare map or extra fields are refused', async () => {
      const bare = await call(`${url}/api/v1/admin/settings/site`, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ support_email: 'x@y.z' }) });
      expect(bare.status).toBe(400);
      expect(bare.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'values' }), expect.objectContaining({ field: 'support_email' })]));
    });

    it('keeps a stored secret when the mask comes back; an empty string clears it so the env var applies', async () => {
      const saved = await put('llm', { api_key: 'sk-stored-123', default_model: 'gpt-x' });
      expect(saved.status).toBe(200);
      expect(saved.text).not.toContain('sk-stored-123');
      expect(field(saved.body, 'api_key')).toMatchObject({ value: MASK_TOKEN, source: 'stored' });

      const echoed = await put('llm', { api_key: MASK_TOKEN, default_model: 'gpt-y' });
      expect(field(echoed.body, 'api_key')).toMatchObject({ value: MASK_TOKEN, source: 'stored' });
      expect((await internalValues('llm')).values).toMatchObject({ api_key: 'sk-stored-123', default_model: 'gpt-y' });

      const cleared = await put('llm', { api_key: '', default_model: '' });
      expect(field(cleared.body, 'api_key')).toMatchObject({ value: MASK_TOKEN, source: 'env' });
      expect(field(cleared.body, 'default_model')).toMatchObject({ value: null, source: 'unset' });
      expect((await internalValues('llm')).values).toMatchObject({ api_key: ENV_SECRET, default_model: null });
    });

    it('an empty string clears a stored value so the default applies again', async () => {
      await put('llm', { default_provider: 'openai' });
      expect(field((await adminRead('llm')).body, 'default_provider')).toMatchObject({ value: 'openai', source: 'stored' });
      await put('llm', { default_provider: '' });
      expect(field((await adminRead('llm')).body, 'default_provider')).toMatchObject({ value: 'local', source: 'default' });
    });

    it('removes one locale override with an empty value; a plain string sets the source-locale text', async () => {
      await put('site', { name: { pl: 'Akme', de: 'Akme GmbH' } });
      const removed = await put('site', { name: { pl: '' } });
      expect(field(removed.body, 'name').value).toEqual({ en: 'Flowplane', de: 'Akme GmbH' });
      expect((await call(`${url}/api/v1/settings/site/name?locale=pl`)).body).toMatchObject({ value: 'Flowplane', locale: 'en' });

      const plain = await put('site', { name: 'Acme' });
      expect(field(plain.body, 'name')).toMatchObject({ value: { en: 'Acme', de: 'Akme GmbH' }, localeSources: { en: 'stored', de: 'stored' } });
      await put('site', { name: '' });
      expect(field((await adminRead('site')).body, 'name')).toMatchObject({ value: { en: 'Flowplane' }, source: 'default' });
    });

    it('publishes settings.updated with the module and changed keys, never values', async () => {
      events.length = 0;
      await put('llm', { api_key: 'sk-event-secret', default_model: 'm-1' });
      await put('llm', { api_key: MASK_TOKEN, default_model: 'm-1' }); // no change: no event
      await put('site', { support_email: 'team@e2e.test' });
      await waitFor(() => events.length >= 2);
      await new Promise((r) => setTimeout(r, 200));
      expect(events.map((e) => e.data)).toEqual([
        { module: 'llm', keys: ['default_model', 'api_key'] },
        { module: 'site', keys: ['support_email'] },
      ]);
      expect(events.every((e) => e.type === Topics.SettingsUpdated)).toBe(true);
      expect(JSON.stringify(events)).not.toMatch(/sk-event-secret|m-1|team@e2e/);
      await put('llm', { api_key: '', default_model: '' });
      await put('site', { support_email: '' });
    });
  });

  describe('permissions', () => {
    const cases: Array<[string, () => Promise<string | undefined>, number]> = [
      ['no token', async () => undefined, 401],
      ['a token without admin:access', () => token('bob', ['profiles:read']), 403],
      ['an inactive admin', () => token('carol', ['admin:access'], { active: false }), 403],
      ['an active admin', () => token('dave', ['admin:access']), 200],
    ];
    for (const [who, mint, status] of cases) {
      it(`answers ${status} to ${who} on every admin route`, async () => {
        const bearer = await mint();
        const headers = { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
        expect((await call(`${url}/api/v1/admin/settings`, { headers })).status).toBe(status);
        expect((await call(`${url}/api/v1/admin/settings/site`, { headers })).status).toBe(status);
        const write = await call(`${url}/api/v1/admin/settings/site`, { method: 'PUT', headers, body: JSON.stringify({ values: { support_email: 'perm@e2e.test' } }) });
        expect(write.status).toBe(status);
      });
    }

    it('serves the public route to anyone, with or without a token', async () => {
      expect((await call(`${url}/api/v1/settings/site/support_email`, { bearer: await token('bob') })).status).toBe(200);
      expect((await call(`${url}/api/v1/settings/site/support_email`)).status).toBe(200);
    });

    it('does not expose the internal settings routes through the gateway', async () => {
      expect((await call(`${url}/internal/public-settings`, { bearer: admin })).status).toBe(404);
      expect((await call(`${profilesUrl}/internal/settings/llm`, { bearer: admin })).status).toBe(403);
    });
  });

  it('gives other services a public-settings reader that sees changes through settings.updated', async () => {
    const client = new ServiceClient({ service: 'profiles', baseUrl: profilesUrl, tokenProvider: (target, perms) => serviceToken.token(target, perms) });
    const reader = new PublicSettingsReader(client, { ttlMs: 60_000, consumer: 'settings-e2e' });
    const listening = await reader.listen(platform.bus);
    try {
      await put('site', { support_email: 'reader@e2e.test' });
      await expect(reader.get('site', 'support_email')).resolves.toBe('reader@e2e.test');
      await expect(reader.get('llm', 'api_key')).resolves.toBeUndefined();
      await expect(reader.get('llm', 'default_provider')).resolves.toBeUndefined();
      await put('site', { name: { pl: 'Akme' } });
      await waitFor(async () => (await reader.get('site', 'name', 'pl')) === 'Akme');
      await expect(reader.get('site', 'name', 'de')).resolves.toBe('Flowplane');
    } finally {
      await listening.stop();
    }
  });

  it('describes every settings route in the merged OpenAPI document with request and response schemas', async () => {
    const doc = (await call(`${url}/api/v1/openapi.json`)).body;
    const pub = doc.paths['/api/v1/settings/{module}/{key}'].get;
    expect(pub.tags).toEqual(['settings']);
    expect(pub.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['module', 'key', 'locale']));
    expect(pub.responses['200'].content['application/json'].schema.$ref).toMatch(/PublicSettingDto$/);
    expect(pub.responses['404']).toBeDefined();
    const adminPath = doc.paths['/api/v1/admin/settings/{module}'];
    expect(adminPath.get.responses['200'].content['application/json'].schema.$ref).toMatch(/AdminModuleSettingsDto$/);
    expect(adminPath.put.requestBody.content['application/json'].schema.$ref).toMatch(/UpdateSettingsDto$/);
    expect(adminPath.put.responses['400'].content['application/json'].schema.$ref).toMatch(/SettingsErrorDto$/);
    expect(doc.paths['/api/v1/admin/settings'].get.responses['200']).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => p.includes('internal'))).toBe(false);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
