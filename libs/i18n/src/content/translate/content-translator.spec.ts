import { createEventBus } from '@flowplane/platform/bus';
import { createStore, type Store } from '@flowplane/platform/store';
import type { GlossarySource, TranslateTextRequest, TranslateTextResult, TranslationEngine } from '../../auto-translate/auto-translate.ports';
import { NO_USAGE } from '../../auto-translate/auto-translate.ports';
import type { I18nConfig } from '../../i18n.config';
import type { LocaleRepository } from '../../locales/persistence/locale.repository';
import { ContentException } from '../content.exception';
import { nextFragment } from '../use-cases/fragment-writes.use-case';
import { nextPage } from '../use-cases/page-writes.use-case';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import type { PublicContentService } from '../use-cases/public-content.service';
import { PublicPageCache } from '../use-cases/public-page.cache';
import { SeedLegalPagesUseCase } from '../use-cases/seed-legal-pages.use-case';
import { ContentTranslator } from './content-translator';
import { ContentTranslationQueue } from './translation-queue';

/** Answers `[<locale>] <text>`; locales in `failing` are omitted with a reason; counts calls. */
class FakeEngine {
  calls: TranslateTextRequest[] = [];
  failing = new Set<string>();
  /** Runs inside a call, before it answers (an edit made while the model works). */
  during?: () => Promise<void>;
  async translate(request: TranslateTextRequest): Promise<TranslateTextResult> {
    this.calls.push(request);
    await this.during?.();
    const translations: Record<string, string> = {};
    const omitted = [];
    for (const l of request.locales) {
      if (this.failing.has(l.code)) omitted.push({ locale: l.code, reason: 'model call failed: 503' });
      else translations[l.code] = `[${l.code}] ${request.text}`;
    }
    return { translations, omitted, usage: { ...NO_USAGE, calls: 1 }, by: 'fake/model' };
  }
  review(): never {
    throw new Error('not used');
  }
  /** (unit text, locale) pairs asked so far. */
  asked(): string[] {
    return this.calls.flatMap((c) => c.locales.map((l) => `${l.code}:${c.text}`));
  }
}

