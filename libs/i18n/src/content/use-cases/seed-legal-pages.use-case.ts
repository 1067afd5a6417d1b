import { Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import { LEGAL_TEMPLATES, type LegalTemplate, proseWithoutDate, renderLegal } from '../domain/legal-templates';
import { unitHash } from '../domain/translation-state';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { nextPage } from './page-writes.use-case';
import { PublicPageCache } from './public-page.cache';

/** What the seeder did with one template. */
export type LegalSeedOutcome = 'created' | 'updated' | 'unchanged' | 'kept' | 'deleted';

interface SeedDocument extends StoreDocument {
  seededAt: Date;
}

/**
 * Seeds the legal pages `privacy` and `terms` at start-up with `reviewRequired` on (rule 17), so no
 * unreviewed machine text reaches them. A re-seed compares the stored prose with the template's,
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
      const changed = Object.entries(outcome).filter(([, o]) => o === 'created' || o === 'updated');
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
      if (existing && proseWithoutDate(existing) === prose) return 'unchanged';
      const next = nextPage(t.slug, existing, { ...rendered, reviewRequired: true }, this.config.sourceLocale, now);
      await this.repository.savePage({ ...next.page, seeded: { template: t.slug, prose: unitHash(prose) } }, session);
      if (!seededBefore) await this.seeds.insertOne({ _id: t.slug, seededAt: now }, { session });
      await this.outbox.pageChanged(session, t.slug, existing ? 'updated' : 'created', next.sourceChanged);
      return existing ? 'updated' : 'created';
    });
  }
}
