import type { ServiceConfig } from '@flowplane/platform/service';
import { createMemoryStore, type StoreSession } from '@flowplane/platform/store';
import { fingerprint } from '../../coverage/fingerprint';
import { I18nConfig } from '../../i18n.config';
import type { LocaleRepository } from '../../locales/persistence/locale.repository';
import type { ProvenanceEntry } from '../../translations/domain/translation-row.entity';
import type { I18nOutbox } from '../../translations/persistence/i18n.outbox';
import { TranslationRepository } from '../../translations/persistence/translation.repository';
import type { I18nInstance } from '../../translations/use-cases/instance-id';
import type { WriteTranslationUseCase } from '../../translations/use-cases/write-translation.use-case';
import {
  type FillRequest,
  GlossarySource,
  NO_USAGE,
  type ReviewKeyRequest,
  type ReviewKeyResult,
  ReviewerUnavailableError,
  type TranslateTextRequest,
  type TranslateTextResult,
  TranslationEngine,
} from '../auto-translate.ports';
import { FillTranslationsService } from './fill-translations.service';
import { MachineTranslationWriter } from './machine-translation.writer';

const USAGE = { calls: 1, promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0 };

/** A deterministic engine: `<locale>:<text>`; hooks make it slow, fail, omit or flag. */
class FakeEngine extends TranslationEngine {
  calls: TranslateTextRequest[] = [];
  reviews: ReviewKeyRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;
  omit = new Set<string>();
  throwFor = new Set<string>();
  beforeAnswer?: (req: TranslateTextRequest) => Promise<void>;
  verdict?: (req: ReviewKeyRequest) => ReviewKeyResult;
  /** Put before every translation: another model answering. */
  label = '';

  async translate(req: TranslateTextRequest): Promise<TranslateTextResult> {
    this.calls.push(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      await this.beforeAnswer?.(req);
      if (this.throwFor.has(req.text)) throw new Error('provider answered 429 three times');
      const translations: Record<string, string> = {};
      const omitted = [];
      for (const l of req.locales) {
        if (this.omit.has(l.code)) omitted.push({ locale: l.code, reason: 'dropped closing </b>' });
        else translations[l.code] = `${this.label}${l.code}:${req.text}`;
      }
      return { translations, omitted, usage: USAGE, by: 'fake/model' };
    } finally {
      this.inFlight--;
    }
  }

  async review(req: ReviewKeyRequest): Promise<ReviewKeyResult> {
    this.reviews.push(req);
    if (this.verdict) return this.verdict(req);
    return { verdicts: Object.fromEntries(Object.keys(req.candidates).map((l) => [l, { ok: true }])), usage: USAGE, by: 'fake/reviewer' };
  }
}

