import { Module } from '@nestjs/common';
import { I18nCoreModule } from '../i18n-core.module';
import { I18nOutbox } from './persistence/i18n.outbox';
import { TranslationRepository } from './persistence/translation.repository';
import { TranslationService } from './translation.service';
import { CachedTranslationService } from './use-cases/cached-translation.service';
import { I18nInstance } from './use-cases/instance-id';
import { WriteTranslationUseCase } from './use-cases/write-translation.use-case';

/**
 * Translation rows and the message catalog: the repository (one (namespace, key, locale) cell per
 * message), the cached Translation service, and the admin and public routes. Exports the repository,
 * the writer (which announces `i18n.updated` and `i18n.keys_changed`) and the service for the
 * formats, tokens and nodes features.
 */
@Module({
  imports: [I18nCoreModule],
  providers: [
    I18nInstance,
    TranslationRepository,
    I18nOutbox,
    WriteTranslationUseCase,
    CachedTranslationService,
    { provide: TranslationService, useExisting: CachedTranslationService },
  ],
  exports: [I18nCoreModule, TranslationRepository, I18nOutbox, WriteTranslationUseCase, TranslationService],
})
export class TranslationsFeatureModule {}
