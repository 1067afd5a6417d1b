import { type ChatCall, type ChatCallResult, createProviderRegistry, LlmBadRequestError, LlmClient, LlmConfigError, LlmRateLimitError, LlmUnavailableError, translationTokenCap, type UsageRecord } from '@flowplane/llm';
import { ReviewerUnavailableError, type TargetLocale } from '../auto-translate.ports';
import { LOCAL_TRANSLATION_TASKS } from './local-translation.tasks';
import { type ChatClient, type EngineOptions, type ModelSettings, ModelTranslationEngine } from './model-translation-engine';
import { parseJsonObject, type TranslatePayload } from './translation-prompts';

const LOCALES: TargetLocale[] = ['de', 'fr', 'es', 'it', 'pl', 'cs', 'sv', 'ja'].map((code) => ({ code, language: code }));

/** A model that answers through `script(payload, call index)`; every call is recorded. */
class FakeModel implements ChatClient {
  readonly calls: ChatCall[] = [];
  constructor(private readonly script: (payload: TranslatePayload & Record<string, unknown>, index: number) => string | Error | Promise<string>) {}

  async chat(call: ChatCall): Promise<ChatCallResult> {
    const index = this.calls.push(call) - 1;
    const payload = JSON.parse(call.messages[call.messages.length - 1].content);
    const out = await this.script(payload, index);
    if (out instanceof Error) throw out;
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15, source: 'provider' as const };
    return { content: out, model: 'fake-1', finishReason: 'stop', usage, latencyMs: 1, attempts: 1, providerId: 'fake', usageRecord: {} as UsageRecord };
  }
}

/** Answers every target with `translate(text, locale)`. */
const answering = (translate: (text: string, locale: string) => string) => (p: TranslatePayload) => JSON.stringify(Object.fromEntries(p.targets.map((t) => [t.locale, translate(p.text, t.locale)])));

const settings = (s: ModelSettings = { config: { providerID: 'fake' } }) => ({ current: async () => s });
const fast: EngineOptions = { retryBaseMs: 1, maxBackoffMs: 2, sleep: async () => undefined };

function engine(model: ChatClient, options: EngineOptions = {}, s?: ModelSettings) {
  return new ModelTranslationEngine(model, settings(s), undefined, { ...fast, ...options });
}

