import { createEventBus } from '@flowplane/platform/bus';
import { createStore, type Store } from '@flowplane/platform/store';
import type { I18nConfig } from '../../i18n.config';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { PublicPageCache } from './public-page.cache';
import { SeedLegalPagesUseCase } from './seed-legal-pages.use-case';

describe('SeedLegalPagesUseCase', () => {
  let store: Store;
  let repository: ContentRepository;
  let seeder: SeedLegalPagesUseCase;
  const config = { enabled: true, sourceLocale: 'en' } as I18nConfig;

  beforeEach(async () => {
    store = await createStore({ engine: 'memory' });
    repository = new ContentRepository(store);
    const outbox = new ContentOutbox(store, createEventBus({ bus: 'memory' }), config);
    seeder = new SeedLegalPagesUseCase(store, repository, outbox, config, new PublicPageCache());
  });
  afterEach(() => store.close());

  it('seeds privacy and terms with review required, then skips a re-seed whose prose is unchanged', async () => {
    const first = new Date('2026-01-01T00:00:00Z');
    expect(await seeder.execute(first)).toEqual({ privacy: 'created', terms: 'created' });
    const seeded = (await repository.findPage('privacy'))!;
    expect(seeded).toMatchObject({ seeded: { template: 'privacy' }, translation: { reviewRequired: true } });
    expect(await seeder.execute(new Date('2027-06-01T00:00:00Z'))).toEqual({ privacy: 'unchanged', terms: 'unchanged' });
    const again = (await repository.findPage('privacy'))!;
    expect(again.updatedAt).toEqual(seeded.updatedAt);
    expect(again.body.en).toContain('datetime="2026-01-01"');
  });

  it('rewrites a page it seeded from an older template, keeping held translations, and never a page an admin wrote', async () => {
    await seeder.execute(new Date('2026-01-01T00:00:00Z'));
    const seeded = (await repository.findPage('privacy'))!;
    const pending = [{ unit: 'body', locale: 'de', text: 'Datenschutz', hash: 'h', at: '2026-01-02T00:00:00Z' }];
    // As if an older template had written it: same seeder mark, other prose.
    await repository.savePage({ ...seeded, body: { ...seeded.body, en: '<p>Old privacy text</p>' }, translation: { ...seeded.translation, pending } });
    expect(await seeder.execute(new Date('2026-02-01T00:00:00Z'))).toMatchObject({ privacy: 'updated' });
    const rewritten = (await repository.findPage('privacy'))!;
    expect(rewritten.body.en).toContain('datetime="2026-02-01"');
    expect(rewritten.translation).toMatchObject({ reviewRequired: true, pending });

    const { seeded: _mark, ...edited } = rewritten;
    await repository.savePage({ ...edited, title: { en: 'Our own privacy policy' } });
    expect(await seeder.execute(new Date('2026-03-01T00:00:00Z'))).toMatchObject({ privacy: 'kept' });
    expect((await repository.findPage('privacy'))!.title).toEqual({ en: 'Our own privacy policy' });
  });

  it('seeds the pages translation-ready, and marks ready a page an older version seeded without the flag, keeping its date and text', async () => {
    const first = new Date('2026-01-01T00:00:00Z');
    await seeder.execute(first);
    expect((await repository.findPage('terms'))!.translation).toMatchObject({ translationReady: true, reviewRequired: true });
    const seeded = (await repository.findPage('privacy'))!;
    const translated = { ...seeded.title, de: 'Datenschutz' };
    await repository.savePage({ ...seeded, title: translated, translation: { ...seeded.translation, translationReady: false } });
    expect(await seeder.execute(new Date('2027-06-01T00:00:00Z'))).toEqual({ privacy: 'readied', terms: 'unchanged' });
    const readied = (await repository.findPage('privacy'))!;
    expect(readied.translation.translationReady).toBe(true);
    expect(readied.updatedAt).toEqual(first);
    expect(readied.title).toEqual(translated);
    expect(readied.seeded).toEqual(seeded.seeded);
  });

  it('does not bring back a seeded page that was deleted', async () => {
    await seeder.execute();
    await repository.deletePage('terms');
    expect(await seeder.execute()).toMatchObject({ terms: 'deleted' });
    expect(await repository.findPage('terms')).toBeNull();
  });
});
