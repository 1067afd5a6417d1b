import { Module } from '@nestjs/common';
import { AutoTranslateFeatureModule } from '../auto-translate/auto-translate-feature.module';
import { I18nCoreModule } from '../i18n-core.module';
import { LocalesFeatureModule } from '../locales/locales-feature.module';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { AdminFragmentsController, AdminPagesController } from './http/admin-content.controller';
import { PublicContentController } from './http/public-content.controller';
import { ContentOutbox } from './persistence/content.outbox';
import { ContentRepository } from './persistence/content.repository';
import { ActiveLocales } from './use-cases/active-locales';
import { ContentQueries } from './use-cases/content.queries';
import { DeleteFragmentUseCase, PutFragmentUseCase } from './use-cases/fragment-writes.use-case';
import { DeletePageUseCase, PutPageUseCase } from './use-cases/page-writes.use-case';
import { PublicContentService } from './use-cases/public-content.service';
import { PublicPageCache } from './use-cases/public-page.cache';
import { PublicPageCacheConsumer } from './use-cases/public-page-cache.consumer';
import { SeedLegalPagesUseCase } from './use-cases/seed-legal-pages.use-case';
import { SitemapUseCase } from './use-cases/sitemap.use-case';
import { ContentSweep, SweepReports } from './translate/content-sweep';
import { ContentSweepScheduleSeeder } from './translate/content-sweep.seeder';
import { ContentPreviewController, ContentTranslationsController } from './translate/content-translate.controller';
import { ContentTranslator } from './translate/content-translator';
import { ContentTranslationQueue } from './translate/translation-queue';
import { PageSearchIndexer } from './search/page-search';

/**
 * Localized content: pages and fragments with their translation state, the public reads in the
 * request's language, the legal pages seeded at start-up and the sitemap, and their translation
 * (`translate/`: runs, the review queue, the preview, the sweep and its schedule). Exports the repository,
 * the outbox and the queries for the content translator.
 */
@Module({
  imports: [I18nCoreModule, LocalesFeatureModule, TranslationsFeatureModule, AutoTranslateFeatureModule],
  controllers: [AdminPagesController, AdminFragmentsController, PublicContentController, ContentTranslationsController, ContentPreviewController],
  providers: [
    ContentRepository,
    ContentOutbox,
    ActiveLocales,
    ContentQueries,
    PutPageUseCase,
    DeletePageUseCase,
    PutFragmentUseCase,
    DeleteFragmentUseCase,
    PublicContentService,
    { provide: PublicPageCache, useFactory: () => new PublicPageCache() },
    PublicPageCacheConsumer,
    SeedLegalPagesUseCase,
    SitemapUseCase,
    ContentTranslator,
    ContentTranslationQueue,
    SweepReports,
    ContentSweep,
    ContentSweepScheduleSeeder,
    PageSearchIndexer,
  ],
  exports: [ContentRepository, ContentOutbox, ContentQueries, PublicContentService, PublicPageCache],
})
export class ContentFeatureModule {}