describe('ModelTranslationEngine.translate', () => {
  it('batches a short source six locales per call', async () => {
    const model = new FakeModel(answering((t, l) => `${l}:${t}`));
    const result = await engine(model).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES });
    expect(model.calls.map((c) => JSON.parse(c.messages[1].content).targets.length)).toEqual([6, 2]);
    expect(Object.keys(result.translations)).toEqual(LOCALES.map((l) => l.code));
    expect(result.omitted).toEqual([]);
    expect(result.usage).toMatchObject({ calls: 2, totalTokens: 30 });
    expect(result.by).toBe('fake/fake-1');
  });

  it('goes one locale per call for long sources and ICU plural or select sources', async () => {
    const long = 'word '.repeat(300);
    const model = new FakeModel(answering((t) => t));
    await engine(model).translate({ text: long, sourceLocale: 'en', locales: LOCALES.slice(0, 3) });
    expect(model.calls).toHaveLength(3);
    const icu = new FakeModel(answering((t) => t.replace('file', 'Datei')));
    await engine(icu).translate({ text: '{n, plural, one {# file} other {# files}}', sourceLocale: 'en', locales: LOCALES.slice(0, 3) });
    expect(icu.calls).toHaveLength(3);
    const select = new FakeModel(answering((t) => t));
    await engine(select).translate({ text: '{g, select, female {She} other {They}}', sourceLocale: 'en', locales: LOCALES.slice(0, 2) });
    expect(select.calls).toHaveLength(2);
  });

  it('sizes the token cap from the source, AI_MAX_TOKENS a floor', async () => {
    const model = new FakeModel(answering((t) => t));
    await engine(model, { maxTokensFloor: 100 }).translate({ text: 'x'.repeat(2000), sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(model.calls[0].config?.maxTokens).toBe(translationTokenCap(2000, 1, 100));
    expect(model.calls[0].config?.maxTokens).toBeGreaterThan(1000);
    const short = new FakeModel(answering((t) => t));
    await engine(short, { maxTokensFloor: 4096 }).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 2) });
    expect(short.calls[0].config?.maxTokens).toBe(4096);
  });

  it('tolerates code fences and text around the JSON', async () => {
    const model = new FakeModel((p) => 'Here you go:\n```json\n' + answering((t, l) => `${l}:${t}`)(p) + '\n```');
    const result = await engine(model).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 2) });
    expect(result.translations).toEqual({ de: 'de:Save', fr: 'fr:Save' });
    expect(parseJsonObject('not json')).toBeUndefined();
  });

  it('asks again once for locales missing from the answer or an answer that is not JSON, then omits them', async () => {
    const model = new FakeModel((p, i) => (i === 0 ? JSON.stringify({ de: 'Speichern' }) : 'Sorry, I cannot.'));
    const result = await engine(model).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 3) });
    expect(result.translations).toEqual({ de: 'Speichern' });
    expect(model.calls).toHaveLength(2);
    expect(JSON.parse(model.calls[1].messages[1].content).targets.map((t: { locale: string }) => t.locale)).toEqual(['fr', 'es']);
    expect(result.omitted).toEqual([
      { locale: 'fr', reason: 'the model answer was not a JSON object (after one retry)' },
      { locale: 'es', reason: 'the model answer was not a JSON object (after one retry)' },
    ]);
  });

  it('re-requests a broken candidate once with the reason named, and keeps the fixed one', async () => {
    const model = new FakeModel((p, i) => JSON.stringify({ de: i === 0 ? 'Drücken Sie <b>Speichern' : 'Drücken Sie <b>Speichern</b>' }));
    const result = await engine(model).translate({ text: 'Press <b>Save</b>', sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(result.translations).toEqual({ de: 'Drücken Sie <b>Speichern</b>' });
    const retry = model.calls[1];
    expect(JSON.parse(retry.messages[1].content).previous_problems).toEqual({ de: 'dropped closing </b>' });
    expect(retry.messages[0].content).toMatch(/previous answer .* was refused/);
  });

  it('omits a candidate that stays broken, with the reason', async () => {
    const model = new FakeModel(() => JSON.stringify({ de: 'Hallo {nom}' }));
    const result = await engine(model).translate({ text: 'Hello {name}', sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(result).toMatchObject({ translations: {}, omitted: [{ locale: 'de', reason: 'placeholder {name} missing (after one retry)' }] });
    expect(model.calls).toHaveLength(2);
  });

  it('puts the note (context, else label), the domain and the glossary into the prompt', async () => {
    const model = new FakeModel(answering((t) => t.replace('Save', 'Sichern')));
    await engine(model, { domain: 'a bike-rental shop' }).translate({
      text: 'Save Flowplane',
      sourceLocale: 'en',
      locales: LOCALES.slice(0, 1),
      label: 'Button label',
      glossary: [{ term: 'Flowplane', doNotTranslate: true }, { term: 'bike', locale: 'de', translation: 'Fahrrad' }],
    });
    const payload = JSON.parse(model.calls[0].messages[1].content);
    expect(payload).toMatchObject({ note: 'Domain: a bike-rental shop. Button label', do_not_translate: ['Flowplane'], glossary: [{ term: 'bike', locale: 'de', translation: 'Fahrrad' }] });
    const withContext = new FakeModel(answering((t) => t));
    await engine(withContext).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1), context: 'verb', label: 'ignored' });
    expect(JSON.parse(withContext.calls[0].messages[1].content).note).toBe('verb');
  });

  it('retries 429s and 5xx with backoff, then omits the locales with the reason; never throws per locale', async () => {
    const waits: number[] = [];
    const storm = new FakeModel(() => new LlmRateLimitError('rate limited'));
    const result = await engine(storm, { retries: 2, retryBaseMs: 100, maxBackoffMs: 1000, random: () => 0.5, sleep: async (ms) => void waits.push(ms) }).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 2) });
    // Three attempts, then the repair round makes three more.
    expect(storm.calls).toHaveLength(6);
    expect(waits).toEqual([50, 100, 50, 100]);
    expect(result.translations).toEqual({});
    expect(result.omitted.map((o) => o.locale)).toEqual(['de', 'fr']);
    expect(result.omitted[0].reason).toMatch(/LLM_RATE_LIMITED/);
    expect(result.usage.calls).toBe(6);

    const flaky = new FakeModel((p, i) => (i < 2 ? new LlmUnavailableError('502 from upstream', 502) : answering((t) => `ok ${t}`)(p)));
    expect((await engine(flaky, { retries: 2 }).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1) })).translations).toEqual({ de: 'ok Save' });

    const refused = new FakeModel(() => new LlmBadRequestError('unknown model', 404));
    await engine(refused).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(refused.calls).toHaveLength(2);
  });

  it('bounds each call by the call timeout and treats a timeout as retryable', async () => {
    const model = new FakeModel((p, i) => (i === 0 ? new Promise<string>(() => undefined) : answering((t) => `late ${t}`)(p)));
    const result = await engine(model, { callTimeoutMs: 30 }).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(result.translations).toEqual({ de: 'late Save' });
    expect(model.calls[0].signal?.aborted).toBe(true);
  });

  it('rejects on an unusable configuration and on abort', async () => {
    await expect(engine(new FakeModel(() => new LlmConfigError('unknown LLM provider "nope"'))).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1) })).rejects.toBeInstanceOf(LlmConfigError);
    const controller = new AbortController();
    controller.abort();
    await expect(engine(new FakeModel(answering((t) => t))).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1), signal: controller.signal })).rejects.toThrow();
  });

  it('passes the profile with module precedence', async () => {
    const model = new FakeModel(answering((t) => t));
    await engine(model, {}, { profileId: 'translator', config: { providerID: 'local', temperature: 0.2 } }).translate({ text: 'Save', sourceLocale: 'en', locales: LOCALES.slice(0, 1) });
    expect(model.calls[0]).toMatchObject({ profileId: 'translator', precedence: 'module', config: { providerID: 'local', temperature: 0.2 } });
  });
});