function setup(opts: { concurrency?: number; locales?: string[] } = {}) {
  const store = createMemoryStore();
  const config = new I18nConfig({ I18N_DEFAULT_LOCALE: 'pl', I18N_FALLBACK_LOCALE: 'en', AI_CONCURRENCY: opts.concurrency ?? 2 } as unknown as ServiceConfig);
  const repo = new TranslationRepository(store, config);
  const codes = opts.locales ?? ['de', 'en', 'fr', 'pl'];
  const locales = {
    list: async () => codes.map((code) => ({ code, active: true, createdAt: new Date(), updatedAt: new Date() })),
  } as unknown as LocaleRepository;
  const events: Array<{ topic: string; payload: unknown }> = [];
  const outbox = {
    transaction: <R>(fn: (s: StoreSession) => Promise<R>) => store.withTransaction(fn),
    announceUpdated: async (_s: StoreSession, payload: unknown) => void events.push({ topic: 'i18n.updated', payload }),
    announceKeysChanged: async (_s: StoreSession, _ns: string, keys: string[]) => void events.push({ topic: 'i18n.keys_changed', payload: keys }),
  } as unknown as I18nOutbox;
  const notified: string[] = [];
  const cache = { notify: (ns: string, locales: Iterable<string>) => notified.push(...[...locales].map((l) => `${ns}/${l}`)) } as unknown as WriteTranslationUseCase;
  const writer = new MachineTranslationWriter(repo, outbox, { id: 'test' } as I18nInstance, cache);
  const engine = new FakeEngine();
  const glossary = new (class extends GlossarySource {
    async entries() {
      return [{ term: 'Flowplane', doNotTranslate: true }];
    }
  })();
  const service = new FillTranslationsService(repo, locales, config, engine, glossary, writer);
  const at = '2026-01-01T00:00:00.000Z';
  const seed = async (key: string, cells: Record<string, [string, ProvenanceEntry['source'] | null] | string>, context?: string, ns = '') => {
    await repo.writeCells(
      { ns, key },
      Object.entries(cells).map(([locale, v]) => {
        const [value, source] = typeof v === 'string' ? [v, 'human' as const] : v;
        return { locale, value, ...(source ? { provenance: { source, at } } : {}) };
      }),
      new Date(),
    );
    if (context !== undefined) await repo.setContext({ ns, key }, context, new Date());
  };
  const row = async (key: string, ns = '') => (await repo.find({ ns, key }))!;
  const run = (r: Partial<FillRequest> = {}) => service.run({ mode: 'missing', allKeys: true, review: false, ...r });
  return { store, repo, engine, service, seed, row, run, events, notified, writer };
}

