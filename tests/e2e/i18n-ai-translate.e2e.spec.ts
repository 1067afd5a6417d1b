import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/**
 * An OpenAI-compatible model on 127.0.0.1 (`POST /v1/chat/completions`, non-streamed). Translation
 * requests: a text with `<b>` loses its `</b>` on the first ask and keeps it when the request names
 * a previous problem; a text saying "always broken" loses it every time. Review requests: "outage"
 * in the source answers 500; otherwise `de` is rejected with a suggestion, every other locale ok.
 */
interface Stub {
  url: string;
  requests: Array<{ system: string; payload: any }>;
  close(): Promise<void>;
}

async function stubModel(): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const system: string = body.messages.find((m: { role: string }) => m.role === 'system')?.content ?? '';
      const payload = JSON.parse(body.messages[body.messages.length - 1].content);
      requests.push({ system, payload });
      let content: string;
      if (system.includes('flowplane-review')) {
        if (payload.source.includes('outage')) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'model crashed' } }));
          return;
        }
        content = JSON.stringify(Object.fromEntries(Object.keys(payload.candidates).map((l) => [l, l === 'de' ? { ok: false, reason: 'wrong sense', suggestion: 'Sichern' } : { ok: true }])));
      } else {
        const fixed = payload.previous_problems !== undefined && !payload.text.includes('always broken');
        content =
          'Sure:\n```json\n' +
          JSON.stringify(Object.fromEntries(payload.targets.map((t: { locale: string }) => [t.locale, `(${t.locale}) ${fixed ? payload.text : payload.text.replace('</b>', '')}`]))) +
          '\n```';
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('AI translate and review routes', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let stub: Stub;

  beforeAll(async () => {
    stub = await stubModel();
    platform = await startStandalone({ env: testEnv({ LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', AI_CALL_TIMEOUT: '5s', I18N_AUTO_TRANSLATE_DISABLED: 'true' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('alice', ['admin:access', 'profiles:*']);
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await stub?.close();
  });

  const translate = (body: unknown, bearer = admin) => call(`${api}/admin/ai/translate`, { method: 'POST', bearer, ...json(body) });
  const review = (body: unknown) => call(`${api}/admin/i18n/translations/review`, { method: 'POST', bearer: admin, ...json(body) });
  const settings = (values: Record<string, unknown>) => call(`${api}/admin/settings/ai`, { method: 'PUT', bearer: admin, ...json({ values }) });

  describe('offline on the local provider (the default)', () => {
    it('pseudo-localizes every locale keeping placeholders, tags and plural branches, and records the calls in the usage ledger', async () => {
      const res = await translate({ text: 'Press <b>Save</b> to keep {count} changes', locales: ['de', 'pl', 'cz'], label: 'Save hint' });
      expect(res.status).toBe(200);
      expect(res.body.omitted).toEqual([]);
      expect(Object.keys(res.body.translations)).toEqual(['de', 'pl', 'cz']);
      expect(res.body.translations.de).toMatch(/^\[de\] .*<b>.+<\/b>.*\{count\}/);
      expect(res.body.by).toBe('local/local-echo');
      expect(res.body.usage).toMatchObject({ calls: 1, costUsd: 0 });
      expect(res.body.usage.totalTokens).toBeGreaterThan(0);
      const again = await translate({ text: 'Press <b>Save</b> to keep {count} changes', locales: ['de', 'pl', 'cz'], label: 'Save hint' });
      expect(again.body.translations).toEqual(res.body.translations);

      const plural = await translate({ text: '{count, plural, one {# file} other {# files}}', locales: ['de', 'pl'] });
      expect(plural.status).toBe(200);
      expect(plural.body.usage.calls).toBe(2);
      expect(plural.body.translations.pl).toMatch(/^\[pl\] \{count, plural, one \{# .+\} other \{# .+\}\}$/);

      const rows = await until(
        () => call(`${api}/admin/llm/usage?providerId=local&limit=200`, { bearer: admin }),
        (r) => (r.body?.items ?? []).filter((row: { service?: string }) => row.service === 'i18n').length >= 4,
        10_000,
      );
      expect(rows.body.items.find((row: { service?: string }) => row.service === 'i18n')).toMatchObject({ providerId: 'local', model: 'local-echo', status: 'ok', userId: 'alice' });
    });

    it('translates a 50,000-character source, one locale per call', async () => {
      const text = 'Lorem ipsum dolor sit amet, <i>consectetur</i> adipiscing. '.repeat(900).slice(0, 50_000);
      const res = await translate({ text, locales: ['de', 'pl'] });
      expect(res.status).toBe(200);
      expect(res.body.omitted).toEqual([]);
      expect(res.body.usage.calls).toBe(2);
      expect(res.body.translations.de.length).toBeGreaterThan(60_000);
    }, 30_000);

    it('answers 400 for a missing text, no locales, too many locales or a text over 50,000 characters; 401 and 403 without admin access', async () => {
      for (const body of [{ locales: ['de'] }, { text: 'Save', locales: [] }, { text: 'Save' }, { text: 'Save', locales: Array.from({ length: 51 }, (_, i) => `l${i}`) }, { text: 'x'.repeat(50_001), locales: ['de'] }, { text: 'Save', locales: ['not a code'] }, { text: 'Save', locales: ['de'], extra: 1 }]) {
        const res = await translate(body);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ statusCode: 400, code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
      }
      expect((await call(`${api}/admin/ai/translate`, { method: 'POST', ...json({ text: 'Save', locales: ['de'] }) })).status).toBe(401);
      expect((await translate({ text: 'Save', locales: ['de'] }, await token('bob', []))).status).toBe(403);
    });

    it('reviews stored and given candidates by the signature, writes nothing, 404 for an unknown key, 400 for 0 or 41 items', async () => {
      const created = await call(`${api}/admin/i18n/translations`, {
        method: 'POST',
        bearer: admin,
        ...json({ key: 'review.save', translations: { en: 'Save {count} files', de: 'Save {count} files', pl: 'Zapisz {count} pliki' }, context: 'Button' }),
      });
      expect(created.status).toBeLessThan(300);
      const before = await call(`${api}/admin/i18n/translations?prefix=review.`, { bearer: admin });

      const res = await review({ items: [{ key: 'review.save' }, { key: 'review.save', candidates: { fr: 'Enregistrer des fichiers' } }] });
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        { key: 'review.save', verdicts: { de: { ok: false, reason: 'untranslated' }, pl: { ok: true } } },
        { key: 'review.save', verdicts: { fr: { ok: false, reason: 'placeholder {count} missing' } } },
      ]);
      expect(res.body.usage.calls).toBe(2);
      expect((await call(`${api}/admin/i18n/translations?prefix=review.`, { bearer: admin })).body).toEqual(before.body);

      const unknown = await review({ items: [{ key: 'review.nope', candidates: { de: 'x' } }] });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 'I18N_KEY_NOT_FOUND', message: expect.stringContaining('review.nope') });
      expect((await review({ items: [] })).status).toBe(400);
      const tooMany = await review({ items: Array.from({ length: 41 }, (_, i) => ({ key: `k${i}` })) });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toMatch(/items/);
      expect((await review({ items: [{ key: 'review.save', candidates: { de: 5 } }] })).status).toBe(400);
    });
  });

  describe('through an OpenAI-compatible model named by ai/profile', () => {
    beforeAll(async () => {
      const profile = await call(`${api}/admin/profiles`, {
        method: 'POST',
        bearer: admin,
        ...json({ module: 'llm', kind: 'llm-chat', profileId: 'stub-translator', name: 'Stub translator', config: { providerID: 'openai-compatible', baseURL: stub.url, model: 'stub-model' } }),
      });
      expect(profile.status).toBe(201);
      expect((await settings({ profile: 'stub-translator' })).status).toBe(200);
      await until(() => translate({ text: 'Hello', locales: ['de'] }), (r) => r.body?.by === 'openai-compatible/stub-model', 10_000);
    });
    afterAll(async () => {
      await settings({ profile: '' });
    });

    it('re-requests a broken candidate (dropped </b>) naming the reason and returns the fixed one', async () => {
      stub.requests.length = 0;
      const res = await translate({ text: 'Press <b>Save</b> now', locales: ['de', 'pl'], context: 'Toolbar hint' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ translations: { de: '(de) Press <b>Save</b> now', pl: '(pl) Press <b>Save</b> now' }, omitted: [], by: 'openai-compatible/stub-model' });
      expect(res.body.usage).toMatchObject({ calls: 2, totalTokens: 60 });
      expect(stub.requests).toHaveLength(2);
      expect(stub.requests[0].payload).toMatchObject({ note: 'Toolbar hint', targets: [{ locale: 'de' }, { locale: 'pl' }] });
      expect(stub.requests[1].payload.previous_problems).toEqual({ de: 'dropped closing </b>', pl: 'dropped closing </b>' });
    });

    it('omits a candidate that stays broken, with the reason', async () => {
      const res = await translate({ text: 'This is <b>always broken</b>', locales: ['de'] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ translations: {}, omitted: [{ locale: 'de', reason: 'dropped closing </b> (after one retry)' }] });
    });

    it('reviews through the model, and answers 503 with the standard body when the reviewer is down', async () => {
      await call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ key: 'review.outage', translations: { en: 'Model outage', de: 'Modellausfall' } }) });
      const ok = await review({ items: [{ key: 'review.save', candidates: { de: 'Speichern {count} Dateien', pl: 'Zapisz {count} pliki' } }] });
      expect(ok.status).toBe(200);
      expect(ok.body.items[0].verdicts).toEqual({ de: { ok: false, reason: 'wrong sense', suggestion: 'Sichern' }, pl: { ok: true } });
      const down = await review({ items: [{ key: 'review.outage' }] });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ statusCode: 503, code: 'I18N_REVIEWER_UNAVAILABLE', message: expect.any(String), requestId: expect.any(String) });
      expect(JSON.stringify(down.body)).not.toMatch(/at .*\.ts:\d+/);
    }, 20_000);

    it('the review gate in translate-missing holds a flagged candidate of a noted key, puts the flag of an unnoted one in provenance, and approve publishes the held one', async () => {
      expect((await call(`${api}/admin/i18n/locales`, { method: 'POST', bearer: admin, ...json({ code: 'de' }) })).status).toBe(201);
      const row = (key: string, en: string, context?: string) => call(`${api}/admin/i18n/translations`, { method: 'POST', bearer: admin, ...json({ ns: 'gate', key, translations: { en }, ...(context ? { context } : {}) }) });
      expect((await row('noted', 'Save the file', 'Verb on a button')).status).toBeLessThan(300);
      expect((await row('plain', 'Save the draft')).status).toBeLessThan(300);
      const run = await call(`${api}/admin/i18n/translations/translate-missing`, { method: 'POST', bearer: admin, ...json({ ns: 'gate', locales: ['de', 'pl'], review: true }) });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ keysProcessed: 2, localesFilled: 3, held: 1, failed: [] });
      const rows = async () => (await call(`${api}/admin/i18n/translations?ns=gate`, { bearer: admin })).body.items as Array<{ key: string; translations: Record<string, string>; provenance: Record<string, any>; pending: Record<string, any> }>;
      const byKey = async (key: string) => (await rows()).find((r) => r.key === key)!;
      let noted = await byKey('noted');
      const plain = await byKey('plain');
      expect(noted.translations.de).toBeUndefined();
      expect(noted.translations.pl).toBe('(pl) Save the file');
      expect(noted.pending.de).toMatchObject({ text: '(de) Save the file', status: 'held' });
      expect(plain.translations.de).toBe('(de) Save the draft');
      expect(JSON.stringify(plain.provenance.de.review)).toContain('wrong sense');
      const pending = await call(`${api}/admin/i18n/translations/pending`, { bearer: admin });
      expect(JSON.stringify(pending.body)).toContain('(de) Save the file');
      const approve = await call(`${api}/admin/i18n/translations/pending/approve`, { method: 'POST', bearer: admin, ...json({ ns: 'gate', key: 'noted', locale: 'de' }) });
      expect(approve.status).toBe(200);
      noted = await byKey('noted');
      expect(noted.translations.de).toBe('(de) Save the file');
      expect(noted.provenance.de).toMatchObject({ source: 'machine' });
      expect(noted.pending.de).toBeUndefined();
    }, 20_000);

    it('a profile that does not exist answers 503 I18N_AI_MISCONFIGURED', async () => {
      expect((await settings({ profile: 'no-such-profile' })).status).toBe(200);
      const res = await until(() => translate({ text: 'Hello', locales: ['de'] }), (r) => r.status === 503, 10_000);
      expect(res.body).toMatchObject({ code: 'I18N_AI_MISCONFIGURED', message: expect.stringContaining('no-such-profile') });
    });
  });
});
