import { i18nDefinition, TranslationService } from '@flowplane/i18n';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { type RunningService, startService } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { call, json, testEnv, token, until } from '../support/http';

/** Catalog rule 7 across replicas, and catalog rule 8 (I18N_STORE=none). */
describe('i18n replicas and disabled mode', () => {
  let bus: MemoryEventBus;
  let store: Store;
  let a: RunningService;
  let b: RunningService;
  let off: RunningService;
  let admin: string;

  beforeAll(async () => {
    bus = MemoryEventBus.silent();
    store = createMemoryStore();
    admin = await token('alice', ['admin:access']);
    // Two replicas of the i18n service on one store and one bus, as in split mode with two pods.
    a = await startService(i18nDefinition, { env: testEnv(), bus, store });
    b = await startService(i18nDefinition, { env: testEnv(), bus, store });
    off = await startService(i18nDefinition, { env: testEnv({ I18N_STORE: 'none' }), bus: MemoryEventBus.silent(), store: createMemoryStore() });
  });
  afterAll(async () => {
    await Promise.allSettled([a, b, off].filter(Boolean).map((s) => s.close()));
    await bus?.close();
    await store?.close();
  });

  const catalogOf = (s: RunningService, locale: string) => call(`${s.url}/api/v1/i18n/messages?locale=${locale}`);

  it('drops the cached bucket on every replica when one of them writes (i18n.updated)', async () => {
    await call(`${a.url}/api/v1/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json({ key: 'title', locale: 'en', value: 'Shop' }) });
    // Both replicas load and cache the bucket.
    expect((await catalogOf(a, 'en')).body.messages.title).toBe('Shop');
    expect((await catalogOf(b, 'en')).body.messages.title).toBe('Shop');
    const tb = b.app.get(TranslationService);
    expect(await tb.translate('', 'title', 'en')).toBe('Shop');
    await call(`${a.url}/api/v1/admin/i18n/messages`, { method: 'PUT', bearer: admin, ...json({ key: 'title', locale: 'en', value: 'Store' }) });
    await until(() => tb.translate('', 'title', 'en'), (v) => v === 'Store', 3000);
    expect((await catalogOf(b, 'en')).body.messages.title).toBe('Store');
    // The Translation service of one replica writes, the other one reads the new text.
    await b.app.get(TranslationService).upsert('', 'title', 'en', 'Boutique');
    const ta = a.app.get(TranslationService);
    await until(() => ta.translate('', 'title', 'en'), (v) => v === 'Boutique', 3000);
    await b.app.get(TranslationService).delete('', 'title', 'en');
    await until(() => ta.translate('', 'title', 'en'), (v) => v === 'title', 3000);
  });

  it('answers 503 "i18n not configured" on every route under I18N_STORE=none, health stays up', async () => {
    for (const [method, path, bearer] of [
      ['GET', '/api/v1/i18n/messages', undefined],
      ['GET', '/api/v1/i18n/locales', undefined],
      ['POST', '/api/v1/i18n/report-keys', undefined],
      ['GET', '/api/v1/admin/i18n/locales', admin],
      ['PUT', '/api/v1/admin/i18n/messages', admin],
      ['GET', '/api/v1/admin/i18n/translations', admin],
    ] as const) {
      const res = await call(`${off.url}${path}`, { method, ...(bearer ? { bearer } : {}), ...(method === 'GET' ? {} : json({ keys: [] })) });
      expect({ path, status: res.status, message: res.body?.message }).toEqual({ path, status: 503, message: 'i18n not configured' });
      expect(res.body).toMatchObject({ statusCode: 503, code: 'I18N_NOT_CONFIGURED', requestId: expect.any(String) });
    }
    await expect(off.app.get(TranslationService).translate('', 'x', 'en')).rejects.toThrow('i18n not configured');
    expect((await call(`${off.url}/healthz`)).status).toBe(200);
  });
});