describe('ModelTranslationEngine.review', () => {
  const request = { key: 'save', source: 'Save {count} files', sourceLocale: 'en', candidates: { de: 'Speichere {count} Dateien', fr: 'Enregistrer {count} fichiers' } };

  it('judges every candidate in one call and discards a rejection that suggests the candidate itself', async () => {
    const model = new FakeModel(() =>
      JSON.stringify({ de: { ok: false, reason: 'style', suggestion: 'Speichere {count} Dateien' }, fr: { ok: false, reason: 'wrong sense', suggestion: 'Sauvegarder {count} fichiers' } }),
    );
    const result = await engine(model).review(request);
    expect(model.calls).toHaveLength(1);
    expect(result.verdicts).toEqual({ de: { ok: true }, fr: { ok: false, reason: 'wrong sense', suggestion: 'Sauvegarder {count} fichiers' } });
  });

  it('raises ReviewerUnavailableError on an outage or an answer it cannot read', async () => {
    await expect(engine(new FakeModel(() => new LlmUnavailableError('down')), { retries: 1 }).review(request)).rejects.toBeInstanceOf(ReviewerUnavailableError);
    await expect(engine(new FakeModel(() => 'looks fine to me')).review(request)).rejects.toBeInstanceOf(ReviewerUnavailableError);
    await expect(engine(new FakeModel(() => JSON.stringify({ de: { ok: true } }))).review(request)).rejects.toThrow(/no verdict for fr/);
  });
});

describe('offline on the local provider', () => {
  function offline(rows: UsageRecord[] = []) {
    const client = new LlmClient({ providers: createProviderRegistry({ localTasks: LOCAL_TRANSLATION_TASKS }), usage: { record: async (r) => void rows.push(r) }, service: 'i18n' });
    return new ModelTranslationEngine(client, settings({ config: { providerID: 'local' } }), undefined, fast);
  }

  it('pseudo-localizes every locale through the local provider, deterministically, with usage rows', async () => {
    const rows: UsageRecord[] = [];
    const text = 'Press <b>Save</b> to keep {count} changes in Flowplane';
    const glossary = [{ term: 'Flowplane', doNotTranslate: true }];
    const result = await offline(rows).translate({ text, sourceLocale: 'en', locales: LOCALES, glossary });
    expect(result.omitted).toEqual([]);
    expect(result.by).toBe('local/local-echo');
    expect(result.translations.de).toMatch(/^\[de\] .*<b>.+<\/b>.*\{count\}.* Flowplane$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ service: 'i18n', providerId: 'local', kind: 'chat', status: 'ok' });
    expect((await offline().translate({ text, sourceLocale: 'en', locales: LOCALES, glossary })).translations).toEqual(result.translations);
  });

  it('translates a 50,000-character source one locale per call', async () => {
    const text = 'Lorem ipsum dolor sit amet. '.repeat(1800).slice(0, 50_000);
    const result = await offline().translate({ text, sourceLocale: 'en', locales: LOCALES.slice(0, 2) });
    expect(result.omitted).toEqual([]);
    expect(result.usage.calls).toBe(2);
    expect(result.translations.de.length).toBeGreaterThan(60_000);
  });

  it('reviews by the signature: a broken placeholder and an untranslated copy are refused', async () => {
    const result = await offline().review({ key: 'k', source: 'Save {count} files', sourceLocale: 'en', candidates: { de: '[de] Šààṽéé {count} ƒîîļééš', fr: 'Save {count} files', es: 'Guardar archivos' } });
    expect(result.verdicts).toEqual({ de: { ok: true }, fr: { ok: false, reason: 'untranslated' }, es: { ok: false, reason: 'placeholder {count} missing' } });
    expect((await offline().review({ key: 'k', source: '{count}', sourceLocale: 'en', candidates: { de: '{count}' } })).verdicts).toEqual({ de: { ok: true } });
  });
});
