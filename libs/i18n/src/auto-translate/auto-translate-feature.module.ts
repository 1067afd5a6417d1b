import { Module } from '@nestjs/common';
import { LocalesFeatureModule } from '../locales/locales-feature.module';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { GlossarySource } from './auto-translate.ports';
import { MachineTranslationWriter } from './fill/machine-translation.writer';
import { PendingTranslationsUseCases } from './fill/pending-translations.use-cases';
import { GlossaryRepository } from './glossary/glossary.repository';
import { StoredGlossaryService } from './glossary/stored-glossary.service';
import { GlossaryController } from './http/glossary.controller';
import { PendingTranslationsController } from './http/pending.controller';

/**
 * Automatic translation: the engine (model or offline pseudo-localizer, format signature, review
 * gate), the fill loop with translation memory and the glossary, and the routes, node, flows,
 * schedule and command line that drive it (see `auto-translate.ports.ts`).
 */
@Module({
  imports: [TranslationsFeatureModule, LocalesFeatureModule],
  controllers: [
    // controllers
    GlossaryController,
    PendingTranslationsController,
  ],
  providers: [
    // providers
    GlossaryRepository,
    StoredGlossaryService,
    { provide: GlossarySource, useExisting: StoredGlossaryService },
    MachineTranslationWriter,
    PendingTranslationsUseCases,
  ],
  exports: [
    // exports
    GlossarySource,
  ],
})
export class AutoTranslateFeatureModule {}
