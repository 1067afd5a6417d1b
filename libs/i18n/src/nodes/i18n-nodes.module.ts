import { Module } from '@nestjs/common';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { I18nNodeRegistrar } from './i18n-node.registrar';
import { I18nNodesController } from './i18n-nodes.controller';

/** The i18n flow nodes' registration with flow-runtime, and the invoke routes of `i18n/translate` and `i18n/resolve-locale` (`i18n/fill-translations` is served by the automatic-translation feature). */
@Module({
  imports: [TranslationsFeatureModule],
  controllers: [I18nNodesController],
  providers: [I18nNodeRegistrar],
  exports: [I18nNodeRegistrar],
})
export class I18nNodesModule {}
