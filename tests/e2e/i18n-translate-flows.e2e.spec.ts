import { rmSync } from 'node:fs';
import { Topics } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, tempDir, testEnv, token, until } from '../support/http';

/**
 * Automatic translation driven by flows on `npm start` defaults (the `local` provider, which
 * pseudo-localizes): the i18n service publishes `i18n-translate-on-change` and
 * `i18n-translate-sweep` at start-up and is ready only then, seeds the sweep's scheduler entry,
 * and the flows translate unattended: a reported key, a source edit (stale machine text), and the
 * sweep event. An operator's edit of a flow survives a restart; I18N_AUTO_TRANSLATE_DISABLED
 * publishes nothing.
 */

interface Row {
  key: string;
  ns?: string;
  translations: Record<string, string>;
  provenance?: Record<string, { source: string; source_hash?: string; by?: string }>;
}

const ON_CHANGE = 'i18n-translate-on-change';
const SWEEP = 'i18n-translate-sweep';

describe('automatic translation flows', () => {
  let dataDir: string;
  let platform: Standalone;
  let api: string;
  let admin: string;
  const env = () => testEnv({ STORE: 'embedded', DATA_DIR: dataDir, I18N_AUTO_TRANSLATE_DISABLED: 'false' });

  beforeAll(async () => {
    dataDir = tempDir('i18n-flows');
    admin = await token('alice', ['admin:access']);
    platform = await startStandalone({ env: env() });
    api = `${platform.url}/api/v1`;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rowOf = async (key: string, ns = ''): Promise<Row | undefined> => {
    const res = await call(`${api}/admin/i18n/translations?prefix=${encodeURIComponent(key)}${ns ? `&ns=${encodeURIComponent(ns)}` : ''}`, { bearer: admin });
    return (res.body?.items as Row[] | undefined)?.find((r) => r.key === key);
  };
  const i18nReady = () => call(`${platform.services.find((s) => s.name === 'i18n')!.url}/readyz`);

  it('publishes both flows on fixed consumer groups before the service reports ready, and seeds the sweep schedule', async () => {
    const ready = await until(i18nReady, (r) => r.status === 200, 20_000, 20);
    expect(ready.status).toBe(200);
    // Ready implies published: the moment readyz says 200, both flows are on the air.
    for (const id of [ON_CHANGE, SWEEP]) {
      const flow = await call(`${api}/flows/${id}`, { bearer: admin });
      expect(flow.status).toBe(200);
      expect(flow.body.published).toBeDefined();
    }
    const subscribed = await until(
      async () => Promise.all([ON_CHANGE, SWEEP].map(async (id) => (await call(`${api}/flows/${id}/subscriptions`, { bearer: admin })).body)),
      (subs) => subs.every((s) => Array.isArray(s) && s.some((b: { state: string }) => b.state === 'active')),
      10_000,
    );
    expect(subscribed[0]).toEqual(expect.arrayContaining([expect.objectContaining({ topic: Topics.I18nKeysChanged, groupId: 'i18n-translate-on-change', state: 'active' })]));
    expect(subscribed[1]).toEqual(expect.arrayContaining([expect.objectContaining({ topic: Topics.I18nTranslateSweep, groupId: 'i18n-translate-sweep', state: 'active' })]));
    const schedule = await call(`${api}/flows/schedules/i18n-translate-sweep`, { bearer: admin });
    expect(schedule.status).toBe(200);
    expect(schedule.body).toMatchObject({ id: 'i18n-translate-sweep', cron: '30 3 * * *', topic: Topics.I18nTranslateSweep, enabled: true, source: 'seed' });
    // The templates are offered to operators too.
    const templates = await call(`${api}/flows/templates?q=i18n`, { bearer: admin });
    expect(templates.body.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining(['i18n/translate-on-change', 'i18n/translate-sweep']));
  }, 30_000);

  it('translates a key reported through report-keys into every active locale, unattended', async () => {
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
    const reported = await call(`${api}/i18n/report-keys`, { method: 'POST', ...json({ keys: [{ key: 'auto.greeting', text: 'Hello {name}, welcome back', module: 'web' }] }) });
    expect(reported.status).toBe(200);
    const row = await until(() => rowOf('auto.greeting'), (r) => Boolean(r?.translations.de && r.translations.pl), 15_000, 100);
    expect(row?.translations.de).toBeTruthy();
    expect(row?.translations.de).not.toBe('Hello {name}, welcome back');
    expect(row?.translations.de).toContain('{name}');
    expect(row?.translations.pl).toContain('{name}');
    expect(row?.provenance?.de).toMatchObject({ source: 'machine', source_hash: expect.any(String) });
    // The run of the on-change flow carries the fill report in its log.
    const runs = await until(() => call(`${api}/runs?flowId=${ON_CHANGE}`, { bearer: admin }), (r) => r.body?.items?.some((x: { status: string }) => x.status === 'completed'), 5000);
    const completed = runs.body.items.find((x: { status: string }) => x.status === 'completed');
    const run = await call(`${api}/runs/${completed.runId}`, { bearer: admin });
    const log = run.body.timeline.find((e: { type: string; data: { message?: string } }) => e.type === 'node.log' && e.data.message?.startsWith('fill-translations:'));
    expect(log?.data).toMatchObject({ nodeId: 'fill', data: expect.objectContaining({ keysProcessed: expect.any(Number), localesFilled: expect.any(Number), remaining: expect.any(Number) }) });
    // The flow's own writes publish no i18n.keys_changed (rule 4): it never wakes itself.
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(`${api}/runs?flowId=${ON_CHANGE}`, { bearer: admin })).body.items).toHaveLength(1);
  }, 30_000);

  it('re-translates stale machine text after a source edit within seconds, and leaves human text alone', async () => {
    const before = (await rowOf('auto.greeting'))!;
    expect(before.provenance?.de?.source).toBe('machine');
    // A person writes the Polish text: it is human from now on (rule 1).
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'auto.greeting', translations: { pl: 'Cześć {name}, witaj ponownie' } }) })).status).toBeLessThan(300);
    const t0 = Date.now();
    expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'auto.greeting', translations: { en: 'Hi {name}, good to see you again' } }) })).status).toBeLessThan(300);
    const after = await until(() => rowOf('auto.greeting'), (r) => Boolean(r && r.translations.de !== before.translations.de), 10_000, 100);
    expect(after?.translations.de).not.toBe(before.translations.de);
    expect(after?.provenance?.de?.source_hash).not.toBe(before.provenance?.de?.source_hash);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(after?.translations.pl).toBe('Cześć {name}, witaj ponownie');
    expect(after?.provenance?.pl?.source).toBe('human');
  }, 30_000);

  it('fills missing keys on the sweep event', async () => {
    // Keys that exist before a locale is added: nothing changes on the keys, so only the sweep fills the new locale.
    for (const key of ['sweep.one', 'sweep.two']) expect((await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ ns: 'shop', key, translations: { en: `Text of ${key}` } }) })).status).toBeLessThan(300);
    await until(() => rowOf('sweep.two', 'shop'), (r) => Boolean(r?.translations.de), 10_000, 100);
    expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'fr' }) })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect((await rowOf('sweep.one', 'shop'))?.translations.fr).toBeUndefined();
    // A sweep takes at most 200 keys, in (namespace, key) order: the seeded console and widget
    // strings come before `shop`, so unfinished work continues on the next sweeps, as it would nightly.
    const filled = (rs: Array<{ translations: Record<string, string> } | undefined>) => rs.every((r) => Boolean(r?.translations.fr));
    let rows: Awaited<ReturnType<typeof rowOf>>[] = [];
    for (let sweep = 0; sweep < 8 && !filled(rows); sweep++) {
      await platform.bus.publish(Topics.I18nTranslateSweep, { firedAt: new Date().toISOString() });
      // The reported key of the default namespace too: the sweep covers every namespace.
      rows = await until(async () => Promise.all([rowOf('sweep.one', 'shop'), rowOf('sweep.two', 'shop'), rowOf('auto.greeting')]), filled, 5_000, 100);
    }
    expect(filled(rows)).toBe(true);
    for (const r of rows.slice(0, 2)) expect(r?.provenance?.fr?.source).toBe('machine');
  }, 60_000);

  it("keeps an operator's edit of a flow across a restart, and publishes nothing twice", async () => {
    const versions = (id: string) => call(`${api}/flows/${id}/versions`, { bearer: admin });
    const seeded = await call(`${api}/flows/${SWEEP}/versions/${(await call(`${api}/flows/${SWEEP}`, { bearer: admin })).body.published.versionId}?format=ir`, { bearer: admin });
    const doc = seeded.body.document ?? seeded.body;
    const edited = { ...doc, nodes: doc.nodes.map((n: { id: string; config?: Record<string, unknown> }) => (n.id === 'fill' ? { ...n, config: { ...n.config, limit: 20 } } : n)) };
    const saved = await call(`${api}/flows/${SWEEP}/versions`, { method: 'POST', bearer: admin, ...json(edited) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/${SWEEP}/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const onChangeVersions = (await versions(ON_CHANGE)).body.length;

    await platform.close();
    platform = await startStandalone({ env: env() });
    api = `${platform.url}/api/v1`;
    expect((await until(i18nReady, (r) => r.status === 200, 20_000, 20)).status).toBe(200);
    const flow = await call(`${api}/flows/${SWEEP}`, { bearer: admin });
    expect(flow.body.published.versionId).toBe(saved.body.versionId);
    expect((await versions(ON_CHANGE)).body).toHaveLength(onChangeVersions);
    // The scheduler entry is not seeded again either: an operator's retiming stays.
    expect((await call(`${api}/flows/schedules/i18n-translate-sweep`, { bearer: admin })).body.source).toBe('seed');
  }, 60_000);
});

describe('automatic translation flows with I18N_AUTO_TRANSLATE_DISABLED=true', () => {
  let platform: Standalone;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ I18N_AUTO_TRANSLATE_DISABLED: 'true' }) });
  }, 60_000);
  afterAll(() => platform?.close());

  it('publishes no flow and seeds no schedule, and the service is ready', async () => {
    const admin = await token('alice', ['admin:access']);
    const api = `${platform.url}/api/v1`;
    const ready = await until(() => call(`${platform.services.find((s) => s.name === 'i18n')!.url}/readyz`), (r) => r.status === 200, 20_000);
    expect(ready.status).toBe(200);
    // The templates still reach the registry (an operator may activate them by hand).
    await until(() => call(`${api}/flows/templates?q=i18n`, { bearer: admin }), (r) => r.body?.some?.((t: { id: string }) => t.id === 'i18n/translate-sweep'), 5000);
    expect((await call(`${api}/flows/${ON_CHANGE}`, { bearer: admin })).status).toBe(404);
    expect((await call(`${api}/flows/${SWEEP}`, { bearer: admin })).status).toBe(404);
    expect((await call(`${api}/flows/schedules/i18n-translate-sweep`, { bearer: admin })).status).toBe(404);
  }, 30_000);
});