describe('FillTranslationsService: selection by provenance and mode', () => {
  it('missing mode fills only locales without text, with provenance and fingerprints in the same write', async () => {
    const t = setup();
    await t.seed('greet', { en: ['Hello', 'code'], de: ['Hallo', 'human'], fr: ['Bonjour', null] }, 'a greeting');
    const report = await t.run();
    expect(report).toMatchObject({ keysProcessed: 1, localesFilled: 1, skippedProtected: 0, held: 0, failed: [], remaining: 0, memoryHits: 0 });
    const r = await t.row('greet');
    expect(r.translations).toEqual({ en: 'Hello', de: 'Hallo', fr: 'Bonjour', pl: 'pl:Hello' });
    expect(r.provenance.pl).toMatchObject({ source: 'machine', by: 'fake/model', source_hash: fingerprint('Hello'), context_hash: fingerprint('a greeting') });
    expect(r.provenance.de.source).toBe('human');
    expect(t.engine.calls[0]).toMatchObject({ text: 'Hello', sourceLocale: 'en', context: 'a greeting', locales: [{ code: 'pl', language: 'pl' }] });
    expect(t.engine.calls[0].glossary).toEqual([{ term: 'Flowplane', doNotTranslate: true }]);
    expect(report.usage.calls).toBe(1);
    // Rule 4: a translation write announces the bucket, never the work signal.
    expect(t.events).toEqual([{ topic: 'i18n.updated', payload: expect.objectContaining({ ns: '', locale: 'pl', keys: ['greet'] }) }]);
    expect(t.notified).toEqual(['/pl']);
    // Idempotent: nothing left to do.
    expect(await t.run()).toMatchObject({ keysProcessed: 0, localesFilled: 0, remaining: 0 });
  });

  it('overwrite replaces text of unknown origin; human and code text only with includeProtected (else counted as protected)', async () => {
    const t = setup({ locales: ['en', 'de', 'fr', 'pl'] });
    await t.seed('k', { en: ['Save', 'code'], de: ['Sichern', 'human'], fr: ['Sauver', null], pl: ['Zapisz', 'seed'] });
    const plain = await t.run({ overwrite: true });
    expect(plain).toMatchObject({ keysProcessed: 1, localesFilled: 1, skippedProtected: 2 });
    expect((await t.row('k')).translations).toEqual({ en: 'Save', de: 'Sichern', fr: 'fr:Save', pl: 'Zapisz' });
    // A second overwrite run converges: the current machine text is not redone.
    expect(await t.run({ overwrite: true })).toMatchObject({ keysProcessed: 0, skippedProtected: 2 });
    const all = await t.run({ overwrite: true, includeProtected: true });
    expect(all).toMatchObject({ keysProcessed: 1, localesFilled: 2, skippedProtected: 0 });
    const r = await t.row('k');
    expect(r.translations).toEqual({ en: 'Save', de: 'de:Save', fr: 'fr:Save', pl: 'pl:Save' });
    expect(r.provenance.de.source).toBe('machine');
    // includeProtected without overwrite means nothing.
    await t.seed('h', { en: ['Open', 'code'], de: ['Öffnen', 'human'], fr: 'Ouvrir', pl: 'Otwórz' });
    expect(await t.run({ includeProtected: true, keys: ['h'], allKeys: false })).toMatchObject({ keysProcessed: 0 });
    expect((await t.row('h')).translations.de).toBe('Öffnen');
  });

  it('overwrite with overwriteBefore replaces current machine text made before it (another model), converging when repeated; approved text only with includeProtected', async () => {
    const t = setup({ locales: ['en', 'de', 'fr'] });
    await t.seed('a', { en: ['Save', 'code'] });
    await t.seed('b', { en: ['Save', 'code'] });
    await t.seed('c', { en: ['Open', 'code'] });
    await t.repo.writeCells(
      { ns: '', key: 'c' },
      [{ locale: 'de', value: 'Öffnen', provenance: { source: 'machine', by: 'fake/model', at: '2026-01-01T00:00:00.000Z', source_hash: fingerprint('Open'), context_hash: fingerprint(''), review: { ok: false, approved: true } } }],
      new Date(),
    );
    expect(await t.run()).toMatchObject({ keysProcessed: 3, localesFilled: 5 });
    await new Promise((r) => setTimeout(r, 5));
    const passStart = Date.now();
    t.engine.label = 'new:';
    // Without an instant an overwrite leaves current machine text alone.
    expect(await t.run({ overwrite: true })).toMatchObject({ keysProcessed: 0 });

    const pass = await t.run({ overwrite: true, overwriteBefore: passStart });
    expect(pass).toMatchObject({ keysProcessed: 3, localesFilled: 5, skippedProtected: 1, failed: [] });
    expect((await t.row('a')).translations).toEqual({ en: 'Save', de: 'new:de:Save', fr: 'new:fr:Save' });
    // The memory of the same source serves only what this pass made, never the text it replaces.
    expect((await t.row('b')).translations).toEqual({ en: 'Save', de: 'new:de:Save', fr: 'new:fr:Save' });
    expect((await t.row('c')).translations).toEqual({ en: 'Open', de: 'Öffnen', fr: 'new:fr:Open' });
    expect((await t.row('a')).provenance.de).toMatchObject({ source: 'machine', source_hash: fingerprint('Save') });
    // The same pass again: its own text is not redone.
    expect(await t.run({ overwrite: true, overwriteBefore: passStart })).toMatchObject({ keysProcessed: 0, skippedProtected: 1, remaining: 0 });

    const forced = await t.run({ overwrite: true, includeProtected: true, overwriteBefore: passStart, keys: ['c'], allKeys: false });
    expect(forced).toMatchObject({ keysProcessed: 1, localesFilled: 1, skippedProtected: 0 });
    const c = await t.row('c');
    expect(c.translations.de).toBe('new:de:Open');
    expect(c.provenance.de.review).toBeUndefined();
  });

  it('missing_and_stale re-translates machine text whose source or note changed; missing mode leaves it', async () => {
    const t = setup({ locales: ['en', 'de'] });
    await t.seed('a', { en: ['One', 'code'] }, 'note');
    await t.seed('b', { en: ['Two', 'code'] }, 'note');
    await t.run();
    expect((await t.row('a')).translations.de).toBe('de:One');
    await t.seed('a', { en: ['One!', 'human'] });
    await t.repo.setContext({ ns: '', key: 'b' }, 'another note', new Date());
    expect(await t.run()).toMatchObject({ keysProcessed: 0 });
    expect((await t.row('a')).translations.de).toBe('de:One');
    const stale = await t.run({ mode: 'missing_and_stale' });
    expect(stale).toMatchObject({ keysProcessed: 2, localesFilled: 2 });
    expect((await t.row('a')).translations.de).toBe('de:One!');
    expect((await t.row('b')).provenance.de.context_hash).toBe(fingerprint('another note'));
    // Current now: a further run does nothing.
    expect(await t.run({ mode: 'missing_and_stale' })).toMatchObject({ keysProcessed: 0, remaining: 0 });
  });

  it('skips keys without source text and reports them, not as failures; honours locales and keys', async () => {
    const t = setup();
    await t.seed('nosrc', { de: 'Nur Deutsch' });
    await t.seed('x', { en: ['X', 'code'] });
    await t.seed('y', { en: ['Y', 'code'] });
    const report = await t.run({ locales: ['fr', 'en'], keys: ['x', 'nosrc'], allKeys: false });
    expect(report).toMatchObject({ keysProcessed: 1, localesFilled: 1, failed: [], missingSource: 1 });
    expect((await t.row('x')).translations).toEqual({ en: 'X', fr: 'fr:X' });
    expect((await t.row('y')).translations).toEqual({ en: 'Y' });
    // Neither keys nor allKeys nor prefix: nothing is selected.
    expect(await t.service.run({ mode: 'missing', review: false })).toMatchObject({ keysProcessed: 0, remaining: 0 });
  });

  it('a dry run reports the work without calling a model or writing', async () => {
    const t = setup();
    await t.seed('x', { en: ['X', 'code'] });
    expect(await t.run({ dryRun: true })).toMatchObject({ keysProcessed: 1, localesFilled: 3, remaining: 0 });
    expect(t.engine.calls).toHaveLength(0);
    expect((await t.row('x')).translations).toEqual({ en: 'X' });
  });
});

