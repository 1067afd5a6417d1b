import { type PublicSettingsSnapshot, Topics } from '@flowplane/contracts';
import { createEventBus, type EventBus } from '@flowplane/platform/bus';
import type { ServiceClients, ServiceContext } from '@flowplane/platform/service';
import { createStore, type Store } from '@flowplane/platform/store';
import type { I18nConfig } from '../../i18n.config';
import { LocaleActivations } from '../../locales/use-cases/locale-activations';
import { SettingsExpander } from '../../tokens/settings-expander.service';
import { ContentRepository } from '../persistence/content.repository';
import type { ActiveLocales } from '../use-cases/active-locales';
import { nextPage } from '../use-cases/page-writes.use-case';
import { PublicContentService } from '../use-cases/public-content.service';
import { PublicPageCache } from '../use-cases/public-page.cache';
import { htmlText, PageSearchIndexer, pageIndexName, pageUsesSettings } from './page-search';

describe('page search documents', () => {
  it('reads the text of an HTML body: scripts and styles dropped, tags as spaces, entities decoded', () => {
    expect(htmlText('<h1>Fahrräder</h1><p>Wir&nbsp;vermieten <b>Räder</b> &amp; Helme &#x2014; &#8364;5</p><script>alert(1)</script><style>p{}</style>')).toBe('Fahrräder Wir vermieten Räder & Helme — €5');
    expect(htmlText('a &unknown; b')).toBe('a &unknown; b');
  });

  it('names one index per locale', () => {
    expect(pageIndexName('pt-BR')).toBe('pages-pt-BR');
  });

  it('tells which pages a settings change touches: a token of that module and key in any text and locale', () => {
    const page = { title: { en: 'About' }, body: { en: '<p>Hi</p>', pl: '<p>Witamy w [[site.name]]</p>' }, seo: { description: { en: 'Mail [[ site.support_email ]]' } } };
    expect(pageUsesSettings(page, 'site', ['name'])).toBe(true);
    expect(pageUsesSettings(page, 'site', ['support_email'])).toBe(true);
    expect(pageUsesSettings(page, 'site', ['base_url'])).toBe(false);
    expect(pageUsesSettings(page, 'shop', [])).toBe(false);
    expect(pageUsesSettings(page, 'site', [])).toBe(true);
  });
});

describe('PageSearchIndexer', () => {
  let store: Store;
  let bus: EventBus;
  let repository: ContentRepository;
  let indexer: PageSearchIndexer;
  let activations: LocaleActivations;
  let upserts: Array<{ index: string; documents: Array<{ id: string; payload: { title: string } }> }>;
  let siteName: string;
  const config = { enabled: true, pageSearch: true, sourceLocale: 'en', fallbackLocale: 'en', defaultLocale: 'en' } as I18nConfig;
  const active = ['en', 'pl'];
  const snapshot = (): PublicSettingsSnapshot => ({ sourceLocale: 'en', settings: { site: { name: { localized: false, value: siteName } } } });

  beforeEach(async () => {
    store = await createStore({ engine: 'memory' });
    bus = createEventBus({ bus: 'memory' });
    repository = new ContentRepository(store);
    siteName = 'Acme';
    // Like the real reader: keeps what it fetched until invalidated.
    let cached: PublicSettingsSnapshot | undefined;
    const reader = { snapshot: async () => (cached ??= snapshot()), invalidate: () => void (cached = undefined) };
    const ctx = { name: 'i18n', config: {}, env: {}, serviceUrls: { search: 'http://search.invalid' } } as unknown as ServiceContext;
    const expander = new SettingsExpander(ctx, undefined, reader);
    const pages = new PublicContentService(repository, expander, config, new PublicPageCache());
    upserts = [];
    const clients = {
      for: () => ({
        post: async (path: string, body: { documents: Array<{ id: string; payload: { title: string } }> }) => {
          const index = decodeURIComponent(/indexes\/([^/]+)\/upsert$/.exec(path)?.[1] ?? '');
          if (index) upserts.push({ index, documents: body.documents });
          return {};
        },
      }),
    } as unknown as ServiceClients;
    activations = new LocaleActivations();
    const locales = { codes: async () => [...active] } as unknown as ActiveLocales;
    indexer = new PageSearchIndexer(bus, repository, locales, pages, config, clients, ctx, expander, activations);
    const at = new Date('2026-01-01T00:00:00Z');
    for (const [slug, title] of [
      ['welcome', { en: 'Welcome to [[ site.name ]]', pl: 'Witamy w [[ site.name ]]' }],
      ['plain', { en: 'Opening hours' }],
    ] as const) {
      await repository.savePage(nextPage(slug, null, { title, body: { en: `<p>${slug}</p>` } }, 'en', at).page);
    }
  });
  afterEach(async () => {
    await indexer.onApplicationShutdown();
    await bus.close?.();
    await store.close();
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };
  const titles = (index: string) => upserts.filter((u) => u.index === index).flatMap((u) => u.documents.map((d) => `${d.id}: ${d.payload.title}`));

  it('reindexes the pages whose titles use a setting when it changes, and only those', async () => {
    await indexer.onApplicationBootstrap();
    await until(() => titles('pages-en').includes('welcome: Welcome to Acme'));
    upserts = [];
    siteName = 'Globex';
    await bus.publish(Topics.SettingsUpdated, { module: 'site', keys: ['name'] });
    await until(() => titles('pages-pl').includes('welcome: Witamy w Globex'));
    expect(titles('pages-en')).toEqual(['welcome: Welcome to Globex']);
    // A change of a setting no page uses writes nothing.
    upserts = [];
    await bus.publish(Topics.SettingsUpdated, { module: 'site', keys: ['support_email'] });
    await new Promise((r) => setTimeout(r, 100));
    expect(upserts).toEqual([]);
  });

  it('indexes every page in a locale that becomes active, not only pages changed later', async () => {
    await indexer.onApplicationBootstrap();
    await until(() => titles('pages-pl').length === 2);
    active.push('de');
    try {
      activations.activated('de');
      await until(() => titles('pages-de').length === 2);
      expect(titles('pages-de').sort()).toEqual(['plain: Opening hours', 'welcome: Welcome to Acme']);
    } finally {
      active.pop();
    }
  });
});