describe('ContentTranslator', () => {
  let store: Store;
  let repository: ContentRepository;
  let engine: FakeEngine;
  let translator: ContentTranslator;
  let queue: ContentTranslationQueue;
  const config = { enabled: true, sourceLocale: 'en', fallbackLocale: 'en', defaultLocale: 'en' } as I18nConfig;
  const locales = { list: async () => ['en', 'de', 'fr'].map((code) => ({ code, active: true })) } as unknown as LocaleRepository;
  const glossary = { entries: async () => [] } as GlossarySource;
  const t0 = new Date('2026-01-01T00:00:00Z');

  beforeEach(async () => {
    store = await createStore({ engine: 'memory' });
    repository = new ContentRepository(store);
    const outbox = new ContentOutbox(store, createEventBus({ bus: 'memory' }), config);
    const cache = new PublicPageCache();
    engine = new FakeEngine();
    translator = new ContentTranslator(repository, outbox, locales, config, engine as unknown as TranslationEngine, glossary, cache);
    const pages = { render: async (p: { title: Record<string, string> }, locale: string) => ({ page: { title: p.title[locale] ?? p.title.en }, contentLocale: locale }) } as unknown as PublicContentService;
    queue = new ContentTranslationQueue(repository, outbox, config, pages, cache);
  });
  afterEach(() => store.close());

  const putPage = async (slug: string, body: Parameters<typeof nextPage>[2], at = t0) => {
    const { page } = nextPage(slug, await repository.findPage(slug), body, 'en', at);
    await repository.savePage(page);
    return page;
  };

  it('skips a record not marked ready and says so', async () => {
    await putPage('draft', { title: { en: 'Draft' }, body: { en: '<p>Soon</p>' } });
    const report = await translator.run();
    expect(report).toMatchObject({ translated: 0, skipped: [{ type: 'page', id: 'draft', reason: 'not ready' }], reason: 'nothing_to_do' });
    expect(engine.calls).toHaveLength(0);
  });

  it('translates the seeded legal pages without an admin write, holding the output for review', async () => {
    const seeder = new SeedLegalPagesUseCase(store, repository, new ContentOutbox(store, createEventBus({ bus: 'memory' }), config), config, new PublicPageCache());
    await seeder.execute(t0);
    const report = await translator.run({ pages: ['privacy', 'terms'], locales: ['de'] });
    expect(report.skipped).toEqual([]);
    expect(report).toMatchObject({ translated: 0, reason: null });
    expect(report.pending).toBeGreaterThan(0);
    const privacy = (await repository.findPage('privacy'))!;
    expect(privacy.title.de).toBeUndefined();
    expect(new Set(privacy.translation.pending.map((p) => p.locale))).toEqual(new Set(['de']));
  });

  it('translates every unit of a ready page into every active locale in one update and records the hash', async () => {
    await putPage('about', { title: { en: 'About' }, body: { en: '<p>We <b>rent</b> bikes</p>' }, seo: { description: { en: 'Bike rental' } }, translationReady: true });
    const report = await translator.run();
    expect(report).toMatchObject({ translated: 6, pending: 0, failed: [], reason: null, records: 1, remaining: 0 });
    const page = (await repository.findPage('about'))!;
    expect(page.body.de).toBe('[de] <p>We <b>rent</b> bikes</p>');
    expect(page.seo.description?.fr).toBe('[fr] Bike rental');
    expect(page.translation.sourceHash).toBeDefined();
    expect(page.translation.units?.every((u) => u.locales.join() === 'de,fr')).toBe(true);
    expect(page.updatedAt).toEqual(t0);
    // The body's note tells the model it is HTML; the call is tagged for the usage ledger.
    expect(engine.calls.find((c) => c.text.startsWith('<p>'))?.context).toMatch(/HTML/);
    expect(engine.calls[0].usageContext?.purpose).toBe('content');
    expect(await translator.run()).toMatchObject({ translated: 0, reason: 'nothing_to_do' });
    expect(engine.calls).toHaveLength(3);
  });

  it('translates only the stale unit after a source edit, and everything with force or Retranslate (then clears it)', async () => {
    await putPage('about', { title: { en: 'About' }, body: { en: '<p>Old</p>' }, translationReady: true });
    await translator.run();
    const stored = (await repository.findPage('about'))!;
    await putPage('about', { title: { ...stored.title }, body: { ...stored.body, en: '<p>New</p>' } });
    engine.calls = [];
    expect(await translator.run()).toMatchObject({ translated: 2 });
    expect(engine.asked().sort()).toEqual(['de:<p>New</p>', 'fr:<p>New</p>']);
    engine.calls = [];
    expect(await translator.run({ force: true, locales: ['de'] })).toMatchObject({ translated: 2 });
    const again = (await repository.findPage('about'))!;
    await putPage('about', { title: { ...again.title }, body: { ...again.body }, retranslate: true });
    engine.calls = [];
    expect(await translator.run()).toMatchObject({ translated: 4 });
    expect((await repository.findPage('about'))!.translation.retranslate).toBe(false);
  });

  it('holds the output of a review-required record in pending, never live, and does not translate it again', async () => {
    await putPage('privacy', { title: { en: 'Privacy' }, body: { en: '<p>We keep little.</p>' }, translationReady: true, reviewRequired: true });
    expect(await translator.run({ locales: ['de'] })).toMatchObject({ translated: 0, pending: 2, reason: null });
    const held = (await repository.findPage('privacy'))!;
    expect(held.title.de).toBeUndefined();
    expect(held.translation.pending.map((p) => p.unit).sort()).toEqual(['body', 'title']);
    engine.calls = [];
    expect(await translator.run({ locales: ['de'] })).toMatchObject({ translated: 0, pending: 0, reason: 'nothing_to_do' });
    expect(engine.calls).toHaveLength(0);
    expect((await queue.pending()).items).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'page', id: 'privacy', unit: 'title', locale: 'de', candidate: '[de] Privacy', source: 'Privacy', current: 'Privacy', sourceChanged: false })]),
    );
    const approved = await queue.approve({ type: 'page', id: 'privacy', locale: 'de' });
    expect(approved.approved.map((a) => a.unit).sort()).toEqual(['body', 'title']);
    const live = (await repository.findPage('privacy'))!;
    expect(live.title.de).toBe('[de] Privacy');
    expect(live.translation.pending).toEqual([]);
    expect(live.translation.units?.find((u) => u.unit === 'title')?.locales).toEqual(['de']);
  });

  it('refuses to approve a candidate whose source moved (409) unless forced; reject discards it for a fresh one', async () => {
    await putPage('terms', { title: { en: 'Terms' }, body: { en: '<p>Rules</p>' }, translationReady: true, reviewRequired: true });
    await translator.run({ locales: ['de'] });
    await putPage('terms', { title: { en: 'Terms of use' }, body: { en: '<p>Rules</p>' } });
    expect((await queue.pending()).items.find((i) => i.unit === 'title')?.sourceChanged).toBe(true);
    const refused = await queue.approve({ type: 'page', id: 'terms', locale: 'de', unit: 'title' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ContentException);
    expect((refused as ContentException).status).toBe(409);
    await queue.approve({ type: 'page', id: 'terms', locale: 'de', unit: 'title', force: true, text: 'Nutzungsbedingungen' });
    expect((await repository.findPage('terms'))!.title.de).toBe('Nutzungsbedingungen');
    expect((await queue.reject({ type: 'page', id: 'terms', locale: 'de' })).rejected).toBe(1);
    const missing = await queue.reject({ type: 'page', id: 'terms', locale: 'de' }).catch((e: unknown) => e);
    expect((missing as ContentException).status).toBe(404);
    engine.calls = [];
    expect(await translator.run({ locales: ['de'] })).toMatchObject({ pending: 1 });
    expect(engine.asked()).toEqual(['de:<p>Rules</p>']);
  });

  it('lets the other locales land when one fails, records no hash, and retries exactly the failed one', async () => {
    await putPage('about', { title: { en: 'About' }, body: { en: '<p>Hi</p>' }, translationReady: true });
    engine.failing.add('fr');
    const report = await translator.run();
    expect(report.translated).toBe(2);
    expect(report.failed.map((f) => `${f.unit}:${f.locale}`).sort()).toEqual(['body:fr', 'title:fr']);
    const page = (await repository.findPage('about'))!;
    expect(page.title.de).toBe('[de] About');
    expect(page.title.fr).toBeUndefined();
    expect(page.translation.sourceHash).toBeUndefined();
    engine.failing.clear();
    engine.calls = [];
    expect(await translator.run()).toMatchObject({ translated: 2, failed: [] });
    expect(engine.asked().sort()).toEqual(['fr:<p>Hi</p>', 'fr:About']);
    expect((await repository.findPage('about'))!.translation.sourceHash).toBeDefined();
  });

  it('spends at most the budget and says it stopped there; the next run continues', async () => {
    await putPage('a', { title: { en: 'A' }, body: { en: '<p>a</p>' }, translationReady: true });
    const first = await translator.run({ budget: 3 });
    expect(first).toMatchObject({ translated: 3, remaining: 1, reason: 'budget_exhausted' });
    expect((await repository.findPage('a'))!.translation.sourceHash).toBeUndefined();
    expect(await translator.run({ budget: 3 })).toMatchObject({ translated: 1, remaining: 0, reason: null });
    expect((await repository.findPage('a'))!.translation.sourceHash).toBeDefined();
  });

  it('waits for a quiet period: a record edited recently is left with reason waiting_for_quiet', async () => {
    await putPage('fresh', { title: { en: 'Fresh' }, body: { en: '<p>x</p>' }, translationReady: true }, new Date(1_000_000));
    const waiting = await translator.run({ quietMs: 60_000, now: () => 1_000_000 + 30_000 });
    expect(waiting).toMatchObject({ translated: 0, reason: 'waiting_for_quiet', skipped: [{ id: 'fresh', reason: 'waiting for quiet' }] });
    expect(await translator.run({ quietMs: 60_000, now: () => 1_000_000 + 61_000 })).toMatchObject({ translated: 4, reason: null });
  });

  it('reuses the translation of identical source text for the locale without a model call', async () => {
    await putPage('one', { title: { en: 'Contact' }, body: { en: '<p>one</p>' }, translationReady: true });
    await translator.run({ pages: ['one'] });
    await putPage('two', { title: { en: 'Contact' }, body: { en: '<p>two</p>' }, translationReady: true });
    engine.calls = [];
    const report = await translator.run({ pages: ['two', 'gone'] });
    expect(report).toMatchObject({ translated: 4, memoryHits: 2, skipped: [{ type: 'page', id: 'gone', reason: 'not found' }] });
    expect(engine.asked().sort()).toEqual(['de:<p>two</p>', 'fr:<p>two</p>']);
  });

  it('translates the marked leaves of a fragment by JSON Pointer as plain text', async () => {
    const data = { links: [{ href: '/a', label: { _i18n: { en: 'Home' } } }], 'a/b': { _i18n: { en: 'Odd' } } };
    const { fragment } = nextFragment('footer', null, { data, translationReady: true }, 'en', t0);
    await repository.saveFragment(fragment);
    expect(await translator.run({ fragments: ['footer'], locales: ['de'] })).toMatchObject({ translated: 2 });
    const stored = (await repository.findFragment('footer'))!.data as typeof data;
    expect(stored.links[0].label._i18n).toEqual({ en: 'Home', de: '[de] Home' });
    expect((stored['a/b']._i18n as Record<string, string>).de).toBe('[de] Odd');
    expect(engine.calls[0].context).toMatch(/Plain text/);
  });

  it('drops a translation whose source was edited while the model worked, keeping the edit', async () => {
    await putPage('about', { title: { en: 'About' }, body: { en: '<p>Old</p>' }, translationReady: true });
    let edited = false;
    engine.during = async () => {
      if (edited) return;
      edited = true;
      await putPage('about', { title: { en: 'About' }, body: { en: '<p>New</p>' } });
    };
    const report = await translator.run({ locales: ['de'] });
    const page = (await repository.findPage('about'))!;
    expect(page.body).toEqual({ en: '<p>New</p>' });
    expect(page.translation.sourceHash).toBeUndefined();
    expect(report.remaining).toBeGreaterThan(0);
    engine.during = undefined;
    expect(await translator.run({ locales: ['de'] })).toMatchObject({ reason: null });
    expect((await repository.findPage('about'))!.body.de).toBe('[de] <p>New</p>');
  });

  it('translates a fragment of 10,000 marked leaves in one update, without quadratic bookkeeping', async () => {
    const data = { rows: Array.from({ length: 1_000 }, (_, i) => ({ cells: Array.from({ length: 10 }, (_, j) => ({ _i18n: { en: `Cell ${i}.${j}` } })) })) };
    const { fragment } = nextFragment('big', null, { data, translationReady: true }, 'en', t0);
    await repository.saveFragment(fragment);
    const started = Date.now();
    expect(await translator.run({ fragments: ['big'], locales: ['de'] })).toMatchObject({ translated: 10_000, reason: null, records: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const stored = (await repository.findFragment('big'))!;
    expect((stored.data as typeof data).rows[999].cells[9]._i18n).toMatchObject({ de: '[de] Cell 999.9' });
    expect(stored.translation.sourceHash).toBeDefined();
  }, 20_000);

  it('counts on a dry run and writes nothing', async () => {
    await putPage('about', { title: { en: 'About' }, body: { en: '<p>Hi</p>' }, translationReady: true });
    expect(await translator.run({ dryRun: true })).toMatchObject({ translated: 4, dryRun: true, records: 0 });
    expect(engine.calls).toHaveLength(0);
    expect((await repository.findPage('about'))!.title.de).toBeUndefined();
  });
});