describe('FillTranslationsService: review gate and pending entries', () => {
  const flagDe = (req: ReviewKeyRequest): ReviewKeyResult => ({
    verdicts: Object.fromEntries(Object.keys(req.candidates).map((l) => [l, l === 'de' ? { ok: false, reason: 'wrong sense', suggestion: 'Gehalt' } : { ok: true }])),
    usage: USAGE,
    by: 'fake/reviewer',
  });

  it('flagged with a note: held, not live; flagged without a note: live with the flag; one review call per key', async () => {
    const t = setup({ locales: ['en', 'de', 'fr'] });
    t.engine.verdict = flagDe;
    await t.seed('pay', { en: ['Pay', 'code'] }, 'salary, not a payment button');
    await t.seed('plain', { en: ['Plain', 'code'] });
    const report = await t.run({ review: true });
    expect(report).toMatchObject({ keysProcessed: 2, localesFilled: 3, held: 1 });
    expect(t.engine.reviews).toHaveLength(2);
    expect(t.engine.reviews[0]).toMatchObject({ key: 'pay', source: 'Pay', context: 'salary, not a payment button', candidates: { de: 'de:Pay', fr: 'fr:Pay' } });
    const pay = await t.row('pay');
    expect(pay.translations.de).toBeUndefined();
    expect(pay.pending.de).toMatchObject({ text: 'de:Pay', status: 'held', by: 'fake/model', source_hash: fingerprint('Pay'), review: { ok: false, reason: 'wrong sense' } });
    expect(pay.provenance.fr.review).toMatchObject({ ok: true, reviewer: 'fake/reviewer' });
    const plain = await t.row('plain');
    expect(plain.translations.de).toBe('de:Plain');
    expect(plain.provenance.de.review).toMatchObject({ ok: false, reason: 'wrong sense', suggestion: 'Gehalt' });
    // Usage: two translate calls and two review calls.
    expect(report.usage.calls).toBe(4);
  });

  it('a held entry blocks re-translation until the note changes; the live write then clears it', async () => {
    const t = setup({ locales: ['en', 'de'] });
    t.engine.verdict = flagDe;
    await t.seed('pay', { en: ['Pay', 'code'] }, 'salary');
    expect(await t.run({ review: true })).toMatchObject({ held: 1 });
    t.engine.calls.length = 0;
    expect(await t.run({ review: true, mode: 'missing_and_stale' })).toMatchObject({ keysProcessed: 0, remaining: 0 });
    expect(await t.run({ overwrite: true, includeProtected: true })).toMatchObject({ keysProcessed: 0 });
    expect(t.engine.calls).toHaveLength(0);
    // A rejected entry blocks the same way.
    await t.repo.setPending({ ns: '', key: 'pay' }, 'de', { ...(await t.row('pay')).pending.de, status: 'rejected' }, new Date());
    expect(await t.run()).toMatchObject({ keysProcessed: 0 });
    // Editing the note releases it.
    await t.repo.setContext({ ns: '', key: 'pay' }, 'wage paid monthly', new Date());
    t.engine.verdict = undefined;
    expect(await t.run({ review: true })).toMatchObject({ keysProcessed: 1, localesFilled: 1, held: 0 });
    const r = await t.row('pay');
    expect(r.translations.de).toBe('de:Pay');
    expect(r.pending.de).toBeUndefined();
  });

  it('editing the source releases a held entry too', async () => {
    const t = setup({ locales: ['en', 'de'] });
    t.engine.verdict = flagDe;
    await t.seed('pay', { en: ['Pay', 'code'] }, 'salary');
    await t.run({ review: true });
    await t.seed('pay', { en: ['Salary', 'human'] });
    t.engine.verdict = undefined;
    expect(await t.run({ review: true })).toMatchObject({ keysProcessed: 1, localesFilled: 1 });
    expect((await t.row('pay')).translations.de).toBe('de:Salary');
  });

  it('a reviewer outage never stops translation: the text goes live without a verdict', async () => {
    const t = setup({ locales: ['en', 'de'] });
    t.engine.verdict = () => {
      throw new ReviewerUnavailableError('reviewer timed out', USAGE);
    };
    await t.seed('pay', { en: ['Pay', 'code'] }, 'salary');
    const report = await t.run({ review: true });
    expect(report).toMatchObject({ keysProcessed: 1, localesFilled: 1, held: 0, failed: [] });
    expect(report.usage.calls).toBe(2);
    const r = await t.row('pay');
    expect(r.translations.de).toBe('de:Pay');
    expect(r.provenance.de.review).toBeUndefined();
  });
});

