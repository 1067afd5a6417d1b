import { Module } from '@nestjs/common';
import { ProfileResolverModule } from '@flowplane/platform/service';
import { LocalesFeatureModule } from '../locales/locales-feature.module';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { FillTranslationsNodeController } from '../nodes/fill-translations-node.controller';
import { I18nNodesModule } from '../nodes/i18n-nodes.module';
import { FillTranslations, GlossarySource, TranslationEngine } from './auto-translate.ports';
import { AiSettings } from './engine/ai-settings.service';
import { LlmTranslationEngine } from './engine/llm-translation-engine';
import { FillTranslationsService } from './fill/fill-translations.service';
import { TranslationFlowsSeeder } from './flows/translation-flows.seeder';
import { MachineTranslationWriter } from './fill/machine-translation.writer';
import { OverwritePassRepository } from './fill/overwrite-pass.repository';
import { PendingTranslationsUseCases } from './fill/pending-translations.use-cases';
import { GlossaryRepository } from './glossary/glossary.repository';
import { StoredGlossaryService } from './glossary/stored-glossary.service';
import { AiTranslateController } from './http/ai-translate.controller';
import { GlossaryController } from './http/glossary.controller';
import { PendingTranslationsController } from './http/pending.controller';
import { TranslateMissingController } from './http/translate-missing.controller';
import { ReviewTranslationsController } from './http/review.controller';

/**
 * Automatic translation: the engine (model or offline pseudo-localizer, format signature, review
 * gate), the fill loop with translation memory and the glossary, and the routes, node, flows,
 * schedule and command line that drive it (see `auto-translate.ports.ts`).
 */
@Module({
  imports: [TranslationsFeatureModule, LocalesFeatureModule, ProfileResolverModule.forRoot(), I18nNodesModule],
  controllers: [
    // controllers
    FillTranslationsNodeController,
    AiTranslateController,
    ReviewTranslationsController,
    GlossaryController,
    PendingTranslationsController,
    TranslateMissingController,
  ],
  providers: [
    // providers
    TranslationFlowsSeeder,
    AiSettings,
    { provide: TranslationEngine, useClass: LlmTranslationEngine },
    GlossaryRepository,
    StoredGlossaryService,
    { provide: GlossarySource, useExisting: StoredGlossaryService },
    MachineTranslationWriter,
    OverwritePassRepository,
    PendingTranslationsUseCases,
    FillTranslationsService,
    { provide: FillTranslations, useExisting: FillTranslationsService },
  ],
  exports: [
    // exports
    TranslationEngine,
    GlossarySource,
    FillTranslations,
  ],
})
export class AutoTranslateFeatureModule {}
