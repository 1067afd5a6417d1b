import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ContentPageChangedPayload, ServiceCallError, serviceUrl, type SettingsUpdatedPayload, Topics } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription } from '@flowplane/platform/bus';
import { SERVICE_CONTEXT, type ServiceContext, ServiceClients } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { LocaleActivations } from '../../locales/use-cases/locale-activations';
import { SettingsExpander } from '../../tokens/settings-expander.service';
import { SETTINGS_TOKEN } from '../../tokens/settings-tokens';
import type { Page } from '../domain/content.entity';
import { ContentRepository } from '../persistence/content.repository';
import { ActiveLocales } from '../use-cases/active-locales';
import { PublicContentService } from '../use-cases/public-content.service';

/** The search index of pages in one locale (`pages-de`): one document per page, id = slug. */
export const pageIndexName = (locale: string): string => `pages-${locale}`;
/** One consumer group for every replica: a change is indexed once. */
export const PAGE_SEARCH_GROUP = 'i18n-page-search';
/** The same for settings changes (a group of its own: one group per subscription). */
export const PAGE_SEARCH_SETTINGS_GROUP = 'i18n-page-search-settings';
/** Longest text of one page document (the embedder reads the beginning of a page anyway). */
const MAX_TEXT = 20_000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of an HTML body: scripts and styles dropped, tags as spaces, common entities decoded, whitespace folded. */
export function htmlText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether any text of the page (title, body, SEO, in any locale) holds a token of setting
 * `module` with one of `keys` (any key of the module when `keys` is empty): what a change of those
 * settings changes in what readers see.
 */
export function pageUsesSettings(page: Pick<Page, 'title' | 'body' | 'seo'>, module: string, keys: readonly string[] = []): boolean {
  const maps = [page.title, page.body, page.seo.title ?? {}, page.seo.description ?? {}];
  for (const m of maps) {
    for (const text of Object.values(m)) {
      if (typeof text !== 'string' || !text.includes('[[')) continue;
      for (const [, mod, key] of text.matchAll(SETTINGS_TOKEN)) if (mod === module && (keys.length === 0 || keys.includes(key))) return true;
    }
  }
  return false;
}

/**
 * Pages are searchable per locale (beyond the spec): for every active locale an index
 * `pages-<code>` in the search service holds one document per page with what readers of that
 * locale see (title, SEO description and body text by the locale chain, tokens expanded), so a German
 * query finds a German page in `pages-de`. Kept fresh from `content.page.changed` (one consumer
 * group, so replicas index a change once; a deleted page leaves every index) and filled at start-up
 * in the background; writes go through the search service's internal upsert (service token with
 * `internal:search:write`), which creates an index on first write. Titles and bodies may hold
 * settings tokens, so `settings.updated` (one group too) reindexes the pages using a changed
 * setting; a locale that becomes active gets every page indexed in the background at once.
 * CONTENT_PAGE_SEARCH=false turns it off. A search service that is down makes the bus retry the event.
 */
