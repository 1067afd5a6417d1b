import { Module } from '@nestjs/common';
import { LocalesFeatureModule } from '../locales/locales-feature.module';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';

/**
 * Automatic translation: the engine (model or offline pseudo-localizer, format signature, review
 * gate), the fill loop with translation memory and the glossary, and the routes, node, flows,
 * schedule and command line that drive it (see `auto-translate.ports.ts`).
 */
@Module({
  imports: [TranslationsFeatureModule, LocalesFeatureModule],
  controllers: [
    // controllers
  ],
  providers: [
    // providers
  ],
  exports: [
    // exports
  ],
})
export class AutoTranslateFeatureModule {}