describe('FillTranslationsService: translation memory', () => {
  it('reuses the live translation of the same source and note, within a run and across runs, from any namespace', async () => {
    const t = setup({ locales: ['en', 'de', 'fr'] });
    await t.seed('a', { en: ['Cancel', 'code'] }, 'button');
    await t.seed('b', { en: ['Cancel', 'code'] }, 'button', 'shop');
    await t.seed('c', { en: ['Cancel', 'code'] }, 'subscription state');
    const first = await t.run();
    // a: a model call; b (same source and note): memory; c (other note): a model call.
    expect(first).toMatchObject({ keysProcessed: 3, localesFilled: 6, memoryHits: 2 });
    expect(t.engine.calls.map((c) => c.context)).toEqual(['button', 'subscription state']);
    expect((await t.row('b', 'shop')).provenance.de).toMatchObject({ source: 'machine', by: 'memory', source_hash: fingerprint('Cancel'), context_hash: fingerprint('button') });
    // Across runs: a human translation is reused; a stale machine one is not.
    await t.seed('a', { de: 'Abbrechen' });
    await t.seed('d', { en: ['Cancel', 'code'] }, 'button');
    t.engine.calls.length = 0;
    const second = await t.run();
    expect(second).toMatchObject({ keysProcessed: 1, localesFilled: 2, memoryHits: 2 });
    expect((await t.row('d')).translations).toMatchObject({ de: 'Abbrechen', fr: 'fr:Cancel' });
    expect(t.engine.calls).toHaveLength(0);
    await t.seed('e', { en: ['Delete', 'code'], de: ['de:Delete-old', null] });
    await t.seed('stale', { en: ['Delete', 'code'] });
    await t.run({ keys: ['stale'], allKeys: false });
    await t.seed('stale', { en: ['Remove', 'human'] });
    await t.seed('f', { en: ['Delete', 'code'] });
    t.engine.calls.length = 0;
    const third = await t.run({ keys: ['f'], allKeys: false });
    expect(third.memoryHits).toBe(0);
    expect(t.engine.calls).toHaveLength(1);
  });
});

