import { Module } from '@nestjs/common';
import { TranslationsFeatureModule } from '../translations/translations-feature.module';
import { I18nNodeRegistrar } from './i18n-node.registrar';
import { I18nNodesController } from './i18n-nodes.controller';

/** The `i18n/translate` and `i18n/resolve-locale` flow nodes: their invoke routes and their registration. */
@Module({
  imports: [TranslationsFeatureModule],
  controllers: [I18nNodesController],
  providers: [I18nNodeRegistrar],
})
export class I18nNodesModule {}
