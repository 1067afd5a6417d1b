import { nodeAudience } from '@flowplane/contracts';
import { i18nDefinition, TranslationService } from '@flowplane/i18n';
import { mintToken } from '@flowplane/platform/auth';
import { type RunningService, startService } from '@flowplane/platform/service';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, TEST_SECRET, testEnv, token, until } from '../support/http';

/**
 * The i18n flow nodes through the gateway: registered by the i18n service with flow-runtime, used
 * by published flows, translating with interpolation and settings tokens, resolving the run's
 * locale; and the request locale every service resolves, seen through the i18n service.
 */
describe('i18n nodes and request locale', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access']);
    const i18n = platform.services.find((s) => s.name === 'i18n')!;
    const translations = i18n.app.get(TranslationService);
    await translations.upsert('', 'greeting', 'en', 'Hello {{.Name}}, welcome to [[ site.name ]]! [[ llm.api_key ]]');
    await translations.upsert('', 'greeting', 'pl', 'Cześć {{.Name}}, witaj w [[ site.name ]]!');
    await translations.upsert('shop', 'cart', 'de', 'Warenkorb');
    const site = await call(`${api}/admin/settings/site`, { method: 'PUT', bearer: admin, ...json({ values: { name: { en: 'Acme {{.Name}}', pl: 'Akme' } } }) });
    expect(site.status).toBe(200);
    await until(
      () => call(`${api}/flows/nodes`, { bearer: admin }),
      (r) => r.status === 200 && ['i18n/translate', 'i18n/resolve-locale'].every((id) => (r.body as Array<{ id: string }>).some((n) => n.id === id)),
      15_000,
    );
  });
  afterAll(() => platform?.close());

  async function publish(id: string, node: string, port: string): Promise<void> {
    const flow = {
      name: id,
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'step', name: 'Step', kind: 'action', action_ref: node, config: {} },
        { id: 'done', name: 'Done', kind: 'end' },
        { id: 'failed', name: 'Failed', kind: 'end', config: { status: 'rejected' } },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'step' },
        { id: 'e2', from: 'step', to: 'done', port },
        { id: 'e3', from: 'step', to: 'failed', port: 'Error' },
      ],
      meta: { positions: { start: { x: 0, y: 0 }, step: { x: 200, y: 0 }, done: { x: 400, y: 0 }, failed: { x: 400, y: 100 } } },
    };
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id, name: id }) })).status).toBe(201);
    const saved = await call(`${api}/flows/${id}/versions`, { method: 'POST', bearer: admin, ...json(flow) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/${id}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
  }

  const run = (id: string, input: unknown, meta?: Record<string, unknown>) =>
    call(`${api}/flows/${id}/runs`, { method: 'POST', bearer: admin, ...json(meta ? { input, meta } : { input }) });

  it('lists both nodes as remote action nodes of the i18n service', async () => {
    const nodes = (await call(`${api}/flows/nodes`, { bearer: admin })).body as Array<{ id: string; kind: string; remote: boolean; source: string }>;
    for (const id of ['i18n/translate', 'i18n/resolve-locale']) expect(nodes.find((n) => n.id === id)).toMatchObject({ kind: 'action', remote: true, source: 'i18n' });
  });

  it('i18n/translate: Translated {value, locale, key} with interpolation, then settings tokens in the locale (private ones verbatim)', async () => {
    await publish('i18n-translate-e2e', 'i18n/translate', 'Translated');
    const en = await run('i18n-translate-e2e', { key: 'greeting', locale: 'en', args: { Name: 'Ann' } });
    expect(en.status).toBe(200);
    expect(en.body.status).toBe('completed');
    // Interpolation first, then tokens: the setting's own {{.Name}} stays literal; a sensitive setting is never expanded.
    expect(en.body.output).toEqual({ value: 'Hello Ann, welcome to Acme {{.Name}}! [[ llm.api_key ]]', locale: 'en', key: 'greeting' });

    const byMeta = await run('i18n-translate-e2e', { key: 'greeting', args: { Name: 'Ola' } }, { locale: 'pl-PL' });
    expect(byMeta.body.output).toEqual({ value: 'Cześć Ola, witaj w Akme!', locale: 'pl-PL', key: 'greeting' });

    const ns = await run('i18n-translate-e2e', { key: 'cart', ns: 'shop', locale: 'de' });
    expect(ns.body.output).toEqual({ value: 'Warenkorb', locale: 'de', key: 'cart' });

    const unknown = await run('i18n-translate-e2e', { key: 'no.such.key' });
    expect(unknown.body.status).toBe('completed');
    expect(unknown.body.output).toEqual({ value: 'no.such.key', locale: 'pl', key: 'no.such.key' });

    const missing = await run('i18n-translate-e2e', { locale: 'en' });
    expect(missing.body.status).toBe('rejected');
    expect(missing.body.output.error).toMatch(/needs a non-empty string `key`/);
  });

  it('i18n/resolve-locale: Resolved {locale} from the run meta, else the packet fallback, else the default', async () => {
    await publish('i18n-resolve-e2e', 'i18n/resolve-locale', 'Resolved');
    expect((await run('i18n-resolve-e2e', { locale: 'de' }, { locale: 'uk' })).body.output).toEqual({ locale: 'uk' });
    expect((await run('i18n-resolve-e2e', { locale: 'de' })).body.output).toEqual({ locale: 'de' });
    expect((await run('i18n-resolve-e2e', {})).body.output).toEqual({ locale: 'pl' });
  });
});

describe('i18n nodes in disabled mode (I18N_STORE=none)', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(i18nDefinition, {
      env: { PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', I18N_STORE: 'none', FLOW_RUNTIME_URL: 'http://127.0.0.1:1', PROFILES_URL: 'http://127.0.0.1:1' },
    });
  });
  afterAll(() => svc?.close());

  it.each(['i18n/translate', 'i18n/resolve-locale'])('%s outputs Error "i18n not configured"; a call without its step token is still refused', async (node) => {
    const stepToken = await mintToken(TEST_SECRET, { sub: 'run:r1/step', audience: nodeAudience(node) });
    const url = `${svc.url}/internal/nodes/${node}`;
    const body = json({ runId: 'r1', nodeId: 'step', stepKey: 'k1', config: {}, packet: { key: 'greeting' }, meta: {} });
    const res = await call(url, { method: 'POST', bearer: stepToken, ...body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ outputs: [{ port: 'Error', packet: { error: 'i18n not configured' } }] });
    expect((await call(url, { method: 'POST', ...body })).status).toBe(401);
  });
});
