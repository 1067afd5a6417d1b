import { Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import type { Page } from '../domain/content.entity';
import type { LocaleMap } from '../domain/localized-text';
import { LEGAL_TEMPLATES, type LegalTemplate, proseWithoutDate, renderLegal } from '../domain/legal-templates';
import { unitHash } from '../domain/translation-state';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { nextPage } from './page-writes.use-case';
import { PublicPageCache } from './public-page.cache';

/** What the seeder did with one template. */
export type LegalSeedOutcome = 'created' | 'updated' | 'unchanged' | 'readied' | 'kept' | 'deleted';

interface SeedDocument extends StoreDocument {
  seededAt: Date;
}

/**
 * Seeds the legal pages `privacy` and `terms` at start-up with `reviewRequired` on (rule 17), so no
 * unreviewed machine text reaches them, and `translationReady` on: the template's prose is finished
 * source text, and the review gate (not the ready gate) is what keeps machine output from readers,
 * so a translation run takes them without an admin write first. A re-seed compares the stored prose with the template's,
 * dates left out (rule 12), and skips an unchanged write, which keeps the stored date and every
 * translation. A page an admin wrote (any `PUT` clears the seeder's mark) is never overwritten, and
 * a seeded page an admin deleted is not brought back (the seeder remembers what it seeded once).
 */
@Injectable()
export class SeedLegalPagesUseCase implements OnApplicationBootstrap {
  static readonly SEEDS = 'i18n_content_seeds';
  private readonly log = new Logger('LegalPages');
  private readonly seeds: Collection<SeedDocument>;

  constructor(
    @Inject(STORE) store: Store,
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {
    this.seeds = store.collection<SeedDocument>(SeedLegalPagesUseCase.SEEDS);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    const done = this.readiness?.beginSeeding('legal pages');
    try {
      const outcome = await this.execute();
      const changed = Object.entries(outcome).filter(([, o]) => o === 'created' || o === 'updated' || o === 'readied');
      if (changed.length) this.log.log(`legal pages ${changed.map(([s, o]) => `${s} ${o}`).join(', ')}`);
    } catch (e) {
      // The pages are content, not a dependency: a failed seed must not keep the service down.
      this.log.warn(`legal pages not seeded: ${(e as Error).message}`);
    } finally {
      done?.();
    }
  }

  /** Seeds or re-seeds every template; resolves what happened to each slug. */
  async execute(now: Date = new Date()): Promise<Record<string, LegalSeedOutcome>> {
    const out: Record<string, LegalSeedOutcome> = {};
    for (const t of LEGAL_TEMPLATES) {
      out[t.slug] = await this.seed(t, now);
      if (out[t.slug] === 'created' || out[t.slug] === 'updated') this.cache.drop(t.slug);
    }
    return out;
  }

  private async seed(t: LegalTemplate, now: Date): Promise<LegalSeedOutcome> {
    const rendered = renderLegal(t, now);
    const prose = proseWithoutDate(rendered);
    return this.outbox.transaction(async (session) => {
      const existing = await this.repository.findPage(t.slug, session);
      const seededBefore = await this.seeds.findOne({ _id: t.slug }, { session });
      if (!existing && seededBefore) return 'deleted';
      if (existing && !existing.seeded) return 'kept';
      if (existing && proseWithoutDate(templateLocales(existing, rendered)) === prose) {
        if (existing.translation.translationReady) return 'unchanged';
        // Seeded by a version that left the ready flag off: only the flag changes, so the stored
        // date (the sweep's quiet period) and every translation stay.
        await this.repository.savePage({ ...existing, translation: { ...existing.translation, translationReady: true } }, session);
        return 'readied';
      }
      // Translations into other locales stay beside the new prose (stale until translated again).
      const text = { title: { ...existing?.title, ...rendered.title }, body: { ...existing?.body, ...rendered.body } };
      const next = nextPage(t.slug, existing, { ...text, seo: existing?.seo, reviewRequired: true, translationReady: true }, this.config.sourceLocale, now);
      await this.repository.savePage({ ...next.page, seeded: { template: t.slug, prose: unitHash(prose) } }, session);
      if (!seededBefore) await this.seeds.insertOne({ _id: t.slug, seededAt: now }, { session });
      await this.outbox.pageChanged(session, t.slug, existing ? 'updated' : 'created', next.sourceChanged);
      return existing ? 'updated' : 'created';
    });
  }
}

/**
 * The page's text in the locales the template writes: translations the pages received since
 * (approved machine text in other locales) are not a difference from the template.
 */
function templateLocales(page: Page, rendered: { title: LocaleMap; body: LocaleMap }): { title: LocaleMap; body: LocaleMap } {
  const only = (m: LocaleMap, keep: LocaleMap) => Object.fromEntries(Object.entries(m).filter(([l]) => Object.prototype.hasOwnProperty.call(keep, l)));
  return { title: only(page.title, rendered.title), body: only(page.body, rendered.body) };
}
