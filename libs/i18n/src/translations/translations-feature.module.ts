import { Module } from '@nestjs/common';
import { I18nCoreModule } from '../i18n-core.module';
import { AdminMessagesController } from './http/admin-messages.controller';
import { AdminReportKeysController } from './http/admin-report-keys.controller';
import { AdminTranslationsController } from './http/admin-translations.controller';
import { CatalogController } from './http/catalog.controller';
import { AutoregisterEnabledGuard, ReportKeysRateLimitGuard } from './http/report-keys.guards';
import { I18nOutbox } from './persistence/i18n.outbox';
import { TranslationRepository } from './persistence/translation.repository';
import { TranslationCacheConsumer } from './translation-cache.consumer';
import { TranslationService } from './translation.service';
import { CachedTranslationService } from './use-cases/cached-translation.service';
import { DeleteMessageUseCase } from './use-cases/delete-message.use-case';
import { I18nInstance } from './use-cases/instance-id';
import { PublicCatalogService } from './use-cases/public-catalog.service';
import { PutMessageUseCase } from './use-cases/put-message.use-case';
import { ReportKeysUseCase } from './use-cases/report-keys.use-case';
import { SeedSurfaceMessagesUseCase } from './use-cases/seed-surface-messages.use-case';
import { TranslationQueries } from './use-cases/translation.queries';
import { UpsertTranslationRowUseCase } from './use-cases/upsert-translation-row.use-case';
import { WriteTranslationUseCase } from './use-cases/write-translation.use-case';

/**
 * Translation rows and the message catalog: the repository (one (namespace, key, locale) cell per
 * message), the cached Translation service, and the admin and public routes. Exports the repository,
 * the writer (which announces `i18n.updated` and `i18n.keys_changed`) and the service for the
 * formats, tokens and nodes features.
 */
@Module({
  imports: [I18nCoreModule],
  controllers: [CatalogController, AdminMessagesController, AdminTranslationsController, AdminReportKeysController],
  providers: [
    I18nInstance,
    TranslationRepository,
    I18nOutbox,
    WriteTranslationUseCase,
    CachedTranslationService,
    { provide: TranslationService, useExisting: CachedTranslationService },
    TranslationCacheConsumer,
    PublicCatalogService,
    TranslationQueries,
    PutMessageUseCase,
    DeleteMessageUseCase,
    UpsertTranslationRowUseCase,
    ReportKeysUseCase,
    SeedSurfaceMessagesUseCase,
    AutoregisterEnabledGuard,
    ReportKeysRateLimitGuard,
  ],
  exports: [I18nCoreModule, TranslationRepository, I18nOutbox, WriteTranslationUseCase, TranslationService, I18nInstance],
})
export class TranslationsFeatureModule {}