@Injectable()
export class PageSearchIndexer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('PageSearch');
  private subscription?: Subscription;
  private settingsSubscription?: Subscription;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ActiveLocales) private readonly locales: ActiveLocales,
    @Inject(PublicContentService) private readonly pages: PublicContentService,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    @Inject(SettingsExpander) private readonly expander: SettingsExpander,
    @Inject(LocaleActivations) private readonly activations: LocaleActivations,
  ) {}

  /**
   * The search client, its address resolved at each call: when every service starts in one process,
   * search may start after this one, and a client made before would keep the default address.
   */
  private search() {
    return this.clients.for('search', { timeoutMs: 30_000, baseUrl: this.ctx.serviceUrls.search ?? serviceUrl('search', this.ctx.env) });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled || !this.config.pageSearch) return;
    this.subscription = await this.bus.subscribe<ContentPageChangedPayload>([Topics.ContentPageChanged], { groupId: PAGE_SEARCH_GROUP }, async (event) => {
      const slug = event.data?.id ?? event.data?.slug;
      if (typeof slug === 'string') await this.index(slug);
    });
    this.settingsSubscription = await this.bus.subscribe<SettingsUpdatedPayload>([Topics.SettingsUpdated], { groupId: PAGE_SEARCH_SETTINGS_GROUP }, async (event) => {
      const module = event.data?.module;
      if (typeof module !== 'string') return;
      const keys = Array.isArray(event.data?.keys) ? event.data.keys.filter((k): k is string => typeof k === 'string') : [];
      // This group may run before the reader's own invalidation: read the settings afresh.
      this.expander.refresh();
      await this.reindexUsing(module, keys);
    });
    // The search service may start after this one: the first fill retries in the background.
    this.inBackground('pages not indexed for search yet', () => this.indexAll());
    this.activations.onActivated((code) => this.inBackground(`pages not indexed for search in ${code} yet`, () => this.indexAll([code])));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.subscription?.stop();
    await this.settingsSubscription?.stop();
  }

  /** Runs `task` soon, retrying with backoff (up to 30 s apart) until it succeeds or the service stops. */
  private inBackground(what: string, task: () => Promise<unknown>): void {
    let delay = 100;
    const attempt = async () => {
      if (this.stopped) return;
      try {
        await task();
      } catch (e) {
        if (delay >= 3_200) this.log.warn(`${what} (retrying): ${describe(e)}`);
        schedule(delay);
        delay = Math.min(30_000, delay * 2);
      }
    };
    const schedule = (ms: number) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void attempt();
      }, ms);
      timer.unref();
      this.timers.add(timer);
    };
    schedule(0);
  }

  /** Reindexes, in every active locale, the pages whose texts use setting `module` (one of `keys`); resolves how many. */
  async reindexUsing(module: string, keys: readonly string[] = []): Promise<number> {
    const codes = await this.locales.codes();
    let n = 0;
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listPages(100, after);
      const using = batch.filter((p) => pageUsesSettings(p, module, keys));
      for (const code of codes) if (using.length) await this.upsert(code, await Promise.all(using.map((p) => this.document(p, code))));
      n += using.length;
      if (batch.length < 100) break;
      after = batch[batch.length - 1].slug;
    }
    return n;
  }

  /** Indexes (or removes) one page in the index of every active locale. */
  async index(slug: string): Promise<void> {
    const [page, codes] = await Promise.all([this.repository.findPage(slug), this.locales.codes()]);
    for (const code of codes) {
      if (page) await this.upsert(code, [await this.document(page, code)]);
      else await this.remove(code, [slug]);
    }
  }

  /** Every page into the index of each of `locales` (default: every active locale). */
  async indexAll(locales?: readonly string[]): Promise<number> {
    const codes = locales ?? (await this.locales.codes());
    let n = 0;
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listPages(100, after);
      for (const code of codes) if (batch.length) await this.upsert(code, await Promise.all(batch.map((p) => this.document(p, code))));
      n += batch.length;
      if (batch.length < 100) break;
      after = batch[batch.length - 1].slug;
    }
    return n;
  }

  private async document(page: Page, locale: string): Promise<{ id: string; text: string; payload: Record<string, unknown> }> {
    const { page: shown, contentLocale } = await this.pages.render(page, locale);
    const text = [shown.title, shown.seo.description ?? '', htmlText(shown.body)].filter(Boolean).join('\n').slice(0, MAX_TEXT);
    return { id: page.slug, text: text || page.slug, payload: { slug: page.slug, locale, contentLocale, title: shown.title } };
  }

  private async upsert(locale: string, documents: unknown[]): Promise<void> {
    await this.search().post(`/internal/search/indexes/${encodeURIComponent(pageIndexName(locale))}/upsert`, { documents, create: true }, { idempotent: true });
  }

  private async remove(locale: string, ids: string[]): Promise<void> {
    try {
      await this.search().post(`/internal/search/indexes/${encodeURIComponent(pageIndexName(locale))}/delete`, { ids }, { idempotent: true });
    } catch (e) {
      // An index never made holds no page to remove.
      if (e instanceof ServiceCallError && e.status === 404) return;
      throw e;
    }
  }
}

function describe(e: unknown): string {
  if (e instanceof ServiceCallError) return `${e.message}${e.remoteMessage ? `: ${e.remoteMessage}` : ''}`;
  return e instanceof Error ? e.message : String(e);
}