describe('FillTranslationsService: failures, concurrency, limits and deadlines', () => {
  it('failed locales are reported and leave no half-written row; the other keys and locales are written', async () => {
    const t = setup({ locales: ['en', 'de', 'fr'] });
    t.engine.omit.add('fr');
    t.engine.throwFor.add('Boom');
    await t.seed('ok', { en: ['Fine', 'code'] });
    await t.seed('bad', { en: ['Boom', 'code'] }, undefined, 'errors');
    const report = await t.run();
    expect(report.failed).toEqual(
      expect.arrayContaining([
        { key: 'ok', locale: 'fr', reason: 'dropped closing </b>' },
        { key: 'bad', ns: 'errors', locale: 'de', reason: 'provider answered 429 three times' },
        { key: 'bad', ns: 'errors', locale: 'fr', reason: 'provider answered 429 three times' },
      ]),
    );
    expect(report).toMatchObject({ keysProcessed: 1, localesFilled: 1, remaining: 2 });
    const ok = await t.row('ok');
    expect(ok.translations).toEqual({ en: 'Fine', de: 'de:Fine' });
    expect(Object.keys(ok.provenance).sort()).toEqual(['de', 'en']);
    expect(Object.keys(ok.stamps).sort()).toEqual(['de', 'en']);
    const bad = await t.row('bad', 'errors');
    expect(bad.translations).toEqual({ en: 'Boom' });
    expect(Object.keys(bad.provenance)).toEqual(['en']);
    // A re-run retries exactly what failed.
    t.engine.omit.clear();
    t.engine.throwFor.clear();
    t.engine.calls.length = 0;
    expect(await t.run()).toMatchObject({ keysProcessed: 2, localesFilled: 3, failed: [], remaining: 0 });
  });

  it('two runs over the same keys: one write per key and locale wins, the loser counts it done, provenance intact', async () => {
    const t = setup({ locales: ['en', 'de', 'fr'] });
    for (const k of ['a', 'b', 'c']) await t.seed(k, { en: [`Text ${k}`, 'code'] });
    t.engine.delayMs = 20;
    const [one, two] = await Promise.all([t.run(), t.run()]);
    expect(one.failed).toEqual([]);
    expect(two.failed).toEqual([]);
    // Six cells, each written exactly once across both runs.
    expect(one.localesFilled + two.localesFilled).toBe(6);
    expect(t.events.filter((e) => e.topic === 'i18n.updated')).toHaveLength(6);
    for (const k of ['a', 'b', 'c']) {
      const r = await t.row(k);
      expect(r.translations).toEqual({ en: `Text ${k}`, de: `de:Text ${k}`, fr: `fr:Text ${k}` });
      expect(r.provenance.de).toMatchObject({ source: 'machine', source_hash: fingerprint(`Text ${k}`) });
    }
  });

  it('a human edit made while the model is answering wins over the machine write', async () => {
    const t = setup({ locales: ['en', 'de'] });
    await t.seed('k', { en: ['Save', 'code'] });
    t.engine.beforeAnswer = async () => {
      await t.repo.writeCells({ ns: '', key: 'k' }, [{ locale: 'de', value: 'Speichern', provenance: { source: 'human', at: new Date().toISOString() } }], new Date());
    };
    const report = await t.run();
    expect(report).toMatchObject({ keysProcessed: 1, localesFilled: 0, failed: [] });
    const r = await t.row('k');
    expect(r.translations.de).toBe('Speichern');
    expect(r.provenance.de.source).toBe('human');
  });

  it('runs at most AI_CONCURRENCY engine calls at once', async () => {
    const t = setup({ concurrency: 3, locales: ['en', 'de'] });
    for (let i = 0; i < 10; i++) await t.seed(`k${i}`, { en: [`T${i}`, 'code'] });
    t.engine.delayMs = 10;
    expect(await t.run()).toMatchObject({ keysProcessed: 10, localesFilled: 10 });
    expect(t.engine.maxInFlight).toBe(3);
  });

  it('limit caps the keys per run and remaining counts the rest; re-running converges to keysProcessed 0', async () => {
    const t = setup({ locales: ['en', 'de'] });
    for (let i = 0; i < 5; i++) await t.seed(`k${i}`, { en: [`T${i}`, 'code'] });
    expect(await t.run({ limit: 2 })).toMatchObject({ keysProcessed: 2, remaining: 3 });
    expect(await t.run({ limit: 2 })).toMatchObject({ keysProcessed: 2, remaining: 1 });
    expect(await t.run({ limit: 2 })).toMatchObject({ keysProcessed: 1, remaining: 0 });
    expect(await t.run({ limit: 2 })).toMatchObject({ keysProcessed: 0, remaining: 0 });
  });

  it('a deadline stops new keys from starting; the keys not started count in remaining', async () => {
    const t = setup({ concurrency: 1, locales: ['en', 'de'] });
    for (let i = 0; i < 6; i++) await t.seed(`k${i}`, { en: [`T${i}`, 'code'] });
    expect(await t.run({ deadline: Date.now() - 1 })).toMatchObject({ keysProcessed: 0, remaining: 6 });
    t.engine.delayMs = 40;
    const report = await t.run({ deadline: Date.now() + 60 });
    expect(report.keysProcessed).toBeGreaterThanOrEqual(1);
    expect(report.keysProcessed).toBeLessThan(6);
    expect(report.keysProcessed + report.remaining).toBe(6);
    const rows = await t.repo.all('');
    expect(rows.filter((r) => r.translations.de).length).toBe(report.keysProcessed);
  });

  it('usage sums every call', async () => {
    const t = setup({ locales: ['en', 'de'] });
    expect((await t.run()).usage).toEqual(NO_USAGE);
  });
});

describe('FillTranslationsService: cut off by the caller', () => {
  it('an abort while the model or the reviewer answers writes nothing unreviewed and counts the key as remaining', async () => {
    const t = setup({ concurrency: 1, locales: ['en', 'de'] });
    await t.seed('a', { en: ['One', 'code'] });
    await t.seed('b', { en: ['Two', 'code'] });
    const controller = new AbortController();
    t.engine.verdict = () => {
      controller.abort();
      throw new ReviewerUnavailableError('aborted');
    };
    const report = await t.run({ review: true, signal: controller.signal });
    expect(report).toMatchObject({ keysProcessed: 0, localesFilled: 0, failed: [], remaining: 2 });
    expect((await t.row('a')).translations).toEqual({ en: 'One' });
    t.engine.verdict = undefined;
    expect(await t.run({ review: true })).toMatchObject({ keysProcessed: 2, remaining: 0 });
  });
});
